//! The transcendental functions the models use, correctly rounded, so that a
//! scenario and seed give the same bits on every machine.
//!
//! `f64::exp`, `ln`, `powf`, `cos` and the rest call the platform's math
//! library, and that is not one function: glibc on x86-64 picks, when the
//! program starts, an FMA build of `exp`, `log`, `pow`, `sin` and `cos` on
//! processors that have FMA and AVX2, and the plain build elsewhere. Each is
//! accurate to about half a unit in the last place, and they differ in the
//! last bit for about one argument in a thousand (`pow` on RED's decay
//! factors: 9,134 of 10 million; `exp` 6,992; `log` 1,091); musl, Apple's
//! and Microsoft's libraries differ again. A last bit moves a RED average,
//! a drawn think time or a CUBIC epoch, and a run can take another path.
//!
//! A correctly rounded function has exactly one answer, the real result
//! rounded to the nearest double, whatever the code, the compiler or the
//! processor. These are the `pxfm` crate's (pure Rust ports of the CORE-MATH
//! and LLVM libc correctly rounded functions), pinned to one version so
//! that an upgrade is a deliberate change; `known_bits` below and the
//! corpus test pin their results. Where they and glibc differ, they are
//! the correctly rounded ones (checked against mpmath at 300 bits for 200
//! such arguments). `clippy.toml` refuses the `f64` methods in the crate.
//!
//! `sqrt`, `floor`, `round`, `powi` and the arithmetic are exact or fixed
//! by IEEE 754 and Rust (no contraction into FMA), so they stay as they are.
//!
//! `pxfm` takes FMA paths where the build targets FMA (aarch64, or x86-64
//! with `-C target-cpu=native`); the corpus digest below is the same in
//! such a build as in the baseline x86-64 one.
//!
//! Each function is kept out of line: the event loop calls them seldom (a
//! RED decay factor not seen before, an error rate for a new packet size,
//! a draw), so a call costs little beside their bodies, which stay out of
//! the loop's code.

/// e raised to `x`.
#[inline(never)]
pub fn exp(x: f64) -> f64 {
    pxfm::f_exp(x)
}

/// e raised to `x`, minus 1 (accurate near 0).
#[inline(never)]
pub fn exp_m1(x: f64) -> f64 {
    pxfm::f_expm1(x)
}

/// The natural logarithm of `x`.
#[inline(never)]
pub fn ln(x: f64) -> f64 {
    pxfm::f_log(x)
}

/// The natural logarithm of `1 + x` (accurate near 0).
#[inline(never)]
pub fn ln_1p(x: f64) -> f64 {
    pxfm::f_log1p(x)
}

/// `x` raised to the real power `y`.
#[inline(never)]
pub fn powf(x: f64, y: f64) -> f64 {
    pxfm::f_pow(x, y)
}

/// The cube root of `x`.
#[inline(never)]
pub fn cbrt(x: f64) -> f64 {
    pxfm::f_cbrt(x)
}

/// The cosine of `x` (radians).
#[inline(never)]
pub fn cos(x: f64) -> f64 {
    pxfm::f_cos(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Arguments over the ranges the models use: RED's (1 - w)^(idle /
    /// packet time), exponential and normal draws, packet error rates,
    /// CUBIC's K, Hybla's 2^rho, the rain fade's log-normal.
    fn corpus() -> impl Iterator<Item = [f64; 7]> {
        let mut r = crate::engine::RngStream::new(1, "math corpus");
        (0..200_000).map(move |_| {
            let (u, v) = (r.uniform(), r.uniform());
            [
                powf(1.0 - 0.002 * u, 200.0 * v),
                exp(60.0 * u - 30.0),
                ln(1.0 - u),
                exp_m1(-(12_000.0 * u) * 1e-4 * v),
                ln_1p(-1e-3 * u),
                cbrt(1e4 * (u - 0.5)),
                cos(2.0 * std::f64::consts::PI * v),
            ]
        })
    }

    /// FNV-1a over every result's bits.
    fn corpus_digest() -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for row in corpus() {
            for x in row {
                for b in x.to_bits().to_le_bytes() {
                    h ^= b as u64;
                    h = h.wrapping_mul(0x0000_0100_0000_01b3);
                }
            }
        }
        h
    }

    /// The digest of 1.4 million results. It is the same on every machine
    /// and build; the platform's library (`f64::powf` and the rest) gives
    /// another digest with glibc's FMA builds hidden (the test below).
    const CORPUS_DIGEST: u64 = 0x9e9a_65e9_56ed_1732;

    #[test]
    fn corpus_bits_are_pinned() {
        assert_eq!(corpus_digest(), CORPUS_DIGEST, "{:#018x}", corpus_digest());
    }

    /// The same digest with the processor's FMA and AVX2 hidden from glibc
    /// (its tunables, read at start-up: this test runs the test above in a
    /// child process). With `f64::powf`, `exp`, `ln`, `exp_m1` or `cos` in
    /// `corpus` this fails on an FMA machine (checked when it was written).
    #[test]
    #[cfg(all(target_os = "linux", target_env = "gnu", target_arch = "x86_64"))]
    fn corpus_bits_do_not_depend_on_the_processors_fma() {
        if std::env::var_os("GLIBC_TUNABLES").is_some() {
            return; // the child, or a run that set its own tunables
        }
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "engine::math::tests::corpus_bits_are_pinned",
                "--test-threads=1",
            ])
            .env("GLIBC_TUNABLES", "glibc.cpu.hwcaps=-AVX2,-FMA")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.contains("1 passed"), "{text}");
    }

    #[test]
    fn known_bits() {
        // Arguments where glibc's FMA build rounds the other way; the
        // values are the correctly rounded ones (mpmath, 300 bits).
        let at = |bits: u64| f64::from_bits(bits);
        let cases = [
            (
                powf(at(0x3fef_f337_8782_000d), at(0x4048_fc16_947e_ac1c)),
                0x3fed_990b_1eb3_3de6,
            ),
            (exp(at(0xc02b_b915_75fb_8f47)), 0x3eb0_05f3_60ec_f297),
            (ln(at(0x3fed_8088_70d7_a95e)), 0xbfb4_ce71_6082_fe7e),
            (exp_m1(at(0xbfef_f564_abf7_0308)), 0xbfe4_366d_5572_e2db),
            (ln_1p(at(0xbe16_82f0_40a1_f4b2)), 0xbe16_82f0_40e1_4d3b),
            (cos(at(0x4005_18da_a629_6787)), 0xbfec_0394_b459_819d),
        ];
        for (i, (got, want)) in cases.into_iter().enumerate() {
            assert_eq!(got.to_bits(), want, "case {i}");
        }
        assert_eq!(exp(1.0), std::f64::consts::E);
        assert_eq!(powf(2.0, 10.0), 1024.0);
        assert_eq!(cbrt(27.0), 3.0);
        assert_eq!(cos(0.0), 1.0);
    }

    #[test]
    fn special_values() {
        assert_eq!(exp(f64::NEG_INFINITY), 0.0);
        assert_eq!(exp(-746.0), 0.0);
        assert!(exp(710.0).is_infinite());
        assert_eq!(ln(0.0), f64::NEG_INFINITY);
        assert!(ln(-1.0).is_nan());
        assert_eq!(ln_1p(-1.0), f64::NEG_INFINITY);
        assert_eq!(exp_m1(f64::NEG_INFINITY), -1.0);
        assert_eq!(powf(0.998, 0.0), 1.0);
        assert_eq!(powf(0.998, f64::INFINITY), 0.0);
        assert_eq!(cbrt(-8.0), -2.0);
    }
}
