use super::*;

#[test]
fn gains_are_those_of_the_draft() {
    assert!((HIGH_GAIN - 2.0 / std::f64::consts::LN_2).abs() < 1e-12);
    assert_eq!(
        PROBE_BW_GAINS.iter().sum::<f64>(),
        8.0,
        "the cycle averages 1"
    );
    let b = Bbr::default();
    assert_eq!(b.mode, Mode::Startup);
    assert_eq!(b.pacing_gain, HIGH_GAIN);
}
