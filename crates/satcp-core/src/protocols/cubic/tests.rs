use super::*;
use crate::engine::{math, Duration};
use crate::protocols::test_support::send_state;
use crate::tcp::loss_reduction::SsthreshFrom;

const MSS: u64 = 1000;

/// cwnd of `cwnd_segs` segments, all of them in flight.
fn state(cwnd_segs: u64, rtt_s: f64) -> SendState {
    let mut s = send_state(MSS as u32);
    s.cwnd = cwnd_segs * MSS;
    s.set_snd_max(s.cwnd);
    s.ssthresh = u64::MAX;
    s.rtt_mut().sample(Duration::from_secs_f64(rtt_s));
    s
}

/// A loss with cwnd at `cwnd_segs` segments, all in flight: cwnd and
/// ssthresh as after the recovery that follows.
fn lose_at(c: &mut Cubic, s: &mut SendState, cwnd_segs: u64) {
    s.cwnd = cwnd_segs * MSS;
    s.set_snd_max(s.snd_una() + s.cwnd);
    s.ssthresh = c.ssthresh(s);
    s.cwnd = s.ssthresh;
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
    let k = math::cbrt(100.0 * 0.3 / 0.4);
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
    // 200 RTTs: W_est from 70 to cwnd_prior = 100 at alpha = 0.53 segments
    // per RTT (57 RTTs), then at 1 per RTT: about 243; W_cubic at t = 2 s
    // is still below W_max (K = 4.2 s).
    let w = s.cwnd as f64 / MSS as f64;
    assert!(c.w_cubic(t) < 100.0);
    assert!(w > 150.0, "Reno-friendly window {w}");
}

/// Sec. 4.6: ssthresh = flight_size x beta (Linux: cwnd x beta); W_max
/// and cwnd_prior are cwnd.
#[test]
fn ssthresh_is_beta_times_the_flight_size() {
    let mut c = Cubic::new(CubicConfig::default());
    let mut s = state(100, 0.1);
    s.set_snd_max(60 * MSS);
    assert_eq!(c.ssthresh(&s), 42 * MSS);
    assert_eq!((c.w_max(), c.cwnd_prior()), (100.0, 100.0));
    s.set_snd_max(MSS);
    assert_eq!(c.ssthresh(&s), 2 * MSS, "at least two segments");
}

/// `ssthresh_from = "cwnd"`, Linux's `bictcp_recalc_ssthresh`: cwnd in
/// whole segments x 717 / 1024, whatever is in flight (Sec. 4.6 allows it
/// to a sender that keeps cwnd from outgrowing its flight, as the linux
/// profile's `cwnd_validation` does).
#[test]
fn ssthresh_from_cwnd_is_beta_times_whole_segments() {
    let mut c = Cubic::new(CubicConfig::default());
    let mut s = state(100, 0.1);
    s.set_ssthresh_from(SsthreshFrom::Cwnd);
    s.cwnd = 100 * MSS + MSS / 2;
    s.set_snd_max(60 * MSS);
    assert_eq!(c.ssthresh(&s), 70 * MSS);
    s.cwnd = 2 * MSS;
    assert_eq!(c.ssthresh(&s), 2 * MSS, "at least two segments");
}

/// Sec. 4.3: alpha_cubic becomes 1 when W_est reaches cwnd_prior, the
/// window before the last reduction, not W_max: after fast convergence
/// lowered W_max below cwnd_prior, W_est still grows at 3 (1 - beta) /
/// (1 + beta) between the two.
#[test]
fn alpha_becomes_one_when_w_est_reaches_cwnd_prior() {
    let rtt = 0.01;
    let mut c = Cubic::new(CubicConfig::default());
    let mut s = state(100, rtt);
    lose_at(&mut c, &mut s, 100);
    lose_at(&mut c, &mut s, 80);
    assert!((c.w_max() - 68.0).abs() < 1e-9, "fast convergence");
    assert_eq!(c.cwnd_prior(), 80.0);
    let friendly = 3.0 * 0.3 / 1.7;
    let (mut t, mut seen_between) = (0.0, false);
    for _ in 0..200 {
        round(&mut c, &mut s, t, rtt);
        t += rtt;
        let w_est = s.cwnd as f64 / MSS as f64; // W_cubic is far below W_est here
        if w_est > 70.0 && w_est < 79.0 {
            assert!(
                (c.alpha() - friendly).abs() < 1e-12,
                "W_est {w_est} above W_max 68"
            );
            seen_between = true;
        }
        if w_est >= 80.0 {
            assert_eq!(c.alpha(), 1.0);
        }
    }
    assert!(seen_between);
    assert!(s.cwnd as f64 / MSS as f64 > 90.0);
}

