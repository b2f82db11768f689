//! HTTP/1.1 page downloads (thesis Table 7.3): every `page_interval` the
//! client opens one persistent connection, requests the main object and,
//! once it has arrived, the embedded objects (pipelined: all requests at
//! once, or one after another when pipelining is off). The page response
//! time (thesis Sec. 7.4.2) runs from the client's SYN to the last byte of
//! the last embedded object. The client then closes the connection.

use super::transfers::Transfers;
use super::{AppCtx, Application, ConnId, Side, Transfer};
use crate::engine::Duration;
use crate::tcp::Notice;

pub struct HttpParams {
    pub main_object_bytes: u64,
    pub embedded_objects: u32,
    pub embedded_object_bytes: u64,
    pub request_bytes: u64,
    pub page_interval: Duration,
    pub start: Duration,
    /// Pages to fetch (None: until the run ends).
    pub pages: Option<u32>,
    pub pipelining: bool,
}

struct Page {
    /// Client: response bytes received so far.
    received: u64,
    /// Client: requests sent so far.
    requested: u32,
    /// Server: request bytes received and responses written.
    request_bytes_in: u64,
    responded: u32,
}

pub struct Http {
    p: HttpParams,
    transfers: Transfers,
    pages: Vec<Page>,
}

impl Http {
    pub fn new(p: HttpParams) -> Http {
        Http {
            p,
            transfers: Transfers::default(),
            pages: Vec::new(),
        }
    }

    fn objects(&self) -> u32 {
        1 + self.p.embedded_objects
    }

    fn object_size(&self, k: u32) -> u64 {
        if k == 0 {
            self.p.main_object_bytes
        } else {
            self.p.embedded_object_bytes
        }
    }

    fn page_bytes(&self) -> u64 {
        self.p.main_object_bytes + self.p.embedded_objects as u64 * self.p.embedded_object_bytes
    }

    /// Bytes of the first `k` objects.
    fn bytes_through(&self, k: u32) -> u64 {
        (0..k).map(|i| self.object_size(i)).sum()
    }
}

impl Application for Http {
    fn kind(&self) -> &'static str {
        "http"
    }

    fn start(&mut self, ctx: &mut AppCtx) {
        ctx.timer(ctx.now + self.p.start, 0);
    }

    fn on_timer(&mut self, token: u64, ctx: &mut AppCtx) {
        let index = token as u32;
        if self.p.pages.is_some_and(|n| index >= n) {
            return;
        }
        let conn = ctx.open();
        self.transfers.push(Transfer {
            index,
            conn,
            start: ctx.now,
            end: None,
            bytes: self.page_bytes(),
        });
        self.pages.push(Page {
            received: 0,
            requested: 0,
            request_bytes_in: 0,
            responded: 0,
        });
        ctx.timer(ctx.now + self.p.page_interval, token + 1);
    }

    fn on_notice(&mut self, conn: ConnId, side: Side, notice: Notice, ctx: &mut AppCtx) {
        let Some(i) = self.transfers.index_of(conn) else {
            return;
        };
        let req = self.p.request_bytes;
        match (side, notice) {
            (Side::Client, Notice::Connected) => {
                self.pages[i].requested = 1;
                ctx.write(conn, Side::Client, req);
            }
            (Side::Server, Notice::Delivered(n)) => {
                self.pages[i].request_bytes_in += n;
                while self.pages[i].responded < self.objects()
                    && self.pages[i].request_bytes_in >= (self.pages[i].responded as u64 + 1) * req
                {
                    let k = self.pages[i].responded;
                    self.pages[i].responded += 1;
                    ctx.write(conn, Side::Server, self.object_size(k));
                }
            }
            (Side::Client, Notice::Delivered(n)) => {
                self.pages[i].received += n;
                let got = self.pages[i].received;
                let main_done = got >= self.p.main_object_bytes;
                let requested = self.pages[i].requested;
                if main_done && requested < self.objects() {
                    // Next requests: all embedded ones at once when pipelining,
                    // otherwise the next one once the previous object is in.
                    let upto = if self.p.pipelining {
                        self.objects()
                    } else if got >= self.bytes_through(requested) {
                        requested + 1
                    } else {
                        requested
                    };
                    if upto > requested {
                        self.pages[i].requested = upto;
                        ctx.write(conn, Side::Client, (upto - requested) as u64 * req);
                    }
                }
                if got >= self.page_bytes() && self.transfers[i].end.is_none() {
                    self.transfers.set_end(i, ctx.now);
                    ctx.close(conn, Side::Client);
                }
            }
            (Side::Server, Notice::PeerClosed) => ctx.close(conn, Side::Server),
            _ => {}
        }
    }

    fn is_done(&self) -> bool {
        match self.p.pages {
            Some(n) => self.transfers.len() == n as usize && self.transfers.all_settled(),
            None => false,
        }
    }

    fn is_open_ended(&self) -> bool {
        self.p.pages.is_none()
    }

    fn transfers(&self) -> &[Transfer] {
        &self.transfers
    }
}
