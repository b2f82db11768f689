//! Per-connection TCP settings. Defaults are thesis Table 7.4 (TCP-ADaLR
//! thesis, Sec. 7.3) with the delayed ACK option enabled (0.2 s, 2 segments).

use crate::error::{MAX_SETTING, MAX_SIM_SECONDS};
use serde::{Deserialize, Serialize};

/// Loss recovery for the variants that offer a choice: NewReno (RFC 6582)
/// or SACK (RFC 2018 option, RFC 6675 recovery).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Recovery {
    NewReno,
    Sack,
}

impl Recovery {
    pub fn name(&self) -> &'static str {
        match self {
            Recovery::NewReno => "newreno",
            Recovery::Sack => "sack",
        }
    }
}

/// A whole TCP stack's defaults at once (`tcp.profile`): every field the
/// profile sets may still be set alone (`tcp/profile.rs`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// The RFCs as the source papers' simulators ran them: RFC 5681
    /// congestion control, NewReno (RFC 6582) or SACK (RFC 6675) recovery,
    /// the RFC 6298 timer, the thesis's TCP settings (Table 7.4).
    #[default]
    Rfc,
    /// What Linux 6.x runs by default (`tcp/profile.rs` lists it).
    Linux,
}

/// How the retransmission timeout follows the RTT samples.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum RtoAlgorithm {
    /// RFC 6298: RTO = SRTT + max(G, K x RTTVAR), at least `min_rto`.
    #[default]
    Rfc6298,
    /// Linux's `tcp_rtt_estimator` and `__tcp_set_rto`: the deviation
    /// tracked per round trip and never below `min_rto`, RTO = SRTT +
    /// that deviation.
    Linux,
}

/// What becomes of the SACK scoreboard when the retransmission timer
/// expires.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ScoreboardAfterTimeout {
    /// RFC 6675 Sec. 5.1 with RFC 2018's advice: the old SACK information
    /// is cleared, everything outstanding is presumed lost, and the SACK
    /// information that arrives during the recovery after the timeout is
    /// used.
    #[default]
    Clear,
    /// The scoreboard is kept across the timeout (the erratum to RFC 6675
    /// Sec. 5.1, Linux, ns-3): SACKed segments are not resent, unless the
    /// receiver reneges (an ACK at or above a SACKed segment that does not
    /// cover it).
    Keep,
}

/// The largest receive buffer window scaling can advertise (RFC 7323
/// Sec. 2.3: shift at most 14).
pub const MAX_SCALED_WINDOW: u32 = 65_535 << 14;

