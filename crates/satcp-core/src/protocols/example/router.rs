//! The example's router part: per flow, the sequence ranges of data the
//! node discarded (queue drops, and with `congestion_only = false` losses
//! and corruption on the incoming link), written into the next data packet
//! of that flow the node forwards.

use crate::engine::SimTime;
use crate::error::{typed, ScenarioError};
use crate::net::packet::{FlowKey, LinkId, Packet, SackBlocks, SeqRange};
use crate::net::router::{DropCause, QueueDecision, RouterFunction};
use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct Settings {
    /// Record queue drops only (overflow, RED), not link losses or
    /// corruption.
    congestion_only: bool,
}

pub fn build(v: &serde_json::Value) -> Result<Box<dyn RouterFunction>, ScenarioError> {
    let s: Settings = typed(v)?;
    Ok(Box::new(DropRecorder {
        congestion_only: s.congestion_only,
        records: BTreeMap::new(),
        last_event: SimTime::ZERO,
    }))
}

pub struct DropRecorder {
    congestion_only: bool,
    /// Discarded data per flow, not yet written into a packet.
    records: BTreeMap<FlowKey, SackBlocks>,
    /// When the function last saw anything (it keeps no timers; the clock
    /// is there for functions that age their state).
    pub last_event: SimTime,
}

impl DropRecorder {
    fn record(&mut self, pkt: &Packet, cause: DropCause, now: SimTime) {
        self.last_event = now;
        if !pkt.is_data() || (self.congestion_only && !cause.is_congestion()) {
            return;
        }
        let r = SeqRange::new(pkt.tcp.seq, pkt.tcp.seq + pkt.tcp.len as u64);
        let rec = self.records.entry(pkt.flow()).or_default();
        if !rec.as_slice().contains(&r) {
            rec.push(r);
        }
    }
}

impl RouterFunction for DropRecorder {
    fn name(&self) -> &'static str {
        "example-drop-recorder"
    }

    fn on_forward(&mut self, pkt: &mut Packet, _from: LinkId, _to: LinkId, now: SimTime) {
        self.last_event = now;
        if !pkt.is_data() {
            return;
        }
        if let Some(rec) = self.records.remove(&pkt.flow()) {
            // What the option space cannot hold rides a later packet.
            let mut left = SackBlocks::default();
            for r in rec.as_slice() {
                if !pkt.tcp.push_ext_range(*r) {
                    left.push(*r);
                }
            }
            if !left.is_empty() {
                self.records.insert(pkt.flow(), left);
            }
        }
    }

    fn on_queue(&mut self, pkt: &Packet, _to: LinkId, d: QueueDecision, now: SimTime) {
        if let QueueDecision::Dropped(cause) = d {
            // Records the dropped packet carried go back to the table.
            if !pkt.tcp.ext_ranges().is_empty() {
                let rec = self.records.entry(pkt.flow()).or_default();
                for r in pkt.tcp.ext_ranges() {
                    if !rec.as_slice().contains(&r) {
                        rec.push(r);
                    }
                }
            }
            self.record(pkt, cause, now);
        }
    }

    fn on_discard(&mut self, pkt: &Packet, _from: LinkId, cause: DropCause, now: SimTime) {
        self.record(pkt, cause, now);
    }
}
