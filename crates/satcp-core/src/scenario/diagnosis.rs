//! Why a run went as it did, in words: per application, why it did not
//! finish; per connection and link direction, the pathologies worth a
//! look. Read from the collected rows once the run is over
//! (`results::collect`), so the run itself pays nothing for it.

use super::results::{FlowRow, LinkRow, Outcome, StallRow, TransferRow};
use crate::sim::Simulation;
use serde::Serialize;

/// A timeout that backed the RTO off beyond this is a warning (seconds).
pub const RTO_WARNING_S: f64 = 30.0;
/// Data outstanding this many smoothed RTTs with no RTT sample is a warning.
pub const SAMPLE_GAP_WARNING_RTTS: f64 = 100.0;
/// A queue that dropped more than this share of the packets offered to
/// it is a warning.
pub const QUEUE_DROP_WARNING_SHARE: f64 = 0.10;

/// One row per application: what became of its transfers, and why it did
/// not finish.
#[derive(Clone, Debug, Serialize)]
pub struct AppRow {
    pub app: u32,
    pub app_name: String,
    pub kind: String,
    /// Transfers it started (`outcome` of each in the transfers table).
    pub transfers: u32,
    pub done: u32,
    pub aborted: u32,
    pub unfinished: u32,
    pub ongoing: u32,
    /// It did all it had to (`Application::is_done`).
    pub finished: bool,
    /// It has no set amount of work: it runs until the run ends.
    pub open_ended: bool,
    /// Why it did not finish, in words; empty if it did.
    pub why: String,
}

/// Something in a run worth a look.
#[derive(Clone, Debug, Serialize)]
pub struct Warning {
    /// `rto_backed_off`, `no_rtt_sample` or `queue_drops`.
    pub kind: &'static str,
    /// What it concerns: `conn 3 (ftp0)` or `link satellite:ab`.
    pub subject: String,
    pub message: String,
}

pub fn app_rows(
    sim: &Simulation,
    transfers: &[TransferRow],
    stalls: &[StallRow],
    end_s: f64,
) -> Vec<AppRow> {
    let mut rows: Vec<AppRow> = sim
        .apps
        .iter()
        .enumerate()
        .map(|(a, slot)| AppRow {
            app: a as u32,
            app_name: slot.name.clone(),
            kind: slot.app.kind().to_string(),
            transfers: 0,
            done: 0,
            aborted: 0,
            unfinished: 0,
            ongoing: 0,
            finished: slot.app.is_done(),
            open_ended: slot.app.is_open_ended(),
            why: String::new(),
        })
        .collect();
    // The first aborted transfer of each application, to name.
    let mut first_abort: Vec<Option<&TransferRow>> = vec![None; rows.len()];
    for t in transfers {
        let r = &mut rows[t.app as usize];
        r.transfers += 1;
        match t.outcome {
            Outcome::Done => r.done += 1,
            Outcome::Aborted => {
                r.aborted += 1;
                first_abort[t.app as usize].get_or_insert(t);
            }
            Outcome::Unfinished => r.unfinished += 1,
            Outcome::Ongoing => r.ongoing += 1,
        }
    }
    for (r, aborted) in rows.iter_mut().zip(first_abort) {
        let limit = sim.apps[r.app as usize].tcp.max_retransmissions;
        r.why = why(r, aborted.map(|t| &stalls[t.conn as usize]), limit, end_s);
    }
    rows
}

fn plural(n: u32, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

fn why(r: &AppRow, aborted: Option<&StallRow>, limit: u32, end_s: f64) -> String {
    let mut parts = Vec::new();
    if let Some(st) = aborted {
        let first = if r.aborted > 1 { "the first: " } else { "" };
        parts.push(format!(
            "{} aborted ({first}conn {}: the {} gave up at {:.3} s after {} timeouts in a row, \
             max_retransmissions = {limit})",
            plural(r.aborted, "transfer"),
            st.conn,
            st.aborted_side.unwrap_or("?"),
            st.aborted_s.unwrap_or(f64::NAN),
            st.abort_timeouts.unwrap_or(0),
        ));
    }
    if r.unfinished > 0 {
        parts.push(format!(
            "{} still under way when the run ended at its duration ({end_s} s)",
            plural(r.unfinished, "transfer")
        ));
    }
    if r.ongoing > 0 && parts.is_empty() {
        // Not a failure: say so, so that no one reads it as one.
        return format!(
            "no set amount of work ({}): still sending when the run ended at {end_s} s, \
             which is no failure",
            match r.kind.as_str() {
                "bulk" => "bulk without bytes",
                "http" => "http without pages",
                _ => "web without transfers",
            }
        );
    }
    if parts.is_empty() && !r.finished && !r.open_ended {
        parts.push(format!(
            "the run ended at {end_s} s before it started all its transfers ({} started)",
            r.transfers
        ));
    }
    parts.join("; ")
}

pub fn warnings(flows: &[FlowRow], links: &[LinkRow], stalls: &[StallRow]) -> Vec<Warning> {
    let mut out = Vec::new();
    for (st, f) in stalls.iter().zip(flows) {
        let subject = || format!("conn {} ({})", st.conn, f.app_name);
        if st.max_backed_off_rto_s > RTO_WARNING_S {
            out.push(Warning {
                kind: "rto_backed_off",
                subject: subject(),
                message: format!(
                    "RTO backed off to {:.1} s (above {RTO_WARNING_S} s)",
                    st.max_backed_off_rto_s
                ),
            });
        }
        if let Some(srtt) = f.srtt_s.filter(|&s| s > 0.0) {
            let rtts = st.longest_rtt_sample_gap_s / srtt;
            if rtts > SAMPLE_GAP_WARNING_RTTS {
                out.push(Warning {
                    kind: "no_rtt_sample",
                    subject: subject(),
                    message: format!(
                        "no RTT sample for {:.1} s with data outstanding ({rtts:.0} smoothed \
                         RTTs of {srtt:.3} s)",
                        st.longest_rtt_sample_gap_s
                    ),
                });
            }
        }
    }
    for l in links {
        let offered = l.stats.enqueued_packets;
        let dropped = l.stats.queue_drops;
        if offered > 0 && dropped as f64 > QUEUE_DROP_WARNING_SHARE * offered as f64 {
            out.push(Warning {
                kind: "queue_drops",
                subject: format!("link {}", l.name),
                message: format!(
                    "the queue dropped {:.1} % of the packets offered to it ({dropped} of {offered})",
                    100.0 * dropped as f64 / offered as f64
                ),
            });
        }
    }
    out
}
