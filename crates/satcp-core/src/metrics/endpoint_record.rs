//! What the results and the time series read of an endpoint, kept once its
//! connection is over for good (both sides finished, no packet of it left in
//! the network, no timer pending): the simulation then drops the endpoint
//! itself (scoreboard, buffers, variant parts, about 1 kB and more) and
//! keeps this, so that a run with many short flows holds the memory of its
//! concurrent flows, not of every flow it ever had.

use crate::engine::Duration;
use crate::tcp::{ConnState, FlowStats, StallRecord, TcpEndpoint};

#[derive(Clone, Debug)]
pub struct EndpointRecord {
    pub state: ConnState,
    pub cwnd: u64,
    pub ssthresh: u64,
    pub flight_size: u64,
    pub pipe: u64,
    pub srtt: Option<Duration>,
    pub rto: Duration,
    pub snd_una: u64,
    pub snd_max: u64,
    pub rcv_nxt_or_zero: u64,
    pub cc_phase: i32,
    pub cc_counters: Vec<(&'static str, u64)>,
    pub recovery_counters: Vec<(&'static str, u64)>,
    pub stats: FlowStats,
    pub stalls: StallRecord,
}

impl EndpointRecord {
    pub fn of(ep: &TcpEndpoint) -> EndpointRecord {
        EndpointRecord {
            state: ep.state,
            cwnd: ep.tx.cwnd,
            ssthresh: ep.tx.ssthresh,
            flight_size: ep.tx.flight_size(),
            pipe: ep.tx.pipe(),
            srtt: ep.tx.rtt().srtt(),
            rto: ep.tx.rtt().rto(),
            snd_una: ep.tx.snd_una(),
            snd_max: ep.tx.snd_max(),
            rcv_nxt_or_zero: ep.rx.rcv_nxt_or_zero(),
            cc_phase: ep.cc_phase(),
            cc_counters: ep.cc_counters(),
            recovery_counters: ep.recovery_counters(),
            stats: ep.stats,
            stalls: ep.stalls,
        }
    }
}
