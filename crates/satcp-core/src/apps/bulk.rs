//! Long-lived bulk transfer: the client connects and the server sends
//! `bytes` (or, without a size, more than the run can carry) and closes.

use super::{AppCtx, Application, ConnId, Side, Transfer};
use crate::engine::Duration;
use crate::tcp::Notice;

/// Stands for "unlimited": far more than any run can deliver.
const UNLIMITED: u64 = 1 << 50;

pub struct BulkParams {
    pub bytes: Option<u64>,
    pub start: Duration,
}

pub struct Bulk {
    p: BulkParams,
    transfers: Vec<Transfer>,
    received: u64,
}

impl Bulk {
    pub fn new(p: BulkParams) -> Bulk {
        Bulk {
            p,
            transfers: Vec::new(),
            received: 0,
        }
    }
}

impl Application for Bulk {
    fn kind(&self) -> &'static str {
        "bulk"
    }

    fn start(&mut self, ctx: &mut AppCtx) {
        ctx.timer(ctx.now + self.p.start, 0);
    }

    fn on_timer(&mut self, _token: u64, ctx: &mut AppCtx) {
        let conn = ctx.open();
        self.transfers.push(Transfer {
            index: 0,
            conn,
            start: ctx.now,
            end: None,
            bytes: self.p.bytes.unwrap_or(0),
        });
    }

    fn on_notice(&mut self, conn: ConnId, side: Side, notice: Notice, ctx: &mut AppCtx) {
        match (side, notice) {
            (Side::Server, Notice::Connected) => {
                ctx.write(conn, Side::Server, self.p.bytes.unwrap_or(UNLIMITED));
                if self.p.bytes.is_some() {
                    ctx.close(conn, Side::Server);
                }
            }
            (Side::Client, Notice::Delivered(n)) => self.received += n,
            (Side::Client, Notice::PeerClosed) => {
                self.transfers[0].end = Some(ctx.now);
                ctx.close(conn, Side::Client);
            }
            _ => {}
        }
    }

    fn is_done(&self) -> bool {
        self.transfers.first().is_some_and(|t| t.end.is_some())
    }

    fn is_open_ended(&self) -> bool {
        self.p.bytes.is_none()
    }

    fn transfers(&self) -> &[Transfer] {
        &self.transfers
    }
}
