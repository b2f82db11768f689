//! Per-connection TCP settings. Defaults are thesis Table 7.4 (TCP-ADaLR
//! thesis, Sec. 7.3) with the delayed ACK option enabled (0.2 s, 2 segments).

use crate::protocols::adalr::AdalrConfig;
use crate::protocols::faststart::FastStartConfig;
use crate::protocols::peach::PeachConfig;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TcpConfig {
    /// Congestion control / loss recovery variant, e.g. "newreno", "sack".
    pub variant: String,
    /// Sender maximum segment size (payload bytes).
    pub mss: u32,
    /// Initial window in segments ("slow start initial count").
    pub initial_window: u32,
    /// Initial slow-start threshold in bytes.
    pub initial_ssthresh: u64,
    /// Receive buffer = advertised window, bytes (no window scaling, <= 65,535).
    pub rcv_buffer: u32,
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
    /// Parameters read only by the TCP-ADaLR variants.
    pub adalr: AdalrConfig,
    /// TCP-Peach settings (receiver support for dummy segments).
    pub peach: PeachConfig,
    /// TCP Fast Start settings (variants `faststart`, `faststart-sack`).
    pub faststart: FastStartConfig,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            variant: "sack".into(),
            mss: 1460,
            initial_window: 2,
            initial_ssthresh: 65_535,
            rcv_buffer: 65_535,
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
            adalr: AdalrConfig::default(),
            peach: PeachConfig::default(),
            faststart: FastStartConfig::default(),
        }
    }
}
