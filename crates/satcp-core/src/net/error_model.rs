//! What a link direction does to packets besides delaying them: corruption
//! (bit errors turned into packet errors), fixed random loss, duplication and
//! extra delay that lets later packets overtake (reordering).
//!
//! Bit errors follow thesis Sec. 7.1: uncorrelated (AWGN) errors, so a
//! packet of N bits survives with probability (1-BER)^N and is discarded by
//! the receiver otherwise (PER = 1-(1-BER)^N). N counts the whole IP datagram.

use crate::engine::{Duration, RngStream};

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

/// Packet error rate of a packet of `bytes` bytes under uncorrelated bit
/// errors: 1-(1-BER)^(8 bytes).
pub fn packet_error_rate(ber: f64, bytes: u32) -> f64 {
    if ber <= 0.0 {
        return 0.0;
    }
    if ber >= 1.0 {
        return 1.0;
    }
    let bits = 8.0 * bytes as f64;
    // ln1p/exp_m1 keep precision for BER down to 1e-13.
    -(bits * (-ber).ln_1p()).exp_m1()
}

#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct ErrorModel {
    /// Bit error rate in [0, 1].
    pub ber: f64,
    /// Probability that a packet is lost regardless of its size.
    pub loss_prob: f64,
    /// Probability that a packet is delivered twice.
    pub duplicate_prob: f64,
    /// Probability that a packet gets extra delay, and how much.
    pub reorder_prob: f64,
    pub reorder_delay: Option<DelayDist>,
}

/// The fate of one packet on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    Corrupted,
    Lost,
    Delivered {
        extra_delay: Duration,
        duplicate: bool,
    },
}

impl Fate {
    /// Delivered on time, once: what a perfect link does.
    pub const DELIVERED: Fate = Fate::Delivered {
        extra_delay: Duration::ZERO,
        duplicate: false,
    };
}

impl ErrorModel {
    pub fn is_ideal(&self) -> bool {
        self.ber == 0.0
            && self.loss_prob == 0.0
            && self.duplicate_prob == 0.0
            && self.reorder_prob == 0.0
    }

    /// Packet error rate for a packet of `bytes` bytes: 1-(1-BER)^(8 bytes).
    pub fn per(&self, bytes: u32) -> f64 {
        packet_error_rate(self.ber, bytes)
    }

    /// Draws the fate of one packet. Each mechanism draws only when enabled,
    /// so turning one on does not shift another's random sequence (an
    /// ideal model draws nothing and delivers). A perfect link holds no
    /// model at all (`Link::errors`) and is not asked.
    pub fn fate(&self, bytes: u32, rng: &mut RngStream) -> Fate {
        if rng.bernoulli(self.per(bytes)) {
            return Fate::Corrupted;
        }
        if rng.bernoulli(self.loss_prob) {
            return Fate::Lost;
        }
        let duplicate = rng.bernoulli(self.duplicate_prob);
        let extra_delay = match self.reorder_delay {
            Some(d) if rng.bernoulli(self.reorder_prob) => d.sample(rng),
            _ => Duration::ZERO,
        };
        Fate::Delivered {
            extra_delay,
            duplicate,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_matches_thesis_table_7_1() {
        // Table 7.1: 1,500-byte packets; BER 1e-9 .. 1e-6 give about 1.2 x 10^k.
        let m = |ber| ErrorModel {
            ber,
            ..Default::default()
        };
        for (ber, per) in [
            (1e-9, 1.2e-5),
            (1e-8, 1.2e-4),
            (1e-7, 1.2e-3),
            (1e-6, 1.2e-2),
        ] {
            let got = m(ber).per(1500);
            assert!((got - per).abs() / per < 0.01, "ber {ber}: {got}");
        }
        // 1e-5 gives 0.113 exactly (the table rounds it to 1.2e-1).
        assert!((m(1e-5).per(1500) - 0.1131).abs() < 1e-3);
        assert_eq!(m(0.0).per(1500), 0.0);
        assert_eq!(m(1.0).per(1500), 1.0);
    }

    #[test]
    fn loss_frequency_matches_probability() {
        let m = ErrorModel {
            loss_prob: 0.1,
            ..Default::default()
        };
        let mut rng = RngStream::new(5, "x");
        let n = 50_000;
        let lost = (0..n)
            .filter(|_| m.fate(1500, &mut rng) == Fate::Lost)
            .count();
        let f = lost as f64 / n as f64;
        assert!((f - 0.1).abs() < 0.006, "{f}");
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
}
