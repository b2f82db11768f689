//! CUBIC (RFC 9438): in congestion avoidance the window follows
//! W_cubic(t) = C (t - K)^3 + W_max (Sec. 4.2), t seconds since the current
//! congestion-avoidance stage began, K the time to climb back to W_max;
//! where standard TCP would be faster the window follows Reno's estimate
//! W_est instead (the Reno-friendly region, Sec. 4.3); on a loss cwnd is
//! multiplied by beta = 0.7 (Sec. 4.6) and W_max is lowered further when
//! the previous one was not reached (fast convergence, Sec. 4.7). Slow
//! start, loss detection and recovery are standard (SACK or NewReno).
//! Windows are computed in segments (f64), as the RFC writes them.

use super::{CongestionSettings, Showcase, Variant, VariantInput};
use crate::engine::{math, SimTime};
use crate::error::{positive, ScenarioError};
use crate::tcp::congestion::CongestionControl;
use crate::tcp::send_state::{CongState, SendState};
use crate::tcp::Recovery;
use serde::{Deserialize, Serialize};

pub const VARIANT: Variant = Variant::congestion_only::<CubicConfig>(
    "cubic",
    "CUBIC (RFC 9438): cubic window growth, Reno-friendly region, fast convergence",
    &[Recovery::Sack, Recovery::NewReno],
    &[],
)
.compared_as(&[Showcase {
    label: "CUBIC",
    tcp: r#"{"variant": "cubic", "profile": "linux"}"#,
}]);

/// `[tcp.cubic]`, the RFC's constants.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct CubicConfig {
    /// C, segments per second cubed (Sec. 5: 0.4).
    #[schemars(range(max = crate::error::MAX_SETTING), extend("exclusiveMinimum" = 0.0))]
    pub c: f64,
    /// beta_cubic, the multiplicative decrease factor (Sec. 4.6: 0.7).
    #[schemars(extend("exclusiveMinimum" = 0.0, "exclusiveMaximum" = 1.0))]
    pub beta: f64,
    /// Fast convergence (Sec. 4.7).
    pub fast_convergence: bool,
    /// The Reno-friendly region (Sec. 4.3).
    pub reno_friendly: bool,
}

impl Default for CubicConfig {
    fn default() -> Self {
        CubicConfig {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            reno_friendly: true,
        }
    }
}

impl CongestionSettings for CubicConfig {
    fn check(&mut self, _input: &VariantInput) -> Result<(), ScenarioError> {
        positive("c", self.c)?;
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return Err(crate::error::bad(
                "beta",
                self.beta,
                "must be between 0 and 1 (exclusive)",
            ));
        }
        Ok(())
    }

    fn congestion_control(&self) -> Box<dyn CongestionControl> {
        Box::new(Cubic::new(self.clone()))
    }
}

pub struct Cubic {
    cfg: CubicConfig,
    /// W_max, segments (0: no congestion event yet).
    w_max: f64,
    /// cwnd_prior, segments: cwnd when ssthresh was last set (a congestion
    /// event, or the end of the first slow start).
    cwnd_prior: f64,
    /// The start of the current congestion-avoidance stage.
    epoch: Option<SimTime>,
    /// K, seconds.
    k: f64,
    /// W_est, segments.
    w_est: f64,
    /// The next congestion-avoidance stage follows a timeout (Sec. 4.8).
    after_timeout: bool,
    /// What an undo restores (Sec. 4.9), saved at the last reduction.
    before_reduction: Option<Saved>,
}

/// The variables RFC 9438 Sec. 4.9 saves before a reduction (cwnd and
/// ssthresh are the machinery's `UndoState`).
#[derive(Clone, Copy)]
struct Saved {
    w_max: f64,
    cwnd_prior: f64,
    epoch: Option<SimTime>,
    k: f64,
    w_est: f64,
    after_timeout: bool,
}

impl Cubic {
    pub fn new(cfg: CubicConfig) -> Cubic {
        Cubic {
            cfg,
            w_max: 0.0,
            cwnd_prior: 0.0,
            epoch: None,
            k: 0.0,
            w_est: 0.0,
            after_timeout: false,
            before_reduction: None,
        }
    }

    /// W_cubic(t), segments (Eq. 1).
    pub fn w_cubic(&self, t: f64) -> f64 {
        self.cfg.c * (t - self.k).powi(3) + self.w_max
    }

    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    pub fn k(&self) -> f64 {
        self.k
    }

    pub fn cwnd_prior(&self) -> f64 {
        self.cwnd_prior
    }

    /// alpha_cubic (Sec. 4.3): 3 (1 - beta) / (1 + beta), the AIMD
    /// increase with Reno's average window, until W_est reaches
    /// cwnd_prior; then 1, Reno's own.
    pub fn alpha(&self) -> f64 {
        if self.w_est >= self.cwnd_prior {
            1.0
        } else {
            3.0 * (1.0 - self.cfg.beta) / (1.0 + self.cfg.beta)
        }
    }