/// Sec. 4.8: in the first congestion-avoidance stage after a timeout,
/// K = 0 and W_max is cwnd at the stage's start; W_est starts there too.
#[test]
fn after_a_timeout_the_curve_starts_at_the_stage_window() {
    let mut c = Cubic::new(CubicConfig::default());
    let mut s = state(100, 0.1);
    c.on_timeout(&mut s);
    assert_eq!(s.ssthresh, 70 * MSS);
    assert_eq!(s.cwnd, MSS);
    s.cwnd = 70 * MSS;
    c.on_ack(&mut s, MSS, SimTime::from_secs_f64(5.0));
    assert_eq!((c.k(), c.w_max()), (0.0, 70.0));
    assert_eq!(c.cwnd_prior(), 100.0);
}

/// A second timeout in the loss episode of the first, after congestion
/// avoidance began: the stage after it starts at K = 0 again, and a later
/// fast recovery's stage keeps its W_max (fast convergence and all).
#[test]
fn a_timeout_within_the_loss_episode_ends_the_running_stage() {
    let mut c = Cubic::new(CubicConfig::default());
    let mut s = state(100, 0.1);
    c.on_timeout(&mut s);
    s.set_state(CongState::Loss);
    s.cwnd = 70 * MSS;
    c.on_ack(&mut s, MSS, SimTime::from_secs_f64(5.0));
    assert_eq!((c.k(), c.w_max()), (0.0, 70.0));
    c.on_timeout(&mut s);
    assert_eq!(s.ssthresh, 70 * MSS, "no new congestion event");
    s.set_state(CongState::Open);
    // Slow start ended (below the old ssthresh: the test moves on).
    s.ssthresh = 50 * MSS;
    s.cwnd = 60 * MSS;
    c.on_ack(&mut s, MSS, SimTime::from_secs_f64(10.0));
    assert_eq!((c.k(), c.w_max()), (0.0, 60.0), "a new stage at K = 0");
    lose_at(&mut c, &mut s, 100);
    c.on_ack(&mut s, MSS, SimTime::from_secs_f64(20.0));
    assert_eq!(c.w_max(), 100.0);
    assert!(
        (c.k() - math::cbrt(30.0 / 0.4)).abs() < 1e-9,
        "K = {}",
        c.k()
    );
}

/// Sec. 4.10: a first slow start that ends without a congestion event
/// (ssthresh reached, or HyStart++) leaves W_max undefined: K = 0, W_max
/// and cwnd_prior are cwnd at the stage's start, so alpha_cubic is 1 and
/// the window grows on the convex curve from there.
#[test]
fn without_a_congestion_event_the_curve_starts_at_the_stage_window() {
    let mut c = Cubic::new(CubicConfig::default());
    let mut s = state(44, 0.1);
    s.ssthresh = 44 * MSS;
    c.on_ack(&mut s, MSS, SimTime::ZERO);
    assert_eq!((c.k(), c.w_max(), c.cwnd_prior()), (0.0, 44.0, 44.0));
    assert_eq!(c.alpha(), 1.0);
    assert!((c.w_cubic(10.0) - (44.0 + 0.4 * 1000.0)).abs() < 1e-9);
}

/// Eq. 2 with a signed cube root: a stage that starts above W_max has
/// K < 0, and W_cubic(0) is the stage's window (Linux starts the curve
/// flat there instead: K = 0 at cwnd).
#[test]
fn a_stage_above_w_max_starts_on_the_convex_side() {
    let mut c = Cubic::new(CubicConfig::default());
    let mut s = state(100, 0.1);
    lose_at(&mut c, &mut s, 100);
    s.cwnd = 120 * MSS;
    c.on_ack(&mut s, MSS, SimTime::from_secs_f64(1.0));
    assert!(c.k() < 0.0);
    assert!((c.w_cubic(0.0) - 120.0).abs() < 1e-9);
}

/// Sec. 4.9: a reduction shown spurious restores cwnd, ssthresh and the
/// CUBIC variables, while cwnd is still below cwnd_prior.
#[test]
fn an_undo_restores_the_state_before_the_reduction() {
    let mut c = Cubic::new(CubicConfig::default());
    let mut s = state(100, 0.1);
    lose_at(&mut c, &mut s, 100);
    round(&mut c, &mut s, 0.0, 0.1);
    let (w_max, k, prior) = (c.w_max(), c.k(), c.cwnd_prior());
    s.undo_mut().arm(90 * MSS, 200 * MSS);
    lose_at(&mut c, &mut s, 90);
    assert!(c.w_max() < w_max);
    c.undo(&mut s);
    assert_eq!((s.cwnd, s.ssthresh), (90 * MSS, 200 * MSS));
    assert_eq!((c.w_max(), c.k(), c.cwnd_prior()), (w_max, k, prior));
    // Once cwnd is back above cwnd_prior, the current values stand.
    lose_at(&mut c, &mut s, 90);
    s.cwnd = 95 * MSS;
    let w_max = c.w_max();
    c.undo(&mut s);
    assert_eq!((s.cwnd, c.w_max()), (95 * MSS, w_max));
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
