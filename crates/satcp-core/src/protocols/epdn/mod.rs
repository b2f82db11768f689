//! EPDN gateways (Explicit Packet Drop Notification, TCP-R paper Sec. 2.1;
//! readings in docs/tcpr.md): router function kinds `epdn-v2` and
//! `epdn-v3`.
//!
//! A gateway keeps, per flow (`Packet::flow()`), one pair (min_seq,
//! max_seq) of the data packets it dropped and has not reported yet, as
//! the byte range from the first byte of the lowest to the end of the
//! highest. When it forwards the flow's next data packet it writes the pair
//! into it (one header-extension range; a pair the packet already carries
//! from an upstream gateway is merged into one range covering both) and
//! forgets it. A dropped carrier's pair goes back into the dropping
//! gateway's entry, so no report is lost with its carrier.
//!
//! - `epdn-v2` records congestion drops (queue overflow, RED early and
//!   forced drops) and corruption drops at the gateway (a corrupted packet
//!   the incoming link lets reach this node, `errors.corrupted_reach_next_node`,
//!   and which the node discards, `DropCause::Corruption`);
//! - `epdn-v3` records congestion drops only.
//!
//! Random wire losses (`DropCause::Loss`) are recorded by neither: such a
//! packet never reaches a gateway, so no gateway could know of it [I].
//! A gateway sees drops at its own node only.

use super::RouterKind;
use crate::engine::SimTime;
use crate::error::{typed, ScenarioError};
use crate::net::packet::{FlowKey, LinkId, Packet, SeqRange};
use crate::net::router::{DropCause, QueueDecision, RouterFunction};
use serde::Deserialize;
use std::collections::BTreeMap;

pub const EPDN_V2: RouterKind = RouterKind {
    kind: "epdn-v2",
    about: "EPDN gateway (TCP-R paper): per-flow pair of congestion and corruption drops, \
            written into the flow's next data packet",
    build: build_v2,
    schema: super::schema_of::<NoSettings>,
};

pub const EPDN_V3: RouterKind = RouterKind {
    kind: "epdn-v3",
    about: "EPDN gateway (TCP-R paper): per-flow pair of congestion drops only, \
            written into the flow's next data packet",
    build: build_v3,
    schema: super::schema_of::<NoSettings>,
};

/// The gateways take no settings: a `[[routers]]` entry of these kinds
/// has only `node` and `kind`.
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct NoSettings {}

fn build_v2(v: &serde_json::Value) -> Result<Box<dyn RouterFunction>, ScenarioError> {
    let NoSettings {} = typed(v)?;
    Ok(Box::new(EpdnGateway::new(Version::V2)))
}

fn build_v3(v: &serde_json::Value) -> Result<Box<dyn RouterFunction>, ScenarioError> {
    let NoSettings {} = typed(v)?;
    Ok(Box::new(EpdnGateway::new(Version::V3)))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    /// Congestion and corruption drops.
    V2,
    /// Congestion drops only.
    V3,
}

pub struct EpdnGateway {
    version: Version,
    /// Per flow, the pair of dropped data not yet reported.
    records: BTreeMap<FlowKey, SeqRange>,
    /// Data packets this gateway dropped (or saw discarded) and recorded.
    pub recorded: u64,
    /// Pairs written into forwarded data packets.
    pub reported: u64,
}

/// The smallest range covering both.
fn hull(a: SeqRange, b: SeqRange) -> SeqRange {
    SeqRange::new(a.start.min(b.start), a.end.max(b.end))
}

impl EpdnGateway {
    pub fn new(version: Version) -> EpdnGateway {
        EpdnGateway {
            version,
            records: BTreeMap::new(),
            recorded: 0,
            reported: 0,
        }
    }

    /// The pair this gateway holds for `flow`, if any.
    pub fn record(&self, flow: &FlowKey) -> Option<SeqRange> {
        self.records.get(flow).copied()
    }

    fn widen(&mut self, flow: FlowKey, r: SeqRange) {
        self.records
            .entry(flow)
            .and_modify(|e| *e = hull(*e, r))
            .or_insert(r);
    }

    /// A data packet this node drops or discards: its own range if the
    /// version records `cause`, and the pair it carried, if any.
    fn on_drop(&mut self, pkt: &Packet, cause: DropCause) {
        if !pkt.is_data() {
            return;
        }
        let records = match cause {
            DropCause::Overflow | DropCause::EarlyDrop => true,
            DropCause::Corruption => self.version == Version::V2,
            DropCause::Loss | DropCause::AckFiltered => false,
        };
        if !records {
            return;
        }
        let flow = pkt.flow();
        for r in pkt.tcp.ext_ranges() {
            self.widen(flow, r);
        }
        self.widen(
            flow,
            SeqRange::new(pkt.tcp.seq, pkt.tcp.seq + pkt.tcp.len as u64),
        );
        self.recorded += 1;
    }
}

