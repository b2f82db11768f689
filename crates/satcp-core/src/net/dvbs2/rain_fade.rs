//! Rain attenuation as a time series: the Maseng-Bakken model (T. Maseng
//! and P. M. Bakken, "A stochastic dynamic model of rain attenuation",
//! IEEE Trans. Commun. 29(5), 1981), the model under ITU-R P.1853's rain
//! attenuation synthesizer.
//!
//! The attenuation in dB is lognormal: A = exp(m + sigma X), where X is a
//! stationary Gaussian process of mean 0, variance 1 and autocorrelation
//! exp(-beta |dt|) (an Ornstein-Uhlenbeck process). Sampled every
//! `step_s`, X is exactly a first-order Markov chain:
//! X[k+1] = rho X[k] + sqrt(1 - rho^2) N(0, 1), rho = exp(-beta step_s),
//! with X[0] drawn from N(0, 1) (the run starts in the stationary state).
//! As P.1853 does, rain falls only a fraction `probability` of the time:
//! the attenuation is offset by exp(m + sigma Q^-1(probability)) and
//! clipped at 0, so that it is 0 exactly when X < Q^-1(probability); with
//! probability 1 there is no offset. Between samples the attenuation
//! holds (a step function).

use crate::engine::math::{exp, ln};
use crate::engine::{RngStream, SimTime};
use crate::error::{positive, range, ScenarioError};
use serde::Deserialize;
use std::collections::VecDeque;

/// `rain = { median_db, sigma, beta_per_s, probability, step_s }`.
#[derive(Clone, Debug, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RainConfig {
    /// Median of the lognormal attenuation, dB (exp(m) of the model).
    #[schemars(range(min = 0.0, max = MAX_ATTENUATION_DB))]
    pub median_db: f64,
    /// Standard deviation of ln(attenuation) (sigma of the model).
    #[schemars(range(min = 0.0, max = MAX_SIGMA))]
    pub sigma: f64,
    /// How fast the process forgets, per second: its autocorrelation is
    /// exp(-beta dt). P.1853 uses 2e-4 (a correlation time of about 80
    /// minutes).
    #[serde(default = "default_beta")]
    #[schemars(range(min = 0.0, max = 1e3))]
    pub beta_per_s: f64,
    /// The fraction of time it rains (P.1853's P_rain); 1: always.
    #[serde(default = "one")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub probability: f64,
    /// Time between samples of the process, seconds.
    #[serde(default = "one")]
    #[schemars(range(min = 1e-3, max = 1e6))]
    pub step_s: f64,
}

pub const MAX_ATTENUATION_DB: f64 = 100.0;
pub const MAX_SIGMA: f64 = 5.0;

fn default_beta() -> f64 {
    2e-4
}
fn one() -> f64 {
    1.0
}

impl RainConfig {
    pub fn validate(&self) -> Result<(), ScenarioError> {
        positive("median_db", self.median_db)?;
        range("median_db", self.median_db, 0.0, MAX_ATTENUATION_DB)?;
        positive("sigma", self.sigma)?;
        range("sigma", self.sigma, 0.0, MAX_SIGMA)?;
        positive("beta_per_s", self.beta_per_s)?;
        range("beta_per_s", self.beta_per_s, 0.0, 1e3)?;
        positive("probability", self.probability)?;
        range("probability", self.probability, 0.0, 1.0)?;
        range("step_s", self.step_s, 1e-3, 1e6)?;
        Ok(())
    }
}

/// The attenuation process, sampled lazily as time advances; it keeps the
/// samples from the earliest time still to be asked for
/// (`forget_before`).
#[derive(Debug)]
pub struct RainFade {
    m: f64,
    sigma: f64,
    rho: f64,
    innovation_sd: f64,
    offset_db: f64,
    step_ns: u64,
    rng: RngStream,
    /// Samples of X from index `first` on.
    x: VecDeque<f64>,
    first: u64,
}

impl RainFade {
    pub fn new(c: &RainConfig, mut rng: RngStream) -> RainFade {
        let rho = exp(-c.beta_per_s * c.step_s);
        let m = ln(c.median_db);
        let offset_db = if c.probability >= 1.0 {
            0.0
        } else {
            exp(m + c.sigma * inverse_q(c.probability))
        };
        let x0 = rng.normal(0.0, 1.0);
        RainFade {
            m,
            sigma: c.sigma,
            rho,
            innovation_sd: (1.0 - rho * rho).sqrt(),
            offset_db,
            step_ns: SimTime::from_secs_f64(c.step_s).0.max(1),
            rng,
            x: VecDeque::from([x0]),
            first: 0,
        }
    }

    /// X at sample `k` (not before the first kept).
    fn x_at(&mut self, k: u64) -> f64 {
        debug_assert!(k >= self.first, "a sample already forgotten");
        while self.first + (self.x.len() as u64) <= k {
            let last = *self.x.back().expect("a sample");
            let next = self.rho * last + self.innovation_sd * self.rng.normal(0.0, 1.0);
            self.x.push_back(next);
        }
        self.x[(k - self.first) as usize]
    }