/// The largest MSS: an IPv4 packet's 65,535 bytes less the IPv4 and TCP
/// headers (20 + 20).
pub const MAX_MSS: u32 = 65_495;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TcpConfig {
    /// The stack's defaults: "rfc" or "linux" (`Profile`). The scenario
    /// parser fills every field the profile sets and the table leaves out.
    pub profile: Profile,
    /// The variant (`protocols::VARIANTS`): a family name such as "reno",
    /// "adalr", "peach", or a shorthand naming family and loss recovery
    /// such as "newreno", "sack", "adalr-sack".
    pub variant: String,
    /// Loss recovery, for the families that offer both; None: the one the
    /// variant name implies (NewReno for a bare family name).
    pub recovery: Option<Recovery>,
    /// Sender maximum segment size (payload bytes); above 12 with
    /// timestamps.
    #[schemars(range(min = 1, max = MAX_MSS), extend("x-unit" = "bytes"))]
    pub mss: u32,
    /// Initial window in segments ("slow start initial count").
    #[schemars(range(min = 1), extend("x-unit" = "segments"))]
    pub initial_window: u32,
    /// Initial slow-start threshold in bytes.
    #[schemars(range(min = 1), extend("x-unit" = "bytes"))]
    pub initial_ssthresh: u64,
    /// Receive buffer = advertised window, bytes: at most 65,535 without
    /// window scaling, at most 65,535 x 2^14 with it.
    #[schemars(range(min = 1, max = MAX_SCALED_WINDOW), extend("x-unit" = "bytes"))]
    pub rcv_buffer: u32,
    /// Offer the window scale option (RFC 7323 Sec. 2) in the SYN.
    pub window_scaling: bool,
    /// Offer the timestamps option (RFC 7323 Sec. 3) in the SYN; when both
    /// ends agree, every segment carries it (12 bytes, taken from the
    /// payload as Linux does) and RTT is sampled from its echo.
    pub timestamps: bool,
    /// Clock granularity G of the RTO formula, seconds.
    #[schemars(range(min = 0.0, max = MAX_SIM_SECONDS), extend("x-unit" = "s"))]
    pub timer_granularity: f64,
    /// Persist (zero-window probe) timeout, seconds.
    #[schemars(range(min = 0.0, max = MAX_SIM_SECONDS), extend("x-unit" = "s"))]
    pub persist_timeout: f64,
    /// Delayed ACK option (RFC 1122 / RFC 5681).
    pub delayed_ack: bool,
    /// Maximum time an ACK may be delayed, seconds.
    #[schemars(range(min = 0.0, max = MAX_SIM_SECONDS), extend("x-unit" = "s"))]
    pub max_ack_delay: f64,
    /// ACK at least every this many full-size segments.
    #[schemars(range(min = 1), extend("x-unit" = "segments"))]
    pub max_ack_segments: u32,
    /// Duplicate ACKs that trigger fast retransmit.
    #[schemars(range(min = 1))]
    pub dupack_threshold: u32,
    /// Retransmission timeout before the first RTT sample, seconds.
    #[schemars(range(max = MAX_SIM_SECONDS), extend("exclusiveMinimum" = 0.0, "x-unit" = "s"))]
    pub initial_rto: f64,
    /// Lowest retransmission timeout, seconds.
    #[schemars(range(max = MAX_SIM_SECONDS), extend("exclusiveMinimum" = 0.0, "x-unit" = "s"))]
    pub min_rto: f64,
    /// Highest retransmission timeout (the backoff stops there), seconds;
    /// not below `min_rto`.
    #[schemars(range(max = MAX_SIM_SECONDS), extend("exclusiveMinimum" = 0.0, "x-unit" = "s"))]
    pub max_rto: f64,
    /// Consecutive RTO expiries after which the connection is aborted.
    pub max_retransmissions: u32,
    /// alpha of RFC 6298 ("RTT gain").
    #[schemars(range(max = 1.0), extend("exclusiveMinimum" = 0.0))]
    pub rtt_gain: f64,
    /// beta of RFC 6298 ("deviation gain").
    #[schemars(range(max = 1.0), extend("exclusiveMinimum" = 0.0))]
    pub deviation_gain: f64,
    /// K of RFC 6298 ("RTT deviation coefficient").
    #[schemars(range(min = 0.0, max = MAX_SETTING))]
    pub rtt_deviation_coefficient: f64,
    /// Receiver reports duplicate segments in SACK blocks (RFC 2883).
    pub dsack: bool,
    /// Nagle's algorithm on the sender: false, true (RFC 896) or "linux"
    /// (Minshall's variant, the FIN exempt: `tcp/nagle.rs`).
    pub nagle: super::nagle::Nagle,
    /// ECN (RFC 3168): offered in the SYN, used when the peer agrees.
    pub ecn: bool,
    /// How the RTO follows the RTT samples (`RtoAlgorithm`).
    pub rto_algorithm: RtoAlgorithm,
    /// What a timeout does to the SACK scoreboard.
    pub scoreboard_after_timeout: ScoreboardAfterTimeout,
    /// Undo a window reduction that DSACKs or F-RTO show spurious, for
    /// every variant (Linux's undo); variants that undo on their own
    /// (DSACK-R, RR-TCP) do so whatever this says.
    pub undo: bool,
    /// Proportional Rate Reduction (RFC 6937) sets cwnd during recovery.
    pub prr: bool,
    /// RACK-TLP (RFC 8985): losses detected by time, tail loss probes.
    pub rack_tlp: bool,
    /// F-RTO (RFC 5682): a spurious retransmission timeout is detected and
    /// undone.
    pub frto: bool,
    /// HyStart++ (RFC 9406) leaves slow start before the first loss.
    pub hystart: bool,
    /// Standard slow start and Reno's congestion avoidance count what an
    /// ACK acknowledges (appropriate byte counting, RFC 3465, as Linux's
    /// `tcp_slow_start` and `tcp_cong_avoid_ai` count acknowledged
    /// segments) instead of at most one SMSS per ACK (RFC 5681):
    /// `tcp/slow_start.rs`.
    pub byte_counting: bool,
    /// The window a loss or timeout reduces: "flight_size" (RFC 5681 Eq.
    /// 4) or "cwnd" in whole segments (Linux's `tcp_reno_ssthresh`,
    /// `bictcp_recalc_ssthresh`): `tcp/loss_reduction.rs`.
    pub ssthresh_from: super::loss_reduction::SsthreshFrom,
    /// cwnd grows only while the sender is cwnd-limited (congestion window
    /// validation: Linux's `tcp_is_cwnd_limited`, RFC 7661's idea):
    /// `tcp/cwnd_validation.rs`.
    pub cwnd_validation: bool,
    /// cwnd not used for a retransmission timeout shrinks: restarted after
    /// an idle period, decayed towards what was used when the application
    /// or the receiver limited the sender (RFC 2861, Linux's
    /// `net.ipv4.tcp_slow_start_after_idle`): `tcp/cwnd_validation.rs`.
    pub slow_start_after_idle: bool,
    /// The receiver acknowledges every segment for this many segments at
    /// the start of a connection (Linux's quick-ACK mode).
    #[schemars(extend("x-unit" = "segments"))]
    pub quick_acks: u32,
    /// The variant resolved, with its family's settings (the
    /// `[tcp.<family>]` table) parsed and checked: set by the scenario
    /// parser (`protocols::resolve`); None until then.
    #[serde(skip)]
    pub variant_choice: Option<super::variant::VariantChoice>,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            profile: Profile::Rfc,
            variant: "sack".into(),
            recovery: None,
            mss: 1460,
            initial_window: 2,
            initial_ssthresh: 65_535,
            rcv_buffer: 65_535,
            window_scaling: false,
            timestamps: false,
            timer_granularity: 0.5,
            persist_timeout: 1.0,
            delayed_ack: true,
            max_ack_delay: 0.2,
            max_ack_segments: 2,
            dupack_threshold: 3,
            initial_rto: 3.0,
            min_rto: 1.0,
            max_rto: 64.0,
            max_retransmissions: 6,
            rtt_gain: 0.125,
            deviation_gain: 0.25,
            rtt_deviation_coefficient: 4.0,
            dsack: false,
            nagle: super::nagle::Nagle::Off,
            ecn: false,
            rto_algorithm: RtoAlgorithm::Rfc6298,
            scoreboard_after_timeout: ScoreboardAfterTimeout::Clear,
            undo: false,
            prr: false,
            rack_tlp: false,
            frto: false,
            hystart: false,
            byte_counting: false,
            ssthresh_from: super::loss_reduction::SsthreshFrom::FlightSize,
            cwnd_validation: false,
            slow_start_after_idle: false,
            quick_acks: 0,
            variant_choice: None,
        }
    }
}
