//! Repeated web transfers (TCP-Peach paper, Sec. V-A, Figs. 14-16): the
//! server sends a file of a fixed size over a new connection, waits a think
//! time once it has all the ACKs, and sends the next one over another new
//! connection. With zero think time the next transfer starts as soon as the
//! last one is acknowledged (Figs. 14-15); Fig. 16 draws the think time from
//! an exponential distribution of mean DT.
//!
//! There is no request: the client opens the connection, the server writes
//! the file and closes, the client closes when the server's FIN arrives. A
//! transfer runs from the client's SYN to the server's `Finished`: its FIN
//! (and so every data byte) acknowledged and the client's FIN received,
//! i.e. when the sender has every ACK of the file.

use super::transfers::Transfers;
use super::{AppCtx, Application, ConnId, Side, Transfer};
use crate::engine::{Duration, RngStream};
use crate::tcp::Notice;

/// How think times are drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ThinkTime {
    /// Exponential with this mean (Fig. 16's DT); a zero mean gives none.
    Exponential(Duration),
    /// Always this long (tests, worked examples).
    Fixed(Duration),
}

pub struct WebParams {
    /// Application bytes per transfer (S segments of the app's MSS).
    pub transfer_bytes: u64,
    pub think_time: ThinkTime,
    pub start: Duration,
    /// Transfers to make (None: until the run ends).
    pub transfers: Option<u32>,
    /// The app's own random stream, for the think times.
    pub rng: RngStream,
}

pub struct Web {
    p: WebParams,
    transfers: Transfers,
}

impl Web {
    pub fn new(p: WebParams) -> Web {
        Web {
            p,
            transfers: Transfers::default(),
        }
    }

    fn think(&mut self) -> Duration {
        match self.p.think_time {
            ThinkTime::Fixed(d) => d,
            ThinkTime::Exponential(mean) if mean.0 == 0 => Duration::ZERO,
            ThinkTime::Exponential(mean) => {
                Duration::from_secs_f64(self.p.rng.exponential(mean.as_secs_f64()))
            }
        }
    }

    /// Transfer `i`'s connection aborted: the transfer is given up (once;
    /// an ended one stays ended) and the next one follows.
    fn give_up(&mut self, i: usize, ctx: &mut AppCtx) {
        if self.transfers.abort(i) {
            self.next_after_think(ctx);
        }
    }

    /// The current transfer is over (completed or aborted): the next one
    /// starts after a think time.
    fn next_after_think(&mut self, ctx: &mut AppCtx) {
        let next = self.transfers.len() as u64;
        if self.p.transfers.is_some_and(|n| next >= n as u64) {
            return;
        }
        let at = ctx.now + self.think();
        ctx.timer(at, next);
    }
}

impl Application for Web {
    fn kind(&self) -> &'static str {
        "web"
    }

    fn start(&mut self, ctx: &mut AppCtx) {
        if self.p.transfers != Some(0) {
            ctx.timer(ctx.now + self.p.start, 0);
        }
    }

    fn on_timer(&mut self, token: u64, ctx: &mut AppCtx) {
        let conn = ctx.open();
        self.transfers.push(Transfer {
            index: token as u32,
            conn,
            start: ctx.now,
            end: None,
            bytes: self.p.transfer_bytes,
        });
    }

    fn on_notice(&mut self, conn: ConnId, side: Side, notice: Notice, ctx: &mut AppCtx) {
        let Some(i) = self.transfers.index_of(conn) else {
            return;
        };
        match (side, notice) {
            (Side::Server, Notice::Connected) => {
                ctx.write(conn, Side::Server, self.p.transfer_bytes);
                ctx.close(conn, Side::Server);
            }
            (Side::Client, Notice::PeerClosed) => ctx.close(conn, Side::Client),
            (Side::Server, Notice::Finished) => {
                self.transfers.set_end(i, ctx.now);
                self.next_after_think(ctx);
            }
            // A connection given up by either side ends its transfer
            // unfinished; the workload goes on.
            (_, Notice::Aborted) => self.give_up(i, ctx),
            _ => {}
        }
    }

    fn is_done(&self) -> bool {
        self.p
            .transfers
            .is_some_and(|n| self.transfers.len() == n as usize && self.transfers.all_settled())
    }

    fn is_open_ended(&self) -> bool {
        self.p.transfers.is_none()
    }

    fn transfers(&self) -> &[Transfer] {
        &self.transfers
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::SimTime;

    fn web(think_time: ThinkTime) -> Web {
        Web::new(WebParams {
            transfer_bytes: 50_000,
            think_time,
            start: Duration::ZERO,
            transfers: None,
            rng: RngStream::new(1, "app/web0"),
        })
    }

    /// Exponential think times have the configured mean (Fig. 16's DT);
    /// fixed ones are exact; a zero mean draws nothing.
    #[test]
    fn think_times_follow_their_distribution() {
        let mut w = web(ThinkTime::Exponential(Duration::from_secs(5)));
        let n = 20_000;
        let draws: Vec<f64> = (0..n).map(|_| w.think().as_secs_f64()).collect();
        let mean = draws.iter().sum::<f64>() / n as f64;
        assert!((mean - 5.0).abs() < 0.1, "mean {mean}");
        // An exponential's median is mean x ln 2.
        let below = draws
            .iter()
            .filter(|&&d| d < 5.0 * std::f64::consts::LN_2)
            .count();
        assert!((below as f64 / n as f64 - 0.5).abs() < 0.02);
        let mut w = web(ThinkTime::Fixed(Duration::from_millis(1500)));
        assert_eq!(w.think(), Duration::from_millis(1500));
        let mut w = web(ThinkTime::Exponential(Duration::ZERO));
        let before = w.p.rng.clone().next_u64();
        assert_eq!(w.think(), Duration::ZERO);
        assert_eq!(w.p.rng.next_u64(), before, "no draw");
    }

    /// `is_done` counts a transfer settled once it ended or was aborted
    /// (the counts kept as notices come, against the definition itself).
    #[test]
    fn done_when_every_transfer_ended_or_was_aborted() {
        let mut w = web(ThinkTime::Fixed(Duration::ZERO));
        w.p.transfers = Some(3);
        let (mut actions, mut next_conn) = (Vec::new(), 0);
        let by_definition = |w: &Web| {
            w.transfers.len() == 3
                && (0..3).all(|i| w.transfers[i].end.is_some() || w.transfers.is_aborted(i))
        };
        let notices = [
            (Side::Server, Notice::Finished),
            (Side::Client, Notice::Aborted),
            // A second abort of the same transfer changes nothing.
            (Side::Server, Notice::Aborted),
            (Side::Server, Notice::Finished),
        ];
        let mut now = SimTime::ZERO;
        for (token, &(side, notice)) in [0, 1, 1, 2].iter().zip(&notices) {
            let mut ctx = AppCtx::new(now, &mut actions, &mut next_conn);
            if w.transfers.len() <= *token as usize {
                w.on_timer(*token, &mut ctx);
            }
            let conn = w.transfers[*token as usize].conn;
            assert!(!w.is_done());
            w.on_notice(conn, side, notice, &mut ctx);
            assert_eq!(w.is_done(), by_definition(&w), "after {notice:?}");
            now += Duration::from_secs(1);
        }
        assert!(w.is_done());
        let ended = w.transfers.iter().filter(|t| t.end.is_some()).count();
        assert_eq!((ended, w.transfers.settled()), (2, 3));
    }
}
