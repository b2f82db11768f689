//! Reordering on a link direction (the `reorder` table): a packet is held
//! for an extra delay, so that later packets overtake it. The draws are
//! part of the memoryless error model's (`net/error_model.rs`), on its
//! stream, after corruption, loss and duplication.

use crate::engine::{Duration, RngStream};
use crate::error::{non_negative, probability, ScenarioError, MAX_SETTING};
use serde::Deserialize;

/// `reorder = { prob, delay, mean_s, sd_s }`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default, expecting = "a table")]
pub struct ReorderConfig {
    /// Probability that a packet is held back.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub prob: f64,
    /// How long: "fixed" (`mean_s`), "uniform" (0 to 2 `mean_s`) or
    /// "normal" (`mean_s`, `sd_s`, truncated to [0, 2 `mean_s`]).
    pub delay: DelayKind,
    /// Mean extra delay of a held-back packet, seconds.
    #[schemars(range(min = 0.0, max = MAX_SETTING))]
    pub mean_s: f64,
    /// Standard deviation of the extra delay (`delay = "normal"`), seconds.
    #[schemars(range(min = 0.0, max = MAX_SETTING))]
    pub sd_s: f64,
}

#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
/// The distribution of a held-back packet's extra delay.
pub enum DelayKind {
    #[default]
    Fixed,
    Uniform,
    Normal,
}

impl ReorderConfig {
    /// Paths in errors are relative to the table (`prob`).
    pub fn validate(&self) -> Result<(), ScenarioError> {
        probability("prob", self.prob)?;
        non_negative("mean_s", self.mean_s)?;
        non_negative("sd_s", self.sd_s)?;
        Ok(())
    }

    /// None when no packet is held back.
    pub fn build(&self) -> Option<Reorder> {
        if self.prob == 0.0 {
            return None;
        }
        let mean = Duration::from_secs_f64(self.mean_s);
        let delay = match self.delay {
            DelayKind::Fixed => DelayDist::Fixed(mean),
            DelayKind::Uniform => DelayDist::Uniform {
                lo: Duration::ZERO,
                // Saturating: a valid mean of 10^12 s is already beyond
                // the nanosecond clock.
                hi: Duration(mean.0.saturating_mul(2)),
            },
            DelayKind::Normal => DelayDist::TruncNormal {
                mean,
                sd: Duration::from_secs_f64(self.sd_s),
            },
        };
        Some(Reorder {
            prob: self.prob,
            delay,
        })
    }
}

/// Which packets are held back, and for how long.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reorder {
    pub prob: f64,
    pub delay: DelayDist,
}

impl Reorder {
    /// The extra delay of one packet (zero: not held back).
    pub fn draw(&self, rng: &mut RngStream) -> Duration {
        if rng.bernoulli(self.prob) {
            self.delay.sample(rng)
        } else {
            Duration::ZERO
        }
    }
}

/// Extra delay drawn for a reordered packet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DelayDist {
    Fixed(Duration),
    Uniform {
        lo: Duration,
        hi: Duration,
    },
    /// Normal, truncated to [0, 2 mean] so the mean is kept.
    TruncNormal {
        mean: Duration,
        sd: Duration,
    },
}

impl DelayDist {
    pub fn sample(&self, rng: &mut RngStream) -> Duration {
        match *self {
            DelayDist::Fixed(d) => d,
            DelayDist::Uniform { lo, hi } => {
                let span = hi.0.saturating_sub(lo.0) as f64;
                Duration(lo.0 + (rng.uniform() * span) as u64)
            }
            DelayDist::TruncNormal { mean, sd } => {
                let m = mean.0 as f64;
                let v = rng.normal(m, sd.0 as f64).clamp(0.0, 2.0 * m);
                Duration(v as u64)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: serde_json::Value) -> Result<ReorderConfig, ScenarioError> {
        let c: ReorderConfig = crate::error::typed(&v)?;
        c.validate()?;
        Ok(c)
    }

    /// The largest valid mean, 10^12 s, is beyond the clock's 584 years:
    /// the uniform delay's upper end saturates (it overflowed).
    #[test]
    fn a_uniform_delay_beyond_the_clock_saturates() {
        let r = parse(json!({"prob": 1.0, "delay": "uniform", "mean_s": 1e12}))
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(
            r.delay,
            DelayDist::Uniform {
                lo: Duration::ZERO,
                hi: Duration(u64::MAX)
            }
        );
        let mut rng = RngStream::new(1, "d");
        for _ in 0..100 {
            r.draw(&mut rng);
        }
    }

    #[test]
    fn truncated_normal_stays_in_range() {
        let d = DelayDist::TruncNormal {
            mean: Duration::from_millis(300),
            sd: Duration::from_millis(200),
        };
        let mut rng = RngStream::new(1, "d");
        for _ in 0..10_000 {
            let x = d.sample(&mut rng);
            assert!(x <= Duration::from_millis(600));
        }
    }

    #[test]
    fn settings_are_checked_and_built() {
        let c = parse(json!({"prob": 0.1, "delay": "uniform", "mean_s": 0.3})).unwrap();
        assert_eq!(
            c.build(),
            Some(Reorder {
                prob: 0.1,
                delay: DelayDist::Uniform {
                    lo: Duration::ZERO,
                    hi: Duration::from_millis(600)
                }
            })
        );
        assert_eq!(parse(json!({"mean_s": 0.3})).unwrap().build(), None);
        let e = parse(json!({"prob": 1.5})).unwrap_err();
        assert_eq!(e.field, "prob");
        assert!(e.message.contains("1.5"), "{e}");
        assert_eq!(parse(json!({"sd_s": -1.0})).unwrap_err().field, "sd_s");
        let e = parse(json!({"delay": "pareto"})).unwrap_err();
        assert_eq!(e.field, "delay");
        assert!(e.message.contains("pareto"), "{e}");
        assert_eq!(parse(json!({"delai": "fixed"})).unwrap_err().field, "delai");
    }
}
