//! FTP file download (thesis Table 7.2): the client opens a connection and
//! sends a request; the server answers with the file and closes. The
//! download response time (thesis Sec. 7.4.1) runs from the client's SYN to
//! the arrival of the server's FIN after the last file byte, so it includes
//! connection set-up and the server's half of the teardown.

use super::transfers::Transfers;
use super::{AppCtx, Application, ConnId, Side, Transfer};
use crate::engine::Duration;
use crate::tcp::Notice;

pub struct FtpParams {
    pub file_bytes: u64,
    pub request_bytes: u64,
    pub start: Duration,
    /// Number of files downloaded one after another.
    pub files: u32,
    /// Time between the start of one download and the next.
    pub inter_request: Duration,
}

struct Download {
    request_received: u64,
    file_received: u64,
    served: bool,
}

pub struct Ftp {
    p: FtpParams,
    transfers: Transfers,
    state: Vec<Download>,
}

impl Ftp {
    pub fn new(p: FtpParams) -> Ftp {
        Ftp {
            p,
            transfers: Transfers::default(),
            state: Vec::new(),
        }
    }
}

impl Application for Ftp {
    fn kind(&self) -> &'static str {
        "ftp"
    }

    fn start(&mut self, ctx: &mut AppCtx) {
        for i in 0..self.p.files {
            // Saturating, as time arithmetic is: a spacing far beyond any
            // run (10^12 s is valid) puts the later downloads at the end
            // of time, not, wrapped around, somewhere before it.
            let spacing = Duration(self.p.inter_request.0.saturating_mul(i as u64));
            let at = ctx.now + self.p.start + spacing;
            ctx.timer(at, i as u64);
        }
    }

    fn on_timer(&mut self, token: u64, ctx: &mut AppCtx) {
        let conn = ctx.open();
        self.transfers.push(Transfer {
            index: token as u32,
            conn,
            start: ctx.now,
            end: None,
            bytes: self.p.file_bytes,
        });
        self.state.push(Download {
            request_received: 0,
            file_received: 0,
            served: false,
        });
    }

    fn on_notice(&mut self, conn: ConnId, side: Side, notice: Notice, ctx: &mut AppCtx) {
        let Some(i) = self.transfers.index_of(conn) else {
            return;
        };
        let d = &mut self.state[i];
        match (side, notice) {
            (Side::Client, Notice::Connected) => {
                ctx.write(conn, Side::Client, self.p.request_bytes)
            }
            (Side::Server, Notice::Delivered(n)) => {
                d.request_received += n;
                if !d.served && d.request_received >= self.p.request_bytes {
                    d.served = true;
                    ctx.write(conn, Side::Server, self.p.file_bytes);
                    ctx.close(conn, Side::Server);
                }
            }
            (Side::Client, Notice::Delivered(n)) => d.file_received += n,
            (Side::Client, Notice::PeerClosed) => {
                if d.file_received >= self.p.file_bytes {
                    self.transfers.set_end(i, ctx.now);
                }
                ctx.close(conn, Side::Client);
            }
            _ => {}
        }
    }

    fn is_done(&self) -> bool {
        self.transfers.len() == self.p.files as usize && self.transfers.all_settled()
    }

    fn transfers(&self) -> &[Transfer] {
        &self.transfers
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::AppAction;
    use crate::engine::SimTime;

    /// The downloads' start times: the timers `start` sets.
    fn starts(files: u32, inter_request_s: f64) -> Vec<SimTime> {
        let mut ftp = Ftp::new(FtpParams {
            file_bytes: 1000,
            request_bytes: 100,
            start: Duration::from_secs_f64(1.0),
            files,
            inter_request: Duration::from_secs_f64(inter_request_s),
        });
        let (mut actions, mut next_conn) = (Vec::new(), 0);
        ftp.start(&mut AppCtx::new(
            SimTime::ZERO,
            &mut actions,
            &mut next_conn,
        ));
        actions
            .iter()
            .map(|a| match a {
                AppAction::Timer(at, _) => *at,
                _ => panic!("start only sets timers"),
            })
            .collect()
    }

    #[test]
    fn downloads_start_one_spacing_apart() {
        let s = SimTime::from_secs_f64;
        assert_eq!(starts(3, 0.5), vec![s(1.0), s(1.5), s(2.0)]);
    }

    /// A valid but huge spacing (the scenario fuzzer's 10^12 s, beyond
    /// u64 nanoseconds) leaves the later downloads at the end of time, in
    /// order; it overflowed (debug builds panicked, release builds wrapped).
    #[test]
    fn a_spacing_beyond_the_end_of_time_saturates() {
        let t = starts(4, 1e12);
        assert_eq!(t[0], SimTime::from_secs_f64(1.0));
        assert!(t[1..].iter().all(|&at| at == SimTime(u64::MAX)), "{t:?}");
    }
}
