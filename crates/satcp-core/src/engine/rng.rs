//! Seeded random streams. Every independent source of randomness (a link
//! direction's error model, an application's think times, ...) draws from its
//! own stream, derived from the scenario seed and a stable name, so adding a
//! flow never changes another link's error pattern.
//!
//! The generator is xoshiro256++ seeded through SplitMix64: small, fast and
//! specified exactly, so results do not depend on a crate's version.

use super::math;

#[derive(Clone, Debug)]
pub struct RngStream {
    s: [u64; 4],
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// FNV-1a: a stable hash of a stream name (std's hasher is not stable across
/// Rust versions).
fn fnv1a(name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

impl RngStream {
    /// The stream called `name` of the run seeded with `seed`.
    pub fn new(seed: u64, name: &str) -> RngStream {
        let mut st = seed ^ fnv1a(name).rotate_left(17);
        let mut s = [0u64; 4];
        for x in &mut s {
            *x = splitmix64(&mut st);
        }
        if s == [0; 4] {
            s[0] = 1;
        }
        RngStream { s }
    }

    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1) with 53 bits of precision.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p`; draws nothing when `p` is 0 so that an
    /// idle error model does not consume its stream.
    pub fn bernoulli(&mut self, p: f64) -> bool {
        if p <= 0.0 {
            return false;
        }
        self.uniform() < p
    }

    /// Exponential with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * math::ln(1.0 - self.uniform())
    }

    /// Standard normal by Box-Muller (one value per call, deterministic).
    pub fn normal(&mut self, mean: f64, sd: f64) -> f64 {
        let u1 = 1.0 - self.uniform();
        let u2 = self.uniform();
        mean + sd * (-2.0 * math::ln(u1)).sqrt() * math::cos(2.0 * std::f64::consts::PI * u2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_independent() {
        let mut a = RngStream::new(7, "link/0");
        let mut b = RngStream::new(7, "link/0");
        let mut c = RngStream::new(7, "link/1");
        let xa: Vec<u64> = (0..5).map(|_| a.next_u64()).collect();
        let xb: Vec<u64> = (0..5).map(|_| b.next_u64()).collect();
        let xc: Vec<u64> = (0..5).map(|_| c.next_u64()).collect();
        assert_eq!(xa, xb);
        assert_ne!(xa, xc);
    }

    #[test]
    fn uniform_mean_is_half() {
        let mut r = RngStream::new(1, "t");
        let n = 100_000;
        let m: f64 = (0..n).map(|_| r.uniform()).sum::<f64>() / n as f64;
        assert!((m - 0.5).abs() < 0.005, "mean {m}");
    }

    #[test]
    fn exponential_mean() {
        let mut r = RngStream::new(3, "e");
        let n = 100_000;
        let m: f64 = (0..n).map(|_| r.exponential(5.0)).sum::<f64>() / n as f64;
        assert!((m - 5.0).abs() < 0.1, "mean {m}");
    }
}
