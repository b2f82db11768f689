//! TCP Fast Start (V. N. Padmanabhan, R. Katz, "TCP Fast Start: A
//! Technique for Speeding Up Web Transfers", Globecom 1998), as the TCP-Peach
//! paper (Akyildiz, Morabito, Palazzo, IEEE/ACM ToN 9(3), 2001) describes
//! and uses it: Sec. II-A, and Sec. V-A, Fig. 16 ("TCP-Reno + FS").
//!
//! - A connection to a host that an earlier connection from this host has
//!   served starts from the cwnd and ssthresh that connection ended with
//!   (the simulation's path cache, `tcp/path_cache.rs`), instead of slow
//!   start from the initial window;
//! - the data it sends on that cached state before any feedback, the burst
//!   (`burst.rs`), goes at low priority, so that a priority router drops it
//!   before anyone's ordinary traffic if the cached state is stale, and is
//!   paced at the cached rate;
//! - if a burst segment is lost, the cached state was wrong, not the
//!   network congested by this sender: the sender reverts to slow start
//!   from the initial window and ssthresh, resending the burst
//!   (`fallback.rs`), instead of Fast Recovery's halving;
//! - everything else is NewReno (`faststart`) or SACK (`faststart-sack`).
//!
//! The congestion module (`FastStart`) and the loss-recovery module
//! (`fallback::FastStartRecovery`) share one `State`: the burst and whether
//! it failed. Readings of the papers are marked "Reading (n)", n being
//! the row of the readings table in docs/faststart.md.

pub mod burst;
pub mod fallback;
#[cfg(test)]
mod tests;

use super::reno::Reno;
use super::{Settings, Variant, VariantInput};
use crate::engine::{Duration, SimTime};
use crate::error::{positive, ScenarioError};
use crate::net::packet::Priority;
use crate::tcp::congestion::{CcEvent, CongestionControl, Reply};
use crate::tcp::path_cache::CachedPath;
use crate::tcp::recovery;
use crate::tcp::send_state::SendState;
use crate::tcp::{EndpointParts, Recovery, VariantFactory};
use burst::Burst;
use fallback::FastStartRecovery;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::rc::Rc;

/// TCP Fast Start settings (`tcp.faststart`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct FastStartConfig {
    /// Pace the burst at the cached rate (cached cwnd per cached smoothed
    /// RTT); false sends it as fast as the window allows.
    pub pacing: bool,
    /// Ignore cache entries older than this, seconds (none: any age). The
    /// TCP-Peach paper's Fig. 16 discussion has Fast Start use its cached
    /// window however long the think time was.
    #[schemars(range(max = crate::error::MAX_SETTING), extend("exclusiveMinimum" = 0.0))]
    pub max_age_s: Option<f64>,
}

impl Default for FastStartConfig {
    fn default() -> Self {
        FastStartConfig {
            pacing: true,
            max_age_s: None,
        }
    }
}

/// `faststart` (NewReno loss recovery) or `faststart-sack` (SACK option
/// and RFC 6675 recovery; the TCP-Peach paper's Sec. V compares variants
/// that all use SACK).
pub const VARIANT: Variant = Variant::new::<FastStartConfig>(
    "faststart",
    "TCP Fast Start (Padmanabhan and Katz), as the TCP-Peach paper uses it: cached window, low-priority burst",
    &[Recovery::NewReno, Recovery::Sack],
    &[("faststart-sack", Recovery::Sack)],
);

impl Settings for FastStartConfig {
    fn check(&mut self, _input: &VariantInput) -> Result<(), ScenarioError> {
        if let Some(age) = self.max_age_s {
            positive("max_age_s", age)?;
        }
        Ok(())
    }
}

impl VariantFactory for FastStartConfig {
    fn endpoint(&self, recovery: Recovery) -> EndpointParts {
        let st: Shared = Rc::new(RefCell::new(State::new()));
        EndpointParts::new(
            Box::new(FastStart::new(st.clone(), self.clone())),
            Box::new(FastStartRecovery::new(st, recovery::standard(recovery))),
            recovery == Recovery::Sack,
        )
    }
}

/// Values of `trace_phase` (the `cc_phase` time series).
pub mod phase {
    /// No burst: no cache entry, or the burst has been acknowledged.
    pub const NORMAL: i32 = 0;
    /// The burst is not yet fully acknowledged.
    pub const FAST_START: i32 = 1;
    /// A burst segment was lost: slow start from the initial window.
    pub const FALLBACK: i32 = 2;
}

/// What the congestion and loss-recovery modules of one sender share.
pub struct State {
    /// cwnd and ssthresh from the TCP settings (initial window, initial
    /// ssthresh): where slow start would have started, and where the
    /// fallback restarts.
    pub initial_cwnd: u64,
    pub initial_ssthresh: u64,
    pub burst: Burst,
    /// A burst segment was lost: Fast Start is over for this connection.
    pub fell_back: bool,
    /// The current loss-recovery episode is the fallback's, not NewReno's
    /// or SACK's.
    pub fallback_episode: bool,
    /// The whole burst has been acknowledged (for the phase trace).
    pub burst_acked: bool,
}

pub type Shared = Rc<RefCell<State>>;

impl State {
    pub fn new() -> State {
        State {
            initial_cwnd: 0,
            initial_ssthresh: 0,
            burst: Burst::none(),
            fell_back: false,
            fallback_episode: false,
            burst_acked: false,
        }
    }

