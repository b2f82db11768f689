//! How late the relay hands packets to their host, against the time the
//! link models gave them: the relay's own error on every delay it
//! emulates. A histogram of 1 µs bins up to 100 ms (the rest in the last
//! bin, with the largest value kept apart), so that percentiles cost no
//! allocation per packet.

use satcp_core::engine::Duration;

const BIN_NS: u64 = 1_000;
const BINS: usize = 100_000;

pub struct Lateness {
    bins: Vec<u64>,
    count: u64,
    max: Duration,
}

impl Default for Lateness {
    fn default() -> Self {
        Lateness {
            bins: vec![0; BINS],
            count: 0,
            max: Duration::ZERO,
        }
    }
}

impl Lateness {
    pub fn record(&mut self, late: Duration) {
        let bin = ((late.0 / BIN_NS) as usize).min(BINS - 1);
        self.bins[bin] += 1;
        self.count += 1;
        self.max = self.max.max(late);
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn max(&self) -> Duration {
        self.max
    }

    /// The `q` quantile (0 to 1), to the upper edge of its 1 µs bin (the
    /// largest value if it falls in the last bin); zero when empty.
    pub fn quantile(&self, q: f64) -> Duration {
        if self.count == 0 {
            return Duration::ZERO;
        }
        let rank = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
        let mut seen = 0;
        for (i, n) in self.bins.iter().enumerate() {
            seen += n;
            if seen >= rank {
                if i == BINS - 1 {
                    return self.max;
                }
                return Duration((i as u64 + 1) * BIN_NS).min(self.max);
            }
        }
        self.max
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_are_bin_edges() {
        let mut l = Lateness::default();
        for us in 0..100 {
            l.record(Duration(us * 1_000 + 500));
        }
        assert_eq!(l.count(), 100);
        assert_eq!(l.quantile(0.5), Duration(50_000));
        assert_eq!(l.quantile(0.99), Duration(99_000));
        assert_eq!(l.max(), Duration(99_500));
    }

    #[test]
    fn very_late_packets_report_the_largest() {
        let mut l = Lateness::default();
        l.record(Duration(5));
        l.record(Duration::from_secs(2));
        assert_eq!(l.quantile(1.0), Duration::from_secs(2));
        assert_eq!(
            l.quantile(0.5),
            Duration(1_000),
            "the upper edge of the first bin"
        );
        assert_eq!(Lateness::default().quantile(0.5), Duration::ZERO);
    }
}
