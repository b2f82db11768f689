//! Standard TCP congestion control (RFC 5681): slow start while
//! cwnd < ssthresh, then congestion avoidance adding SMSS*SMSS/cwnd per ACK
//! (thesis Eq. 2.2-2.3). Used by both NewReno and SACK; what differs between
//! them is loss recovery.

use super::{CongestionSettings, Showcase, Variant};
use crate::engine::SimTime;
use crate::tcp::ack_info::AckInfo;
use crate::tcp::congestion::{CcEvent, CongestionControl, Reply, SlowStart, StandardSlowStart};
use crate::tcp::send_state::SendState;
use crate::tcp::Recovery;

/// Standard TCP: Reno congestion control with NewReno or SACK loss
/// recovery, the thesis's and the papers' baselines.
pub const VARIANT: Variant = Variant::congestion_only::<RenoSettings>(
    "reno",
    "RFC 5681 congestion control with NewReno (RFC 6582) or SACK (RFC 6675) loss recovery",
    &[Recovery::NewReno, Recovery::Sack],
    &[("newreno", Recovery::NewReno), ("sack", Recovery::Sack)],
)
.compared_as(&[
    Showcase {
        label: "NewReno",
        tcp: r#"{"variant": "newreno"}"#,
    },
    Showcase {
        label: "SACK",
        tcp: r#"{"variant": "sack"}"#,
    },
]);

/// Reno has no settings of its own: a `[tcp.reno]` table must be empty.
#[derive(Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RenoSettings {}

impl CongestionSettings for RenoSettings {
    fn congestion_control(&self) -> Box<dyn CongestionControl> {
        Box::new(Reno::new())
    }
}

pub struct Reno {
    slow_start: Box<dyn SlowStart>,
    /// Remainder of the congestion-avoidance division (see `reno_ca_increase`).
    ca_carry: u64,
}

impl Reno {
    pub fn new() -> Reno {
        Reno::with_slow_start(Box::new(StandardSlowStart))
    }
    pub fn with_slow_start(slow_start: Box<dyn SlowStart>) -> Reno {
        Reno {
            slow_start,
            ca_carry: 0,
        }
    }
}

impl Default for Reno {
    fn default() -> Self {
        Reno::new()
    }
}

/// Congestion-avoidance increase for one ACK: SMSS*SMSS/cwnd (RFC 5681
/// Eq. 3) in whole bytes. The remainder of the division is kept in `carry`
/// (in 1/cwnd bytes) and added to the next ACK's share. Truncating each
/// share, or rounding it up to 1 byte as RFC 5681 suggests for plain
/// integer arithmetic, makes the growth per RTT depend on how cwnd compares
/// with SMSS^2 (from about half to 1.6 SMSS per RTT with a 100-byte SMSS)
/// instead of the one SMSS per RTT the formula stands for.
pub fn reno_ca_increase(s: &SendState, carry: &mut u64) -> u64 {
    ca_share(s, s.mss() as u64, carry)
}

/// Reno's congestion-avoidance increase for an ACK of `acked` bytes: RFC
/// 5681's per ACK (`reno_ca_increase`), or, with `byte_counting`, SMSS x
/// acked / cwnd (RFC 3465 Sec. 2.1; Linux's `tcp_cong_avoid_ai`, one
/// segment per cwnd of segments acknowledged), so that delayed ACKs do not
/// halve the growth.
pub fn ca_increase(s: &SendState, acked: u64, carry: &mut u64) -> u64 {
    if s.byte_counting() {
        ca_share(s, acked, carry)
    } else {
        reno_ca_increase(s, carry)
    }
}

/// SMSS x `acked` / cwnd in whole bytes, the remainder kept in `carry`.
fn ca_share(s: &SendState, acked: u64, carry: &mut u64) -> u64 {
    let mss = s.mss() as u64;
    let cwnd = s.cwnd.max(1);
    // A carry left from a larger cwnd still stands for less than one byte.
    let num = mss * acked + (*carry).min(cwnd - 1);
    *carry = num % cwnd;
    num / cwnd
}

impl Reno {
    /// Passes every ACK to the slow-start function (for the functions
    /// that count ACKs); variants built on Reno call it from their ACK
    /// event.
    pub fn on_ack_info(&mut self, s: &SendState, ack: &AckInfo) {
        self.slow_start.on_ack_info(s, ack);
    }
}

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }

    fn ssthresh(&mut self, s: &SendState) -> u64 {
        s.halved_window()
    }

    fn on_ack(&mut self, s: &mut SendState, acked: u64, _now: SimTime) {
        let mut acked = acked;
        if s.in_slow_start() {
            // What byte counting leaves once cwnd reaches ssthresh goes on
            // to congestion avoidance (tcp_reno_cong_avoid).
            acked = self.slow_start.grow(s, acked);
            if acked == 0 {
                return;
            }
        }
        s.cwnd += ca_increase(s, acked, &mut self.ca_carry);
    }

    fn on_timeout(&mut self, s: &mut SendState) {
        s.restart_after_timeout(s.halved_window());
    }

    fn on_event(&mut self, s: &mut SendState, ev: CcEvent, _now: SimTime) -> Reply {
        if let CcEvent::Ack(ack) = ev {
            self.on_ack_info(s, ack);
        }
        Reply::Default
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::recovery::NewRenoRecovery;
    use crate::tcp::{TcpConfig, TcpEndpoint};

    /// A window's worth of ACKs in congestion avoidance adds one SMSS (a
    /// little less, as cwnd grows along the way), whether cwnd is below or
    /// above SMSS^2 bytes.
    #[test]
    fn congestion_avoidance_adds_one_smss_per_window() {
        for (mss, segs) in [
            (100u32, 30u64),
            (100, 75),
            (100, 150),
            (1460, 44),
            (1460, 2000),
        ] {
            let cfg = TcpConfig {
                mss,
                ..TcpConfig::default()
            };
            let ep = TcpEndpoint::new(
                &cfg,
                false,
                Box::new(Reno::new()),
                Box::new(NewRenoRecovery),
            );
            let mut s = ep.tx;
            s.cwnd = segs * mss as u64;
            s.ssthresh = s.cwnd;
            let mut cc = Reno::new();
            for _ in 0..segs {
                cc.on_ack(&mut s, mss as u64, SimTime::ZERO);
            }
            let grown = s.cwnd - segs * mss as u64;
            let mss = mss as u64;
            assert!(
                grown <= mss && grown + mss / segs + 1 >= mss,
                "mss {mss}, {segs} segments: grew {grown} bytes"
            );
        }
    }
}