    /// A congestion-avoidance stage starts with cwnd = `cwnd` segments
    /// (Sec. 4.2).
    fn start_epoch(&mut self, now: SimTime, cwnd: f64) {
        self.epoch = Some(now);
        if self.w_max == 0.0 || self.after_timeout {
            // No congestion event yet (Sec. 4.10, the first slow start
            // ended without loss) or the first stage after a timeout (Sec.
            // 4.8): W_max = cwnd_epoch, so K = 0.
            self.w_max = cwnd;
            self.after_timeout = false;
            if self.cwnd_prior == 0.0 {
                self.cwnd_prior = cwnd;
            }
        }
        // Eq. 2 with the cube root's sign: when cwnd_epoch is above W_max,
        // K < 0 and W_cubic(0) is still cwnd_epoch.
        self.k = math::cbrt((self.w_max - cwnd) / self.cfg.c);
        // Sec. 4.3: W_est starts at cwnd_epoch.
        self.w_est = cwnd;
    }

    /// A congestion event (Sec. 4.6-4.7): W_max and cwnd_prior from cwnd,
    /// the new ssthresh from the flight size or cwnd (`ssthresh_from`); the next stage starts
    /// afresh.
    fn on_congestion(&mut self, s: &SendState) -> u64 {
        let mss = s.mss() as f64;
        let cwnd = s.cwnd as f64 / mss;
        self.before_reduction = Some(Saved {
            w_max: self.w_max,
            cwnd_prior: self.cwnd_prior,
            epoch: self.epoch,
            k: self.k,
            w_est: self.w_est,
            after_timeout: self.after_timeout,
        });
        self.cwnd_prior = cwnd;
        self.w_max = if self.cfg.fast_convergence && cwnd < self.w_max {
            cwnd * (1.0 + self.cfg.beta) / 2.0
        } else {
            cwnd
        };
        self.epoch = None;
        // Sec. 4.6: ssthresh = flight_size x beta_cubic, at least 2
        // segments (Linux: cwnd x beta; `ssthresh_from`).
        s.reduced_window(self.cfg.beta)
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn on_ack(&mut self, s: &mut SendState, acked: u64, now: SimTime) {
        let mss = s.mss() as f64;
        let mut acked = acked;
        if s.in_slow_start() {
            // The standard slow start (tcp/slow_start.rs); what it leaves
            // goes to congestion avoidance, as in cubictcp_cong_avoid.
            acked = s.slow_start(acked);
            if acked == 0 {
                return;
            }
        }
        let cwnd = s.cwnd as f64 / mss;
        if self.epoch.is_none() {
            self.start_epoch(now, cwnd);
        }
        let t = now.since(self.epoch.unwrap_or(now)).as_secs_f64();
        let rtt = s.rtt().srtt().map_or(0.0, |d| d.as_secs_f64());
        let acked_segs = acked as f64 / mss;
        // Sec. 4.3: Reno's window with the same average rate.
        self.w_est += self.alpha() * acked_segs / cwnd;
        let new = if self.cfg.reno_friendly && self.w_cubic(t) < self.w_est {
            self.w_est
        } else {
            // Sec. 4.4-4.5: aim at W_cubic one RTT ahead, clamped to
            // [cwnd, 1.5 cwnd], approached by (target - cwnd) / cwnd per
            // segment acknowledged.
            let target = self.w_cubic(t + rtt).clamp(cwnd, 1.5 * cwnd);
            cwnd + (target - cwnd) / cwnd * acked_segs
        };
        let new_bytes = (new * mss) as u64;
        s.cwnd = new_bytes.max(s.cwnd);
    }

    fn ssthresh(&mut self, s: &SendState) -> u64 {
        self.on_congestion(s)
    }

    fn on_timeout(&mut self, s: &mut SendState) {
        // Sec. 4.8: ssthresh as on a loss, cwnd = 1 segment; the next
        // congestion-avoidance stage starts with K = 0. A timeout during
        // the loss episode of an earlier one is no new congestion event,
        // but it too restarts slow start: the stage that ran before it
        // ends, so that the one after it is the stage Sec. 4.8 means (and
        // the flag is not left over for a later fast recovery's stage).
        let ssthresh = if s.state() == CongState::Loss {
            s.ssthresh
        } else {
            self.on_congestion(s)
        };
        self.epoch = None;
        self.after_timeout = true;
        s.restart_after_timeout(ssthresh);
    }

    /// Sec. 4.9: a reduction shown spurious is undone, cwnd, ssthresh and
    /// the CUBIC variables restored, while cwnd is still below cwnd_prior.
    fn undo(&mut self, s: &mut SendState) {
        let cwnd = s.cwnd as f64 / s.mss() as f64;
        let Some(saved) = self.before_reduction.take() else {
            return;
        };
        if cwnd >= self.cwnd_prior {
            return;
        }
        let u = s.undo_state();
        (s.cwnd, s.ssthresh) = (u.prior_cwnd, u.prior_ssthresh);
        self.w_max = saved.w_max;
        self.cwnd_prior = saved.cwnd_prior;
        self.epoch = saved.epoch;
        self.k = saved.k;
        self.w_est = saved.w_est;
        self.after_timeout = saved.after_timeout;
    }
}

#[cfg(test)]
mod tests;