    /// A loss is being reported (duplicate ACKs, SACK or a timeout) while
    /// the oldest unacknowledged data belongs to the burst: the burst,
    /// sent at low priority on cached state, is what was lost.
    pub fn burst_lost(&self, s: &SendState) -> bool {
        !self.fell_back && self.burst.outstanding(s)
    }
}

impl Default for State {
    fn default() -> Self {
        State::new()
    }
}

/// TCP Fast Start's congestion module: Reno's slow start and congestion
/// avoidance from the cached (or initial) window.
pub struct FastStart {
    st: Shared,
    cfg: FastStartConfig,
    reno: Reno,
}

impl FastStart {
    pub fn new(st: Shared, cfg: FastStartConfig) -> FastStart {
        FastStart {
            st,
            cfg,
            reno: Reno::new(),
        }
    }

    /// An entry old enough to be ignored (`tcp.faststart.max_age_s`).
    fn too_old(&self, c: &CachedPath, now: SimTime) -> bool {
        self.cfg
            .max_age_s
            .is_some_and(|a| now.since(c.stored_at) > Duration::from_secs_f64(a))
    }
}

impl CongestionControl for FastStart {
    fn name(&self) -> &'static str {
        "faststart"
    }

    fn on_event(&mut self, s: &mut SendState, ev: CcEvent, now: SimTime) -> Reply {
        match ev {
            CcEvent::ConnectionStart(cached) => self.start_from(s, cached, now),
            CcEvent::DataSent => self.st.borrow_mut().burst.on_data_sent(s),
            _ => {}
        }
        Reply::Default
    }

    /// Reading (3): the state at the end of the connection is cached, whether
    /// it used Fast Start or fell back; a connection that sent no data
    /// (a web client's side) learned nothing about the path and leaves the
    /// entry of the earlier one.
    fn cache_entry(&self, s: &SendState, now: SimTime) -> Option<CachedPath> {
        (s.stream_end() > 1).then(|| CachedPath {
            cwnd: s.cwnd,
            ssthresh: s.ssthresh,
            srtt: s.rtt().srtt(),
            stored_at: now,
        })
    }

    fn on_ack(&mut self, s: &mut SendState, acked: u64, now: SimTime) {
        self.reno.on_ack(s, acked, now);
        let st = &mut *self.st.borrow_mut();
        if st.burst.end().is_some() && !st.burst.outstanding(s) {
            st.burst_acked = true;
        }
    }

    /// Reading (7, 8): a loss reported while the oldest unacknowledged
    /// data is burst data is a loss of the burst, and no sign of congestion
    /// in the usual sense:
    /// ssthresh goes back to its initial value instead of half the flight
    /// (the loss-recovery module then restarts slow start). Any other loss
    /// is answered as Reno does.
    fn ssthresh(&mut self, s: &SendState) -> u64 {
        let st = &mut *self.st.borrow_mut();
        if st.burst_lost(s) {
            st.fell_back = true;
            st.fallback_episode = true;
            st.initial_ssthresh
        } else {
            s.halved_window()
        }
    }

    /// Reading (9): a timeout with burst data outstanding is the fallback,
    /// from the initial window (not the one-segment loss window) and ssthresh (the machinery then resends everything
    /// outstanding). Otherwise Reno's timeout.
    fn on_timeout(&mut self, s: &mut SendState) {
        let st = &mut *self.st.borrow_mut();
        st.fallback_episode = false;
        if st.burst_lost(s) {
            st.fell_back = true;
            s.ssthresh = st.initial_ssthresh;
            s.cwnd = st.initial_cwnd;
        } else {
            s.restart_after_timeout(s.halved_window());
        }
    }

    fn pacing_rate(&self, s: &SendState) -> Option<f64> {
        let st = self.st.borrow();
        if st.fell_back {
            None
        } else {
            st.burst.pacing_rate(s)
        }
    }

    /// Burst segments go at low priority until the fallback; after it,
    /// everything (their retransmissions included) is ordinary traffic.
    fn data_priority(&self, _s: &SendState, seq: u64) -> Priority {
        let st = self.st.borrow();
        if !st.fell_back && st.burst.contains(seq) {
            Priority::Low
        } else {
            Priority::High
        }
    }

    fn trace_phase(&self) -> i32 {
        let st = self.st.borrow();
        if st.fell_back {
            phase::FALLBACK
        } else if st.burst.planned_from_cache() && !st.burst_acked {
            phase::FAST_START
        } else {
            phase::NORMAL
        }
    }
}

impl FastStart {
    /// The cache hand-off: start from the cached cwnd and ssthresh, never
    /// below the initial window (a cached window smaller than what slow
    /// start would begin with brings nothing to reuse). Reading (1): the
    /// cached srtt only sets the burst's pace; the RTO estimator keeps the
    /// handshake's fresh sample. Reading (4): any age, unless
    /// `max_age_s` says otherwise.
    fn start_from(&mut self, s: &mut SendState, cached: Option<&CachedPath>, now: SimTime) {
        let st = &mut *self.st.borrow_mut();
        st.initial_cwnd = s.cwnd;
        st.initial_ssthresh = s.ssthresh;
        let Some(c) = cached.filter(|c| !self.too_old(c, now)) else {
            return;
        };
        s.cwnd = c.cwnd.max(s.cwnd);
        s.ssthresh = c.ssthresh;
        st.burst = Burst::planned(*c, self.cfg.pacing);
    }
}
