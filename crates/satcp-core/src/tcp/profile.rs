//! TCP stack profiles (`tcp.profile`): the settings one field switches at
//! once. The scenario parser fills every setting a profile lists and the
//! scenario leaves out (`apply`), so a profile is defaults, never an
//! override: `profile = "linux"` with `min_rto = 1.0` runs Linux with a
//! 1 s minimum RTO.
//!
//! `rfc` is `TcpConfig::default()`: the RFCs as the source papers'
//! simulators ran them, the thesis's Table 7.4. `linux` is what Linux 6.x
//! runs by default, each value with the sysctl or constant it comes from
//! (docs/profiles.md).

use super::config::{Profile, TcpConfig};
use serde_json::{json, Map, Value};

/// The settings `profile` sets, as `[tcp]` keys and values.
pub fn settings(profile: Profile) -> Map<String, Value> {
    let v = match profile {
        Profile::Rfc => json!({}),
        Profile::Linux => json!({
            // net.ipv4.tcp_congestion_control (its loss recovery is SACK's,
            // net.ipv4.tcp_sack)
            "variant": "cubic",
            // TCP_INIT_CWND (RFC 6928); TCP_INFINITE_SSTHRESH
            "initial_window": 10,
            "initial_ssthresh": 1_000_000_000_000u64,
            // The largest window autotuning opens: net.ipv4.tcp_rmem's
            // maximum (6 MB) as a window, tcp_win_from_space with the
            // default scaling ratio (TCP_DEFAULT_SCALING_RATIO, 50 %; Linux
            // measures the ratio from the buffers it receives)
            "rcv_buffer": 3_145_728,
            // net.ipv4.tcp_window_scaling, tcp_timestamps, tcp_dsack; tcp_ecn = 2
            // (ECN only when the peer asks)
            "window_scaling": true,
            "timestamps": true,
            "dsack": true,
            "ecn": false,
            // TCP_TIMEOUT_INIT, TCP_RTO_MIN, TCP_RTO_MAX, jiffies at HZ = 1000,
            // tcp_rtt_estimator / __tcp_set_rto, net.ipv4.tcp_retries2
            "initial_rto": 1.0,
            "min_rto": 0.2,
            "max_rto": 120.0,
            "timer_granularity": 0.001,
            "rto_algorithm": "linux",
            "max_retransmissions": 15,
            // TCP_DELACK_MIN (TCP_ATO_MIN), TCP_MAX_QUICKACKS; Nagle unless
            // TCP_NODELAY, as tcp_nagle_check runs it (Minshall's variant)
            "delayed_ack": true,
            "max_ack_delay": 0.04,
            "max_ack_segments": 2,
            "quick_acks": 16,
            "nagle": "linux",
            // net.ipv4.tcp_reordering
            "dupack_threshold": 3,
            // the scoreboard survives a timeout; undo on DSACK and F-RTO
            // (net.ipv4.tcp_frto = 2); PRR; RACK-TLP (net.ipv4.tcp_recovery
            // = 1, tcp_early_retrans = 3); HyStart (CUBIC's: `apply` sets it
            // for CUBIC only); tcp_slow_start's count
            // of acknowledged segments; ssthresh from cwnd
            // (tcp_reno_ssthresh, bictcp_recalc_ssthresh); tcp_is_cwnd_limited;
            // net.ipv4.tcp_slow_start_after_idle
            "scoreboard_after_timeout": "keep",
            "undo": true,
            "frto": true,
            "prr": true,
            "rack_tlp": true,
            "hystart": true,
            "byte_counting": true,
            "ssthresh_from": "cwnd",
            "cwnd_validation": true,
            "slow_start_after_idle": true,
        }),
    };
    match v {
        Value::Object(m) => m,
        _ => unreachable!("a profile is a table"),
    }
}

