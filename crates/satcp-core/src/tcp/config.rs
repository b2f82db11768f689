//! Per-connection TCP settings. Defaults are thesis Table 7.4 (TCP-ADaLR
//! thesis, Sec. 7.3) with the delayed ACK option enabled (0.2 s, 2 segments).

use serde::{Deserialize, Serialize};

/// Loss recovery for the variants that offer a choice: NewReno (RFC 6582)
/// or SACK (RFC 2018 option, RFC 6675 recovery).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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

/// The largest receive buffer window scaling can advertise (RFC 7323
/// Sec. 2.3: shift at most 14).
pub const MAX_SCALED_WINDOW: u32 = 65_535 << 14;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TcpConfig {
    /// The variant (`protocols::VARIANTS`): a family name such as "reno",
    /// "adalr", "peach", or a shorthand naming family and loss recovery
    /// such as "newreno", "sack", "adalr-sack".
    pub variant: String,
    /// Loss recovery, for the families that offer both; None: the one the
    /// variant name implies (NewReno for a bare family name).
    pub recovery: Option<Recovery>,
    /// Sender maximum segment size (payload bytes).
    pub mss: u32,
    /// Initial window in segments ("slow start initial count").
    pub initial_window: u32,
    /// Initial slow-start threshold in bytes.
    pub initial_ssthresh: u64,
    /// Receive buffer = advertised window, bytes: at most 65,535 without
    /// window scaling, at most 65,535 x 2^14 with it.
    pub rcv_buffer: u32,
    /// Offer the window scale option (RFC 7323 Sec. 2) in the SYN.
    pub window_scaling: bool,
    /// Offer the timestamps option (RFC 7323 Sec. 3) in the SYN; when both
    /// ends agree, every segment carries it (12 bytes, taken from the
    /// payload as Linux does) and RTT is sampled from its echo.
    pub timestamps: bool,
    /// Clock granularity G of the RTO formula, seconds.
    pub timer_granularity: f64,
    /// Persist (zero-window probe) timeout, seconds.
    pub persist_timeout: f64,
    /// Delayed ACK option (RFC 1122 / RFC 5681).
    pub delayed_ack: bool,
    /// Maximum time an ACK may be delayed, seconds.
    pub max_ack_delay: f64,
    /// ACK at least every this many full-size segments.
    pub max_ack_segments: u32,
    /// Duplicate ACKs that trigger fast retransmit.
    pub dupack_threshold: u32,
    pub initial_rto: f64,
    pub min_rto: f64,
    pub max_rto: f64,
    /// Consecutive RTO expiries after which the connection is aborted.
    pub max_retransmissions: u32,
    /// alpha of RFC 6298 ("RTT gain").
    pub rtt_gain: f64,
    /// beta of RFC 6298 ("deviation gain").
    pub deviation_gain: f64,
    /// K of RFC 6298 ("RTT deviation coefficient").
    pub rtt_deviation_coefficient: f64,
    /// Receiver reports duplicate segments in SACK blocks (RFC 2883).
    pub dsack: bool,
    /// Nagle's algorithm (RFC 896) on the sender.
    pub nagle: bool,
    /// ECN (RFC 3168): offered in the SYN, used when the peer agrees.
    pub ecn: bool,
    /// The variant resolved, with its family's settings (the
    /// `[tcp.<family>]` table) parsed and checked: set by the scenario
    /// parser (`protocols::resolve`); None until then.
    #[serde(skip)]
    pub variant_choice: Option<super::variant::VariantChoice>,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
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
            nagle: false,
            ecn: false,
            variant_choice: None,
        }
    }
}
