//! Nagle's algorithm on the sender (`tcp.nagle`): when a segment shorter
//! than a full one may leave. Two readings:
//!
//! - `true`: RFC 896 as RFC 1122 Sec. 4.2.3.4 states it: while any data
//!   is unacknowledged, a short segment waits until everything sent is
//!   acknowledged or a full segment can go.
//! - `"linux"`: Linux's `tcp_nagle_test` / `tcp_nagle_check` (net/ipv4/
//!   tcp_output.c), which is Minshall's variant (draft-minshall-nagle):
//!   a short segment waits only while an earlier *short* segment is
//!   unacknowledged (`tcp_minshall_check`: snd_sml above snd_una), and a
//!   segment that carries the FIN never waits ("Don't use the nagle rule
//!   ... for the final FIN"). So the last, short segment of a transfer,
//!   or of each HTTP object, leaves at once instead of a round trip late.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Which rule holds short segments back (`tcp.nagle`: false, true or
/// "linux").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Nagle {
    /// No Nagle: a short segment leaves when the windows allow (TCP_NODELAY).
    #[default]
    Off,
    /// RFC 896 / RFC 1122 Sec. 4.2.3.4 (`nagle = true`).
    Rfc896,
    /// Linux's Minshall variant with the FIN exempt (`nagle = "linux"`).
    Linux,
}

impl From<bool> for Nagle {
    fn from(on: bool) -> Nagle {
        if on {
            Nagle::Rfc896
        } else {
            Nagle::Off
        }
    }
}

impl Serialize for Nagle {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Nagle::Off => s.serialize_bool(false),
            Nagle::Rfc896 => s.serialize_bool(true),
            Nagle::Linux => s.serialize_str("linux"),
        }
    }
}

impl<'de> Deserialize<'de> for Nagle {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Nagle, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Given {
            On(bool),
            Name(String),
        }
        match Given::deserialize(d) {
            Ok(Given::On(on)) => Ok(on.into()),
            Ok(Given::Name(n)) if n == "linux" => Ok(Nagle::Linux),
            _ => Err(serde::de::Error::custom(
                "expected true (RFC 896), false or \"linux\" (Minshall's variant, FIN exempt)",
            )),
        }
    }
}

impl schemars::JsonSchema for Nagle {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Nagle".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "enum": [false, true, "linux"] })
    }
}

/// The sender's Nagle state: the rule and, for Linux's, where the last
/// short segment ended (Linux's `snd_sml`).
#[derive(Clone, Copy, Debug)]
pub struct NagleState {
    rule: Nagle,
    snd_sml: u64,
}

impl NagleState {
    pub fn new(rule: Nagle) -> NagleState {
        NagleState { rule, snd_sml: 0 }
    }

    /// Whether a new segment of `len` bytes (`mss` a full one), carrying
    /// the FIN or not, must wait, with `snd_una`..`snd_max` outstanding.
    pub fn holds(&self, len: u64, mss: u64, fin: bool, snd_una: u64, snd_max: u64) -> bool {
        if len >= mss || snd_max == snd_una {
            return false;
        }
        match self.rule {
            Nagle::Off => false,
            Nagle::Rfc896 => true,
            // tcp_minshall_check: the last short segment is still
            // unacknowledged (snd_sml in (snd_una, snd_max]).
            Nagle::Linux => !fin && self.snd_sml > snd_una && self.snd_sml <= snd_max,
        }
    }

    /// A new segment of `len` bytes ending at `end` was sent
    /// (`tcp_minshall_update`).
    pub fn on_sent(&mut self, len: u64, mss: u64, end: u64) {
        if len < mss {
            self.snd_sml = end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    #[test]
    fn nagle_off_never_holds() {
        let n = NagleState::new(Nagle::Off);
        assert!(!n.holds(10, MSS, false, 1, 5001));
    }

    /// RFC 1122 4.2.3.4: a short segment waits while anything is
    /// unacknowledged, FIN or not; it goes when nothing is.
    #[test]
    fn rfc896_holds_a_short_segment_while_data_is_unacknowledged() {
        let n = NagleState::new(Nagle::Rfc896);
        assert!(n.holds(10, MSS, false, 1, 5001));
        assert!(n.holds(10, MSS, true, 1, 5001));
        assert!(!n.holds(10, MSS, false, 5001, 5001));
        assert!(!n.holds(MSS, MSS, false, 1, 5001), "a full segment goes");
    }

    /// tcp_minshall_check: only an unacknowledged short segment holds the
    /// next short one back.
    #[test]
    fn linux_holds_only_behind_an_unacknowledged_short_segment() {
        let mut n = NagleState::new(Nagle::Linux);
        // Full segments outstanding: the short tail goes at once.
        n.on_sent(MSS, MSS, 5001);
        assert!(!n.holds(10, MSS, false, 1, 5001));
        // A short segment went and is unacknowledged: the next one waits.
        n.on_sent(10, MSS, 5011);
        assert!(n.holds(10, MSS, false, 1, 5011));
        // Once it is acknowledged, the next short segment goes.
        assert!(!n.holds(10, MSS, false, 5011, 5011));
        assert!(!n.holds(10, MSS, false, 5011, 6011));
    }

    /// tcp_nagle_test: "Don't use the nagle rule ... for the final FIN".
    #[test]
    fn linux_never_holds_the_segment_with_the_fin() {
        let mut n = NagleState::new(Nagle::Linux);
        n.on_sent(10, MSS, 11);
        assert!(n.holds(10, MSS, false, 1, 11));
        assert!(!n.holds(10, MSS, true, 1, 11));
    }

    #[test]
    fn the_setting_reads_bools_and_linux() {
        let v: Vec<Nagle> = serde_json::from_str(r#"[false, true, "linux"]"#).unwrap();
        assert_eq!(v, vec![Nagle::Off, Nagle::Rfc896, Nagle::Linux]);
        assert!(serde_json::from_str::<Nagle>(r#""bsd""#).is_err());
        assert_eq!(
            serde_json::to_string(&[Nagle::Off, Nagle::Rfc896, Nagle::Linux]).unwrap(),
            r#"[false,true,"linux"]"#
        );
    }
}
