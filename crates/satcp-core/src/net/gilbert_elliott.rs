//! Burst errors: the two-state Gilbert-Elliott channel (Gilbert 1960,
//! "Capacity of a burst-noise channel", Bell Syst. Tech. J. 39; Elliott
//! 1963, "Estimates of error rates for codes on burst-noise channels",
//! Bell Syst. Tech. J. 42). A hidden Markov chain with a good state G and a
//! bad state B moves once per packet: G -> B with probability `p`, B -> G
//! with probability `r`. In each state a packet is corrupted with the
//! state's PER (from its BER and the packet's size, as the memoryless model)
//! and otherwise lost with the state's loss probability. Gilbert's channel
//! is the special case loss_good = 0; Elliott's adds errors in the good state.
//!
//! Stationary state probabilities pi_B = p / (p + r), pi_G = r / (p + r); a
//! stay in B lasts 1/r packets on average (geometric), so with loss_bad = 1
//! and loss_good = 0 the mean loss burst is 1/r packets and the long-run
//! loss rate is pi_B.
//!
//! The chain draws from its own stream (`burst/<link>/<dir>`), so turning it
//! on leaves the memoryless error model's draws (`link/<link>/<dir>`) and
//! every other stream as they were.

use super::error_model::{packet_error_rate, Fate};
use crate::engine::RngStream;
use crate::error::{probability, ScenarioError};
use serde::Deserialize;

/// `errors.gilbert_elliott = { p, r, loss_good, loss_bad, ber_good,
/// ber_bad }`: the burst-error channel of one link direction. `p` and `r`
/// must be given; the rest defaults to Gilbert's channel, every packet
/// lost in the bad state and none in the good one.
#[derive(Clone, Copy, Debug, PartialEq, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, expecting = "a table")]
pub struct GilbertElliottConfig {
    /// Per-packet probability of G -> B.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub p: f64,
    /// Per-packet probability of B -> G.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub r: f64,
    /// Probability that a packet is lost in the good state.
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub loss_good: f64,
    /// Probability that a packet is lost in the bad state.
    #[serde(default = "all_lost")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub loss_bad: f64,
    /// Bit error rate in the good state.
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub ber_good: f64,
    /// Bit error rate in the bad state.
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub ber_bad: f64,
}

fn all_lost() -> f64 {
    1.0
}

impl GilbertElliottConfig {
    /// Every setting is a probability (paths relative to the table).
    pub fn validate(&self) -> Result<(), ScenarioError> {
        for (name, v) in [
            ("p", self.p),
            ("r", self.r),
            ("loss_good", self.loss_good),
            ("loss_bad", self.loss_bad),
            ("ber_good", self.ber_good),
            ("ber_bad", self.ber_bad),
        ] {
            probability(name, v)?;
        }
        Ok(())
    }

    /// Stationary probability of the bad state.
    pub fn pi_bad(&self) -> f64 {
        if self.p + self.r == 0.0 {
            0.0 // never leaves the good state it starts in
        } else {
            self.p / (self.p + self.r)
        }
    }
}

pub struct GilbertElliott {
    pub config: GilbertElliottConfig,
    bad: bool,
    rng: RngStream,
}

impl GilbertElliott {
    /// The chain starts in the good state.
    pub fn new(config: GilbertElliottConfig, rng: RngStream) -> GilbertElliott {
        GilbertElliott {
            config,
            bad: false,
            rng,
        }
    }

    pub fn in_bad_state(&self) -> bool {
        self.bad
    }