/// Fills the settings of the table's profile that the table leaves out.
/// A `profile` that is not a profile is left for the typed parse to
/// reject with its own message.
pub fn apply(tcp: &mut Map<String, Value>) {
    let Some(profile) = tcp
        .get("profile")
        .and_then(|p| serde_json::from_value::<Profile>(p.clone()).ok())
    else {
        return;
    };
    let settings = settings(profile);
    let variant = tcp.get("variant").or(settings.get("variant")).cloned();
    for (k, v) in settings {
        // HyStart is CUBIC's: Linux runs it inside tcp_cubic.c, and every
        // other congestion control's slow start is tcp_slow_start alone.
        if k == "hystart" && variant != Some(json!("cubic")) {
            continue;
        }
        tcp.entry(k).or_insert(v);
    }
}

impl TcpConfig {
    /// The TCP settings of `profile` (its defaults, nothing overridden).
    pub fn for_profile(profile: Profile) -> TcpConfig {
        let mut m = Map::new();
        m.insert(
            "profile".into(),
            serde_json::to_value(profile).expect("enum"),
        );
        apply(&mut m);
        serde_json::from_value(Value::Object(m)).expect("a profile's settings are valid")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::config::{RtoAlgorithm, ScoreboardAfterTimeout};

    #[test]
    fn rfc_is_the_default_configuration() {
        assert_eq!(TcpConfig::for_profile(Profile::Rfc), TcpConfig::default());
    }

    #[test]
    fn linux_switches_the_whole_stack() {
        let l = TcpConfig::for_profile(Profile::Linux);
        assert_eq!(l.profile, Profile::Linux);
        assert_eq!(l.variant, "cubic");
        assert_eq!((l.initial_window, l.min_rto), (10, 0.2));
        assert_eq!(l.rto_algorithm, RtoAlgorithm::Linux);
        assert_eq!(l.scoreboard_after_timeout, ScoreboardAfterTimeout::Keep);
        assert!(l.prr && l.rack_tlp && l.frto && l.hystart && l.undo);
        assert!(l.byte_counting && l.cwnd_validation && l.timestamps && l.window_scaling);
        assert!(l.slow_start_after_idle && l.quick_acks == 16);
        assert_eq!(l.nagle, crate::tcp::nagle::Nagle::Linux);
    }

    /// A profile fills what the table leaves out, nothing more.
    #[test]
    fn a_setting_given_beats_the_profile() {
        let mut m = Map::new();
        m.insert("profile".into(), json!("linux"));
        m.insert("min_rto".into(), json!(1.0));
        apply(&mut m);
        assert_eq!(m["min_rto"], json!(1.0));
        assert_eq!(m["initial_window"], json!(10));
    }

    /// The linux profile's HyStart is CUBIC's only (Linux's other
    /// congestion controls slow-start with tcp_slow_start alone); asked
    /// for, any variant runs it.
    #[test]
    fn linux_runs_hystart_with_cubic_only() {
        let hystart = |variant: Option<&str>, hystart: Option<bool>| {
            let mut m = Map::new();
            m.insert("profile".into(), json!("linux"));
            if let Some(v) = variant {
                m.insert("variant".into(), json!(v));
            }
            if let Some(h) = hystart {
                m.insert("hystart".into(), json!(h));
            }
            apply(&mut m);
            m.get("hystart").cloned()
        };
        assert_eq!(hystart(None, None), Some(json!(true)));
        assert_eq!(hystart(Some("cubic"), None), Some(json!(true)));
        assert_eq!(hystart(Some("westwood"), None), None);
        assert_eq!(hystart(Some("newreno"), None), None);
        assert_eq!(hystart(Some("westwood"), Some(true)), Some(json!(true)));
    }

    /// Every key a profile sets is a `[tcp]` field.
    #[test]
    fn profiles_set_only_tcp_fields() {
        for p in [Profile::Rfc, Profile::Linux] {
            let mut m = settings(p);
            m.insert("profile".into(), serde_json::to_value(p).unwrap());
            let r: Result<TcpConfig, _> = serde_json::from_value(Value::Object(m));
            assert!(r.is_ok(), "{p:?}: {:?}", r.err());
        }
    }
}
