//! The slow-start increase functions of M. Marchese, "TCP modifications
//! over satellite channels: a new slow start" (the slow-start paper, Sec.
//! II-B): on each ACK in slow start, cwnd += F(N_ack, cwnd) x SMSS, where
//! N_ack counts the ACKs the connection has received. Formulas (1)-(6) are
//! OCR-damaged in the source; the reading is in docs/slowstart.md.

use serde::{Deserialize, Serialize};

/// One linear piece of F''' (Eq. 5-6): F = k x N_ack while cwnd <= thr.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LinearPiece {
    /// Threshold on cwnd, segments.
    pub thr: f64,
    /// Angular coefficient K_thr_n.
    pub k: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub enum IncreaseFunction {
    /// Eq. 1, the reference: F = 1.
    Standard,
    /// Eq. 2, F': F = K on every ACK.
    Constant { k: f64 },
    /// Eq. 3-4, F'' ("Linear thr"): F = N_ack while cwnd <= thr, else 1.
    Linear { thr: f64 },
    /// Eq. 5-6, F''' ("Linear thr1-thr2-thr3"): F = K_n x N_ack for the
    /// first piece n with cwnd <= thr_n, else 1.
    Piecewise { pieces: Vec<LinearPiece> },
}

impl IncreaseFunction {
    /// F for the `n_ack`-th ACK with cwnd at `cwnd_segs` segments.
    pub fn factor(&self, n_ack: u64, cwnd_segs: f64) -> f64 {
        let n = n_ack as f64;
        match self {
            IncreaseFunction::Standard => 1.0,
            IncreaseFunction::Constant { k } => *k,
            IncreaseFunction::Linear { thr } => {
                if cwnd_segs <= *thr {
                    n
                } else {
                    1.0
                }
            }
            IncreaseFunction::Piecewise { pieces } => pieces
                .iter()
                .find(|p| cwnd_segs <= p.thr)
                .map_or(1.0, |p| p.k * n),
        }
    }

    /// The paper's name of the function, as its figures label it.
    pub fn label(&self) -> String {
        match self {
            IncreaseFunction::Standard => "F = 1".into(),
            IncreaseFunction::Constant { k } => format!("K = {k}"),
            IncreaseFunction::Linear { thr } => format!("Linear {thr}"),
            IncreaseFunction::Piecewise { pieces } => {
                let t: Vec<String> = pieces.iter().map(|p| p.thr.to_string()).collect();
                format!("Linear {}", t.join("-"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_is_one() {
        for n in [1, 5, 1000] {
            assert_eq!(IncreaseFunction::Standard.factor(n, 3.0), 1.0);
        }
    }

    #[test]
    fn constant_is_k_whatever_the_window() {
        let f = IncreaseFunction::Constant { k: 4.0 };
        assert_eq!(f.factor(1, 1.0), 4.0);
        assert_eq!(f.factor(500, 300.0), 4.0);
    }

    #[test]
    fn linear_is_n_ack_up_to_the_threshold_then_one() {
        let f = IncreaseFunction::Linear { thr: 20.0 };
        assert_eq!(f.factor(1, 6.0), 1.0);
        assert_eq!(f.factor(7, 19.0), 7.0);
        assert_eq!(f.factor(7, 20.0), 7.0, "cwnd <= thr still linear");
        assert_eq!(f.factor(7, 20.5), 1.0);
        assert_eq!(f.label(), "Linear 20");
    }

    #[test]
    fn piecewise_takes_the_first_threshold_above_cwnd() {
        let f = IncreaseFunction::Piecewise {
            pieces: vec![
                LinearPiece { thr: 10.0, k: 4.0 },
                LinearPiece { thr: 20.0, k: 2.0 },
                LinearPiece { thr: 30.0, k: 1.0 },
            ],
        };
        assert_eq!(f.factor(3, 6.0), 12.0);
        assert_eq!(f.factor(3, 10.0), 12.0);
        assert_eq!(f.factor(3, 15.0), 6.0);
        assert_eq!(f.factor(3, 30.0), 3.0);
        assert_eq!(f.factor(3, 31.0), 1.0);
        assert_eq!(f.label(), "Linear 10-20-30");
    }

    /// Eq. 4: with F'' and one ACK per segment, cwnd after the N-th ACK is
    /// IW + N(N+1)/2 segments while below the threshold.
    #[test]
    fn linear_growth_follows_eq_4() {
        let f = IncreaseFunction::Linear { thr: 1000.0 };
        let mut cwnd = 6.0;
        for n in 1..=10u64 {
            cwnd += f.factor(n, cwnd);
        }
        assert_eq!(cwnd, 6.0 + 55.0);
    }
}