impl RouterFunction for EpdnGateway {
    fn name(&self) -> &'static str {
        match self.version {
            Version::V2 => "epdn-v2",
            Version::V3 => "epdn-v3",
        }
    }

    fn on_forward(&mut self, pkt: &mut Packet, _from: LinkId, _to: LinkId, _now: SimTime) {
        if !pkt.is_data() {
            return;
        }
        let Some(mut pair) = self.records.remove(&pkt.flow()) else {
            return;
        };
        for r in pkt.tcp.ext_ranges() {
            pair = hull(pair, r);
        }
        pkt.tcp.clear_ext_ranges();
        if pkt.tcp.push_ext_range(pair) {
            self.reported += 1;
        } else {
            // No option space left (SACK blocks fill it): the pair waits
            // for the flow's next data packet.
            self.records.insert(pkt.flow(), pair);
        }
    }

    fn on_queue(&mut self, pkt: &Packet, _to: LinkId, d: QueueDecision, _now: SimTime) {
        if let QueueDecision::Dropped(cause) = d {
            self.on_drop(pkt, cause);
        }
    }

    fn on_discard(&mut self, pkt: &Packet, _from: LinkId, cause: DropCause, _now: SimTime) {
        self.on_drop(pkt, cause);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{Ecn, Priority, TcpHeader};

    fn data(seq: u64, len: u32) -> Packet {
        Packet {
            src: 0,
            dst: 3,
            endpoint: 1,
            size: 40 + len,
            priority: Priority::High,
            ecn: Ecn::NotEct,
            tcp: TcpHeader {
                seq,
                len,
                ..Default::default()
            },
            created: SimTime::ZERO,
        }
    }

    fn drop(g: &mut EpdnGateway, p: &Packet, cause: DropCause) {
        g.on_queue(p, 1, QueueDecision::Dropped(cause), SimTime::ZERO);
    }

    fn forward(g: &mut EpdnGateway, p: &mut Packet) {
        g.on_forward(p, 0, 1, SimTime::ZERO);
    }

    #[test]
    fn congestion_drops_widen_one_pair_written_into_the_next_data_packet() {
        for v in [Version::V2, Version::V3] {
            let mut g = EpdnGateway::new(v);
            drop(&mut g, &data(3001, 1000), DropCause::Overflow);
            drop(&mut g, &data(1001, 1000), DropCause::EarlyDrop);
            drop(&mut g, &data(5001, 1000), DropCause::Overflow);
            let flow = data(0, 1).flow();
            assert_eq!(g.record(&flow), Some(SeqRange::new(1001, 6001)));
            // A pure ACK of the flow does not carry it.
            let mut ack = data(7001, 0);
            forward(&mut g, &mut ack);
            assert!(ack.tcp.ext_ranges().is_empty());
            let mut next = data(6001, 1000);
            forward(&mut g, &mut next);
            assert_eq!(
                next.tcp.ext_ranges().as_slice(),
                &[SeqRange::new(1001, 6001)]
            );
            assert_eq!(g.record(&flow), None, "the entry is deleted");
            let mut after = data(7001, 1000);
            forward(&mut g, &mut after);
            assert!(after.tcp.ext_ranges().is_empty());
            assert_eq!((g.recorded, g.reported), (3, 1));
        }
    }

    #[test]
    fn flows_are_kept_apart() {
        let mut g = EpdnGateway::new(Version::V2);
        drop(&mut g, &data(1001, 1000), DropCause::Overflow);
        let mut other = data(1001, 1000);
        other.endpoint = 2;
        forward(&mut g, &mut other);
        assert!(other.tcp.ext_ranges().is_empty());
        let mut mine = data(2001, 1000);
        forward(&mut g, &mut mine);
        assert_eq!(
            mine.tcp.ext_ranges().as_slice(),
            &[SeqRange::new(1001, 2001)]
        );
    }

    #[test]
    fn v2_records_a_corruption_drop_and_v3_does_not() {
        for (v, expect) in [
            (Version::V2, Some(SeqRange::new(1001, 2001))),
            (Version::V3, None),
        ] {
            let mut g = EpdnGateway::new(v);
            let p = data(1001, 1000);
            g.on_discard(&p, 0, DropCause::Corruption, SimTime::ZERO);
            assert_eq!(g.record(&p.flow()), expect, "{v:?}");
        }
    }

    #[test]
    fn random_wire_losses_are_recorded_by_neither() {
        for v in [Version::V2, Version::V3] {
            let mut g = EpdnGateway::new(v);
            let p = data(1001, 1000);
            g.on_discard(&p, 0, DropCause::Loss, SimTime::ZERO);
            assert_eq!(g.record(&p.flow()), None);
        }
    }

    #[test]
    fn a_carried_pair_is_merged_with_the_gateways_own() {
        let mut g = EpdnGateway::new(Version::V3);
        drop(&mut g, &data(5001, 1000), DropCause::Overflow);
        let mut p = data(8001, 1000);
        assert!(p.tcp.push_ext_range(SeqRange::new(2001, 3001)));
        forward(&mut g, &mut p);
        assert_eq!(p.tcp.ext_ranges().as_slice(), &[SeqRange::new(2001, 6001)]);
        // Without an entry of its own the gateway leaves the pair alone.
        let mut q = data(9001, 1000);
        assert!(q.tcp.push_ext_range(SeqRange::new(2001, 3001)));
        forward(&mut g, &mut q);
        assert_eq!(q.tcp.ext_ranges().as_slice(), &[SeqRange::new(2001, 3001)]);
    }

    #[test]
    fn a_dropped_carriers_pair_merges_into_the_dropping_gateways_entry() {
        let mut g = EpdnGateway::new(Version::V3);
        drop(&mut g, &data(9001, 1000), DropCause::Overflow);
        let mut carrier = data(6001, 1000);
        assert!(carrier.tcp.push_ext_range(SeqRange::new(2001, 4001)));
        drop(&mut g, &carrier, DropCause::Overflow);
        assert_eq!(g.record(&carrier.flow()), Some(SeqRange::new(2001, 10001)));
        // The carrier was written by this gateway's own on_forward and then
        // dropped by its queue: the pair comes back.
        let mut g = EpdnGateway::new(Version::V2);
        drop(&mut g, &data(1001, 1000), DropCause::Overflow);
        let mut c = data(2001, 1000);
        forward(&mut g, &mut c);
        assert_eq!(g.record(&c.flow()), None);
        drop(&mut g, &c, DropCause::Overflow);
        assert_eq!(g.record(&c.flow()), Some(SeqRange::new(1001, 3001)));
    }
}
