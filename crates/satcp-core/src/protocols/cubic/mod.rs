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
use crate::engine::SimTime;
use crate::error::{positive, ScenarioError};
use crate::tcp::congestion::CongestionControl;
use crate::tcp::send_state::SendState;
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
    tcp: r#"{"variant": "cubic"}"#,
}]);

/// `[tcp.cubic]`, the RFC's constants.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CubicConfig {
    /// C, segments per second cubed (Sec. 5: 0.4).
    pub c: f64,
    /// beta_cubic, the multiplicative decrease factor (Sec. 4.6: 0.7).
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
    /// W_max, segments (0: no loss yet).
    w_max: f64,
    /// The start of the current congestion-avoidance stage and cwnd
    /// (segments) then.
    epoch: Option<(SimTime, f64)>,
    /// K, seconds.
    k: f64,
    /// W_est, segments.
    w_est: f64,
}

impl Cubic {
    pub fn new(cfg: CubicConfig) -> Cubic {
        Cubic {
            cfg,
            w_max: 0.0,
            epoch: None,
            k: 0.0,
            w_est: 0.0,
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

    /// A congestion event with cwnd at `cwnd` segments: W_max and the
    /// reduced window (Sec. 4.6-4.7); the next CA stage starts afresh.
    fn on_congestion(&mut self, cwnd: f64) -> f64 {
        self.w_max = if self.cfg.fast_convergence && cwnd < self.w_max {
            cwnd * (1.0 + self.cfg.beta) / 2.0
        } else {
            cwnd
        };
        self.epoch = None;
        (cwnd * self.cfg.beta).max(2.0)
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn on_ack(&mut self, s: &mut SendState, acked: u64, now: SimTime) {
        let mss = s.mss() as f64;
        if s.in_slow_start() {
            s.cwnd += acked.min(s.mss() as u64);
            return;
        }
        let cwnd = s.cwnd as f64 / mss;
        let start = match self.epoch {
            Some((start, _)) => start,
            None => {
                // Sec. 4.2: K from the window the stage starts with;
                // Sec. 4.3: W_est starts there too.
                self.epoch = Some((now, cwnd));
                self.k = if self.w_max > cwnd {
                    ((self.w_max - cwnd) / self.cfg.c).cbrt()
                } else {
                    0.0
                };
                self.w_est = cwnd;
                now
            }
        };
        let t = now.since(start).as_secs_f64();
        let rtt = s.rtt().srtt().map_or(0.0, |d| d.as_secs_f64());
        let acked_segs = acked as f64 / mss;
        // Sec. 4.3: Reno's window with the same average rate; alpha_cubic
        // = 3 (1 - beta) / (1 + beta) until W_est reaches W_max, then 1.
        let alpha = if self.w_est >= self.w_max {
            1.0
        } else {
            3.0 * (1.0 - self.cfg.beta) / (1.0 + self.cfg.beta)
        };
        self.w_est += alpha * acked_segs / cwnd;
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
        let mss = s.mss() as f64;
        let reduced = self.on_congestion(s.cwnd as f64 / mss);
        (reduced * mss) as u64
    }

    fn on_timeout(&mut self, s: &mut SendState) {
        // Sec. 4.8: a timeout is a congestion event; slow start again.
        let mss = s.mss() as f64;
        let reduced = self.on_congestion(s.cwnd as f64 / mss);
        s.restart_after_timeout((reduced * mss) as u64);
    }

    fn undo(&mut self, s: &mut SendState) {
        let u = s.undo_state();
        let (cwnd, ssthresh) = (u.prior_cwnd, u.prior_ssthresh);
        s.cwnd = s.cwnd.max(cwnd);
        s.ssthresh = s.ssthresh.max(ssthresh);
        self.epoch = None;
    }
}

#[cfg(test)]
mod tests;