    /// The fate of one packet of `bytes` bytes in the current state (None:
    /// it passes), then one step of the chain. Both draws are made for
    /// every packet (when their probability is not zero), so the chain's
    /// path does not depend on the packets' sizes.
    pub fn next(&mut self, bytes: u32) -> Option<Fate> {
        let c = &self.config;
        let (ber, loss) = if self.bad {
            (c.ber_bad, c.loss_bad)
        } else {
            (c.ber_good, c.loss_good)
        };
        let fate = if self.rng.bernoulli(packet_error_rate(ber, bytes)) {
            Some(Fate::Corrupted)
        } else if self.rng.bernoulli(loss) {
            Some(Fate::Lost)
        } else {
            None
        };
        let leave = if self.bad { c.r } else { c.p };
        if self.rng.bernoulli(leave) {
            self.bad = !self.bad;
        }
        fate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(c: GilbertElliottConfig, seed: u64) -> GilbertElliott {
        GilbertElliott::new(c, RngStream::new(seed, "burst/test"))
    }

    #[test]
    fn settings_default_to_gilberts_channel_and_are_probabilities() {
        let c: GilbertElliottConfig =
            crate::error::typed(&serde_json::json!({"p": 0.01, "r": 0.2})).unwrap();
        assert_eq!(
            (c.loss_good, c.loss_bad, c.ber_good, c.ber_bad),
            (0.0, 1.0, 0.0, 0.0)
        );
        c.validate().unwrap();
        let e = GilbertElliottConfig { ber_bad: 1.5, ..c }
            .validate()
            .unwrap_err();
        assert_eq!(e.field, "ber_bad");
        let missing: Result<GilbertElliottConfig, _> =
            crate::error::typed(&serde_json::json!({"p": 0.01}));
        assert!(missing.unwrap_err().message.contains("`r`"));
    }

    #[test]
    fn starts_good_and_never_loses_with_zero_probabilities() {
        let mut g = chain(
            GilbertElliottConfig {
                loss_bad: 1.0,
                ..Default::default()
            },
            1,
        );
        for _ in 0..1000 {
            assert_eq!(g.next(1500), None);
            assert!(!g.in_bad_state());
        }
    }

    #[test]
    fn always_bad_loses_everything() {
        let mut g = chain(
            GilbertElliottConfig {
                p: 1.0,
                r: 0.0,
                loss_bad: 1.0,
                ..Default::default()
            },
            1,
        );
        assert_eq!(g.next(1500), None, "the first packet sees the good state");
        for _ in 0..100 {
            assert_eq!(g.next(1500), Some(Fate::Lost));
        }
    }

    #[test]
    fn ber_in_a_state_corrupts_by_packet_size() {
        let c = GilbertElliottConfig {
            p: 1.0,
            r: 0.0,
            ber_bad: 1.0,
            ..Default::default()
        };
        let mut g = chain(c, 3);
        g.next(40);
        assert_eq!(g.next(40), Some(Fate::Corrupted));
    }

    /// Long-run loss rate = pi_B h_B + pi_G h_G and mean burst length 1/r:
    /// the statistics that define the model, over 2 million packets.
    #[test]
    fn long_run_loss_rate_and_mean_burst_length() {
        for (c, seed) in [
            (
                GilbertElliottConfig {
                    p: 0.01,
                    r: 0.2,
                    loss_bad: 1.0,
                    ..Default::default()
                },
                7,
            ),
            (
                GilbertElliottConfig {
                    p: 0.002,
                    r: 0.05,
                    loss_good: 0.001,
                    loss_bad: 0.5,
                    ..Default::default()
                },
                8,
            ),
        ] {
            let mut g = chain(c, seed);
            let n = 2_000_000;
            let (mut lost, mut bad_runs, mut bad_packets) = (0u64, 0u64, 0u64);
            let (mut loss_runs, mut was_bad, mut was_lost) = (0u64, false, false);
            for _ in 0..n {
                // The state the packet sees is the state before the step.
                let bad = g.in_bad_state();
                if bad {
                    bad_packets += 1;
                    if !was_bad {
                        bad_runs += 1;
                    }
                }
                was_bad = bad;
                let is_lost = g.next(1500).is_some();
                if is_lost {
                    lost += 1;
                    if !was_lost {
                        loss_runs += 1;
                    }
                }
                was_lost = is_lost;
            }
            let pi_b = c.pi_bad();
            let expect = pi_b * c.loss_bad + (1.0 - pi_b) * c.loss_good;
            let rate = lost as f64 / n as f64;
            assert!(
                (rate - expect).abs() / expect < 0.05,
                "loss rate {rate} vs pi_B h_B + pi_G h_G = {expect}"
            );
            let burst = bad_packets as f64 / bad_runs as f64;
            assert!(
                (burst - 1.0 / c.r).abs() * c.r < 0.05,
                "mean stay in B {burst} vs 1/r = {}",
                1.0 / c.r
            );
            if c.loss_good == 0.0 && c.loss_bad == 1.0 {
                // Gilbert's special case: loss bursts are the bad stays.
                assert!((rate - pi_b).abs() / pi_b < 0.05);
                let loss_burst = lost as f64 / loss_runs as f64;
                assert!(
                    (loss_burst - 1.0 / c.r).abs() * c.r < 0.05,
                    "mean loss burst {loss_burst} vs 1/r"
                );
            }
        }
    }

    #[test]
    fn same_seed_same_pattern() {
        let c = GilbertElliottConfig {
            p: 0.05,
            r: 0.3,
            loss_bad: 0.8,
            ..Default::default()
        };
        let a: Vec<_> = {
            let mut g = chain(c, 11);
            (0..1000).map(|_| g.next(1500)).collect()
        };
        let mut g = chain(c, 11);
        let b: Vec<_> = (0..1000).map(|_| g.next(1500)).collect();
        assert_eq!(a, b);
    }
}
