use super::*;
use crate::engine::Duration;
use crate::protocols::test_support::send_state;

const MSS: u64 = 1000;

fn state(cwnd_segs: u64, rtt_s: f64) -> SendState {
    let mut s = send_state(MSS as u32);
    s.cwnd = cwnd_segs * MSS;
    s.ssthresh = u64::MAX;
    s.rtt_mut().sample(Duration::from_secs_f64(rtt_s));
    s
}

/// One round trip of ACKs, one per segment of the window, evenly spread.
fn round(c: &mut Cubic, s: &mut SendState, t0: f64, rtt: f64) {
    let n = s.cwnd / MSS;
    for i in 0..n {
        let t = t0 + rtt * i as f64 / n as f64;
        c.on_ack(s, MSS, SimTime::from_secs_f64(t));
    }
}

#[test]
fn a_loss_multiplies_by_beta_and_sets_w_max() {
    let mut c = Cubic::new(CubicConfig::default());
    let s = state(100, 0.1);
    assert_eq!(c.ssthresh(&s), 70 * MSS);
    assert_eq!(c.w_max(), 100.0);
    // Fast convergence: a loss below the last W_max lowers it further.
    let s = state(80, 0.1);
    c.ssthresh(&s);
    assert!((c.w_max() - 80.0 * 1.7 / 2.0).abs() < 1e-9);
}

/// Sec. 4.2: after a loss at W_max = 100 segments, cwnd follows
/// W_cubic(t) = C (t - K)^3 + W_max with K = cbrt(W_max (1 - beta) / C),
/// rising back to W_max at t = K and beyond it after.
#[test]
fn the_window_after_a_loss_follows_the_cubic_function() {
    let rtt = 0.1;
    let mut c = Cubic::new(CubicConfig {
        reno_friendly: false,
        ..CubicConfig::default()
    });
    let mut s = state(100, rtt);
    s.ssthresh = c.ssthresh(&s);
    s.cwnd = s.ssthresh;
    let k = (100.0f64 * 0.3 / 0.4).cbrt();
    let mut t = 0.0;
    let mut checked = 0;
    while t < 2.0 * k {
        round(&mut c, &mut s, t, rtt);
        t += rtt;
        assert!((c.k() - k).abs() < 1e-9);
        // After the round, cwnd aims at W_cubic one RTT ahead of the ACKs
        // it just got; it lags that target by less than one round's step.
        let w = s.cwnd as f64 / MSS as f64;
        let expected = c.w_cubic(t);
        assert!(
            (w - expected).abs() / expected < 0.03,
            "t = {t:.1} s: cwnd {w:.2} vs W_cubic {expected:.2}"
        );
        checked += 1;
    }
    assert!(checked > 50);
    let w = s.cwnd as f64 / MSS as f64;
    assert!(w > 100.0, "beyond W_max after 2K: {w}");
}

/// Sec. 4.3: on a short path CUBIC is never slower than Reno would be.
#[test]
fn the_reno_friendly_region_keeps_up_with_reno() {
    let rtt = 0.01;
    let mut c = Cubic::new(CubicConfig::default());
    let mut s = state(100, rtt);
    s.ssthresh = c.ssthresh(&s);
    s.cwnd = s.ssthresh;
    let mut t = 0.0;
    for _ in 0..200 {
        round(&mut c, &mut s, t, rtt);
        t += rtt;
    }
    // 200 RTTs at alpha = 0.53 segments per RTT: W_est about 70 + 106;
    // W_cubic at t = 2 s is still below W_max (K = 4.2 s).
    let w = s.cwnd as f64 / MSS as f64;
    assert!(c.w_cubic(t) < 100.0);
    assert!(w > 150.0, "Reno-friendly window {w}");
}

#[test]
fn settings_are_checked() {
    let e = |v| crate::protocols::test_support::settings_error("cubic", v);
    assert_eq!(
        e(serde_json::json!({"beta": 1.2})),
        Some("cubic.beta".into())
    );
    assert_eq!(e(serde_json::json!({"c": 0})), Some("cubic.c".into()));
    assert_eq!(e(serde_json::json!({"d": 0})), Some("cubic.d".into()));
    assert_eq!(e(serde_json::json!({})), None);
}