    /// The attenuation at `t`, dB.
    pub fn attenuation_db(&mut self, t: SimTime) -> f64 {
        let x = self.x_at(t.0 / self.step_ns);
        (exp(self.m + self.sigma * x) - self.offset_db).max(0.0)
    }

    /// No time before `t` will be asked for again.
    pub fn forget_before(&mut self, t: SimTime) {
        let k = t.0 / self.step_ns;
        while self.first < k && self.x.len() > 1 {
            self.x.pop_front();
            self.first += 1;
        }
    }

    /// Samples kept (for the tests of memory).
    #[cfg(test)]
    fn kept(&self) -> usize {
        self.x.len()
    }
}

/// Q^-1(p): the x for which a standard normal exceeds x with probability
/// p, 0 < p < 1. P. J. Acklam's rational approximation of the normal
/// quantile (relative error below 1.2e-9), Q^-1(p) = -Phi^-1(p).
pub fn inverse_q(p: f64) -> f64 {
    -normal_quantile(p)
}

fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    const P_LOW: f64 = 0.02425;
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < P_LOW {
        tail((-2.0 * ln(p)).sqrt())
    } else if p <= 1.0 - P_LOW {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    } else {
        -tail((-2.0 * ln(1.0 - p)).sqrt())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(median_db: f64, sigma: f64, beta_per_s: f64, probability: f64) -> RainConfig {
        RainConfig {
            median_db,
            sigma,
            beta_per_s,
            probability,
            step_s: 1.0,
        }
    }

    /// Over a long seeded run (1e6 samples, 1e4 correlation times), the
    /// Gaussian process has mean 0, variance 1 and lag-one correlation
    /// exp(-beta step), and the attenuation the lognormal's mean
    /// exp(m + sigma^2 / 2) and standard deviation
    /// mean sqrt(exp(sigma^2) - 1).
    #[test]
    fn a_long_run_has_the_models_statistics() {
        let (median, sigma, beta) = (2.0_f64, 0.5_f64, 0.01);
        let mut fade = RainFade::new(
            &config(median, sigma, beta, 1.0),
            RngStream::new(11, "rain"),
        );
        let n = 1_000_000u64;
        let (mut sx, mut sxx, mut sxy, mut sa, mut saa) = (0.0, 0.0, 0.0, 0.0, 0.0);
        let mut prev = fade.x_at(0);
        for k in 0..n {
            let t = SimTime(k * 1_000_000_000);
            let a = fade.attenuation_db(t);
            let x = fade.x_at(k);
            fade.forget_before(t);
            sx += x;
            sxx += x * x;
            if k > 0 {
                sxy += prev * x;
            }
            prev = x;
            sa += a;
            saa += a * a;
        }
        let nf = n as f64;
        let (mx, vx) = (sx / nf, sxx / nf - (sx / nf).powi(2));
        let lag1 = sxy / (nf - 1.0) / vx;
        assert!(mx.abs() < 0.05, "mean of X {mx}");
        assert!((vx - 1.0).abs() < 0.05, "variance of X {vx}");
        assert!((lag1 - exp(-beta)).abs() < 0.005, "lag-one {lag1}");
        let mean = exp(ln(median) + sigma * sigma / 2.0);
        let sd = mean * (exp(sigma * sigma) - 1.0).sqrt();
        let (ma, sda) = (sa / nf, (saa / nf - (sa / nf).powi(2)).sqrt());
        assert!((ma / mean - 1.0).abs() < 0.03, "mean {ma} vs {mean}");
        assert!((sda / sd - 1.0).abs() < 0.05, "sd {sda} vs {sd}");
        assert!(fade.kept() <= 2, "the run keeps no history");
    }

    /// With rain a fraction p of the time, the attenuation is 0 the rest.
    #[test]
    fn it_rains_the_given_fraction_of_the_time() {
        let mut fade = RainFade::new(&config(1.0, 1.0, 0.05, 0.1), RngStream::new(5, "rain"));
        let n = 400_000u64;
        let raining = (0..n)
            .filter(|&k| {
                let t = SimTime(k * 1_000_000_000);
                let a = fade.attenuation_db(t);
                fade.forget_before(t);
                a > 0.0
            })
            .count();
        let share = raining as f64 / n as f64;
        assert!((share - 0.1).abs() < 0.01, "raining {share}");
    }

    #[test]
    fn the_same_seed_gives_the_same_series() {
        let c = config(1.0, 1.0, 2e-4, 0.5);
        let series = |seed| {
            let mut f = RainFade::new(&c, RngStream::new(seed, "rain"));
            (0..100)
                .map(|k| f.attenuation_db(SimTime(k * 1_000_000_000)).to_bits())
                .collect::<Vec<_>>()
        };
        assert_eq!(series(3), series(3));
        assert_ne!(series(3), series(4));
    }

    #[test]
    fn the_normal_quantile_at_known_points() {
        for (p, x) in [
            (0.5, 0.0),
            (0.975, 1.959_964),
            (0.01, -2.326_348),
            (0.999, 3.090_232),
        ] {
            assert!((normal_quantile(p) - x).abs() < 1e-5, "{p}");
        }
        assert!((inverse_q(0.1) - 1.281_552).abs() < 1e-5);
    }
}
