//! Standard TCP congestion control (RFC 5681): slow start while
//! cwnd < ssthresh, then congestion avoidance adding SMSS*SMSS/cwnd per ACK
//! (thesis Eq. 2.2-2.3). Used by both NewReno and SACK; what differs between
//! them is loss recovery.

use crate::engine::SimTime;
use crate::tcp::congestion::{CongestionControl, SlowStart, StandardSlowStart};
use crate::tcp::send_state::SendState;

pub struct Reno {
    slow_start: Box<dyn SlowStart>,
}

impl Reno {
    pub fn new() -> Reno {
        Reno::with_slow_start(Box::new(StandardSlowStart))
    }
    pub fn with_slow_start(slow_start: Box<dyn SlowStart>) -> Reno {
        Reno { slow_start }
    }
}

impl Default for Reno {
    fn default() -> Self {
        Reno::new()
    }
}

/// Congestion-avoidance increase for one ACK: SMSS*SMSS/cwnd, at least 1 byte
/// (RFC 5681 Eq. 3).
pub fn reno_ca_increase(s: &SendState) -> u64 {
    let mss = s.mss as u64;
    (mss * mss / s.cwnd.max(1)).max(1)
}

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }

    fn on_ack(&mut self, s: &mut SendState, acked: u64, _now: SimTime) {
        if s.in_slow_start() {
            s.cwnd += self.slow_start.increase(s, acked);
        } else {
            s.cwnd += reno_ca_increase(s);
        }
    }
}
