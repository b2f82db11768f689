//! Simulated time: integer nanoseconds, so that event order never depends on
//! floating-point rounding and runs are bit-identical on every machine.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// A point in simulated time, in nanoseconds since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

/// A span of simulated time, in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Duration(pub u64);

pub const NANOS_PER_SEC: u64 = 1_000_000_000;

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const NEVER: SimTime = SimTime(u64::MAX);

    pub fn from_secs_f64(s: f64) -> SimTime {
        SimTime(Duration::from_secs_f64(s).0)
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NANOS_PER_SEC as f64
    }
    pub fn since(self, earlier: SimTime) -> Duration {
        Duration(self.0.saturating_sub(earlier.0))
    }
}

/// `x.round() as u64` for a positive `x`, to the same value, without a
/// call: `f64::round` is a libm call on x86-64's baseline (no SSE4.1
/// `roundsd`), 2.6 % of `satcp compare`'s runs, which pace every segment.
/// Below 2^63 the integer part converts exactly and `x - i` is the exact
/// fraction, so rounding half away from zero is `i + (fraction >= 0.5)`.
#[inline]
fn round_to_u64(x: f64) -> u64 {
    if x >= (1u64 << 63) as f64 {
        return x.round() as u64; // 2^63 and above (saturating as before)
    }
    let i = x as u64;
    i + (x - i as f64 >= 0.5) as u64
}

impl Duration {
    pub const ZERO: Duration = Duration(0);

    /// Rounds to the nearest nanosecond; negative or NaN inputs become zero.
    pub fn from_secs_f64(s: f64) -> Duration {
        if s.is_nan() || s <= 0.0 {
            return Duration(0);
        }
        Duration(round_to_u64(s * NANOS_PER_SEC as f64))
    }
    pub fn from_millis(ms: u64) -> Duration {
        Duration(ms * 1_000_000)
    }
    pub fn from_secs(s: u64) -> Duration {
        Duration(s * NANOS_PER_SEC)
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NANOS_PER_SEC as f64
    }
    /// Time to clock `bytes` onto a wire of `rate_bps`, rounded up so that a
    /// link never runs faster than its nominal rate.
    pub fn serialization(bytes: u32, rate_bps: u64) -> Duration {
        // bit-nanoseconds fit in 64 bits up to 2.3 GB per packet: then the
        // same integer division in 64 bits (a 128-bit one is a library
        // call, several times dearer), else in 128.
        match (bytes as u64 * 8).checked_mul(NANOS_PER_SEC) {
            Some(bits) => Duration(bits.div_ceil(rate_bps)),
            None => {
                let bits = bytes as u128 * 8 * NANOS_PER_SEC as u128;
                Duration(bits.div_ceil(rate_bps as u128) as u64)
            }
        }
    }
}

impl Add<Duration> for SimTime {
    type Output = SimTime;
    fn add(self, d: Duration) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
}

impl AddAssign<Duration> for SimTime {
    fn add_assign(&mut self, d: Duration) {
        self.0 = self.0.saturating_add(d.0);
    }
}

impl Sub for SimTime {
    type Output = Duration;
    fn sub(self, rhs: SimTime) -> Duration {
        self.since(rhs)
    }
}

impl Add for Duration {
    type Output = Duration;
    fn add(self, d: Duration) -> Duration {
        Duration(self.0.saturating_add(d.0))
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// `round_to_u64` is `round() as u64`: any positive value, values
        /// near halves, integers and the largest ones.
        #[test]
        fn rounds_like_f64_round(
            x in 0.0f64..1e20,
            i in 0u64..1u64 << 53,
            bits in any::<u64>(),
        ) {
            let half = i as f64 + 0.5;
            let big = f64::from_bits(bits & !(1 << 63)); // positive, any exponent
            for v in [
                x, half, i as f64, half.next_up(), half.next_down(),
                0.499_999_999_999_999_94, big,
            ] {
                if v.is_finite() {
                    prop_assert_eq!(round_to_u64(v), v.round() as u64, "{}", v);
                }
            }
        }
    }

    #[test]
    fn serialization_rounds_up() {
        // 1500 bytes at 2,048 kb/s: 5.859375 ms exactly
        assert_eq!(
            Duration::serialization(1500, 2_048_000),
            Duration(5_859_375)
        );
        // 1 byte at 3 b/s: 2.666.. s, rounded up
        assert_eq!(Duration::serialization(1, 3), Duration(2_666_666_667));
        // Beyond 64 bits of bit-nanoseconds (the 128-bit path), and at
        // its edge, the same as the exact 128-bit quotient.
        for (bytes, rate) in [
            (u32::MAX, 1_000_000_007),
            (2_305_843_009, 3),
            (2_305_843_008, 7),
        ] {
            let exact = (bytes as u128 * 8_000_000_000).div_ceil(rate as u128) as u64;
            assert_eq!(Duration::serialization(bytes, rate), Duration(exact));
        }
    }

    #[test]
    fn secs_round_trip() {
        assert_eq!(Duration::from_secs_f64(0.125), Duration(125_000_000));
        assert_eq!(Duration::from_secs_f64(-1.0), Duration(0));
        assert_eq!(SimTime::from_secs_f64(1.5).as_secs_f64(), 1.5);
    }
}
