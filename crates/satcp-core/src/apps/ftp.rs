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
            let at = ctx.now + self.p.start + Duration(self.p.inter_request.0 * i as u64);
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
