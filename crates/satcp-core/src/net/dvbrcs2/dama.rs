//! Demand-assigned multiple access (DAMA, ETSI EN 301 545-2 Sec. 7.5 and
//! TR 101 545-4): each terminal asks the gateway for dedicated slots once
//! per superframe, and the gateway's scheduler shares each superframe's
//! dedicated slots among the terminals. Three capacity categories:
//!
//! - **CRA**, constant rate assignment: a rate given at log-on, granted
//!   every superframe without a request;
//! - **RBDC**, rate-based dynamic capacity: the terminal asks for the
//!   rate its queue receives (bytes that arrived over the last superframe,
//!   at most `rbdc_max_bps`); the gateway grants it every superframe until
//!   a newer request replaces it or `rbdc_timeout_s` after its arrival. A
//!   terminal sends a request when the rate changes, and repeats an
//!   unchanged one after half the timeout so that it does not lapse;
//! - **VBDC**, volume-based dynamic capacity: the terminal asks for its
//!   backlog less what it asked for before and was not yet granted; the
//!   gateway adds it to the terminal's volume and grants slots until the
//!   volume is served.
//!
//! The scheduler of superframe k runs when its plan must leave the gateway
//! to reach the terminals as the superframe starts (the forward delay
//! before it), with the requests that have arrived by then; it serves CRA
//! first, then RBDC, then VBDC, each class's slots a slot at a time to
//! each terminal that still wants some in turn (round robin, starting one
//! terminal further each superframe). Rates become slots per superframe
//! with a remainder carried to the next (a rate of half a slot is a slot
//! every other superframe). Slots no one asked for stay empty (no free
//! capacity assignment).

use crate::engine::{Duration, SimTime};
use std::collections::VecDeque;

/// A terminal's capacity categories.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RequestRules {
    pub cra_bps: f64,
    pub rbdc_max_bps: f64,
    pub rbdc_timeout: Duration,
    pub vbdc: bool,
}

/// A capacity request on its way to the gateway.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Request {
    pub terminal: usize,
    /// When it reaches the gateway.
    pub arrives: SimTime,
    pub kind: RequestKind,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RequestKind {
    Rbdc { bps: f64 },
    Vbdc { bytes: u64 },
}

/// A terminal's slots in one superframe, by category.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Grant {
    pub cra: u32,
    pub rbdc: u32,
    pub vbdc: u32,
}

impl Grant {
    pub fn slots(&self) -> u32 {
        self.cra + self.rbdc + self.vbdc
    }
}

/// The terminal's side: what it asked for.
#[derive(Clone, Debug)]
pub struct Requester {
    pub rules: RequestRules,
    /// Bytes that entered its queue since the last superframe started.
    pub arrived_bytes: u64,
    last_rbdc: Option<(f64, SimTime)>,
    /// VBDC bytes asked for and not yet granted.
    vbdc_outstanding: u64,
}

impl Requester {
    pub fn new(rules: RequestRules) -> Requester {
        Requester {
            rules,
            arrived_bytes: 0,
            last_rbdc: None,
            vbdc_outstanding: 0,
        }
    }

    /// The requests the terminal sends at `now`, a superframe's start
    /// `superframe` long after the last, with `backlog` bytes waiting;
    /// the arrivals counted since are cleared.
    pub fn requests(
        &mut self,
        now: SimTime,
        superframe: Duration,
        backlog: u64,
        mut send: impl FnMut(RequestKind),
    ) {
        let arrived = std::mem::take(&mut self.arrived_bytes);
        if self.rules.rbdc_max_bps > 0.0 {
            let bps =
                (arrived as f64 * 8.0 / superframe.as_secs_f64()).min(self.rules.rbdc_max_bps);
            let due = match self.last_rbdc {
                None => bps > 0.0,
                Some((last, at)) => {
                    last != bps || (bps > 0.0 && now.since(at).0 * 2 >= self.rules.rbdc_timeout.0)
                }
            };
            if due {
                self.last_rbdc = Some((bps, now));
                send(RequestKind::Rbdc { bps });
            }
        }
        if self.rules.vbdc && backlog > self.vbdc_outstanding {
            let bytes = backlog - self.vbdc_outstanding;
            self.vbdc_outstanding = backlog;
            send(RequestKind::Vbdc { bytes });
        }
    }

    /// A grant reached the terminal: its VBDC slots serve what it asked.
    pub fn granted(&mut self, g: Grant, slot_bytes: u32) {
        let bytes = u64::from(g.vbdc) * u64::from(slot_bytes);
        self.vbdc_outstanding = self.vbdc_outstanding.saturating_sub(bytes);
    }
}

/// The gateway's view of one terminal.
#[derive(Clone, Debug, Default)]
struct Demand {
    cra_slots: f64,
    cra_credit: f64,
    rbdc_slots: f64,
    rbdc_credit: f64,
    rbdc_expires: SimTime,
    vbdc_bytes: u64,
}

/// The gateway's scheduler.
#[derive(Clone, Debug)]
pub struct Scheduler {
    slot_bytes: u32,
    dama_slots: u32,
    /// Slots per superframe that one bit per second is.
    slots_per_bps: f64,
    rbdc_timeouts: Vec<Duration>,
    demands: Vec<Demand>,
    /// Requests in flight, in order of arrival.
    requests: VecDeque<Request>,
}

impl Scheduler {
    /// A scheduler of `dama_slots` slots of `slot_bytes` per superframe of
    /// `superframe`, for terminals of these rules.
    pub fn new(
        rules: &[RequestRules],
        dama_slots: u32,
        slot_bytes: u32,
        superframe: Duration,
    ) -> Scheduler {
        let slots_per_bps = superframe.as_secs_f64() / 8.0 / f64::from(slot_bytes);
        Scheduler {
            slot_bytes,
            dama_slots,
            slots_per_bps,
            rbdc_timeouts: rules.iter().map(|r| r.rbdc_timeout).collect(),
            demands: rules
                .iter()
                .map(|r| Demand {
                    cra_slots: r.cra_bps * slots_per_bps,
                    ..Demand::default()
                })
                .collect(),
            requests: VecDeque::new(),
        }
    }

    /// A request is sent (it arrives at `r.arrives`; requests are sent in
    /// order of arrival).
    pub fn send(&mut self, r: Request) {
        debug_assert!(self.requests.back().is_none_or(|b| b.arrives <= r.arrives));
        self.requests.push_back(r);
    }

    /// Requests in flight or waiting at the gateway.
    pub fn has_requests_in_flight(&self) -> bool {
        !self.requests.is_empty()
    }

    /// The grants of the superframe whose plan leaves the gateway at
    /// `at`, one per terminal; the round robin starts at terminal
    /// `first`.
    pub fn allocate(&mut self, at: SimTime, first: usize) -> Vec<Grant> {
        while let Some(r) = self.requests.front().filter(|r| r.arrives <= at).copied() {
            self.requests.pop_front();
            let d = &mut self.demands[r.terminal];
            match r.kind {
                RequestKind::Rbdc { bps } => {
                    d.rbdc_slots = bps * self.slots_per_bps;
                    d.rbdc_expires = r.arrives + self.rbdc_timeouts[r.terminal];
                }
                RequestKind::Vbdc { bytes } => d.vbdc_bytes += bytes,
            }
        }
        let n = self.demands.len();
        let mut grants = vec![Grant::default(); n];
        let mut free = self.dama_slots;
        // CRA: validated to fit.
        let cra: Vec<u32> = self
            .demands
            .iter_mut()
            .map(|d| whole_slots(&mut d.cra_credit, d.cra_slots))
            .collect();
        share(&mut free, &cra, first, |i, s| grants[i].cra = s);
        let rbdc: Vec<u32> = self
            .demands
            .iter_mut()
            .map(|d| {
                if d.rbdc_expires <= at {
                    d.rbdc_slots = 0.0;
                    d.rbdc_credit = 0.0;
                }
                whole_slots(&mut d.rbdc_credit, d.rbdc_slots)
            })
            .collect();
        share(&mut free, &rbdc, first, |i, s| grants[i].rbdc = s);
        for (i, d) in self.demands.iter_mut().enumerate() {
            if grants[i].rbdc < rbdc[i] {
                // Not served: the remainder is not owed.
                d.rbdc_credit = 0.0;
            }
        }
        let slot = u64::from(self.slot_bytes);
        let vbdc: Vec<u32> = self
            .demands
            .iter()
            .map(|d| d.vbdc_bytes.div_ceil(slot).min(u64::from(u32::MAX)) as u32)
            .collect();
        share(&mut free, &vbdc, first, |i, s| grants[i].vbdc = s);
        for (d, g) in self.demands.iter_mut().zip(&grants) {
            d.vbdc_bytes = d.vbdc_bytes.saturating_sub(u64::from(g.vbdc) * slot);
        }
        grants
    }
}

/// The whole slots of this superframe for a rate of `slots` per
/// superframe, the fraction carried in `credit`.
fn whole_slots(credit: &mut f64, slots: f64) -> u32 {
    *credit += slots;
    // A rate of exactly n slots is n, whatever the rounding of its
    // product.
    let whole = (*credit + 1e-9).floor();
    *credit = (*credit - whole).max(0.0);
    whole as u32
}

/// Shares `free` slots among the `wants`, a slot at a time to each that
/// still wants one in turn from `first`; `grant(i, slots)` gets each
/// terminal's share.
fn share(free: &mut u32, wants: &[u32], first: usize, mut grant: impl FnMut(usize, u32)) {
    let n = wants.len();
    let total: u64 = wants.iter().map(|&w| u64::from(w)).sum();
    if total <= u64::from(*free) {
        for (i, &w) in wants.iter().enumerate() {
            grant(i, w);
        }
        *free -= total as u32;
        return;
    }
    // Not enough: equal shares (water filling), the slots left over one
    // each in turn from `first`.
    let mut given = vec![0u32; n];
    let mut left = *free;
    loop {
        let hungry: Vec<usize> = (0..n).filter(|&i| given[i] < wants[i]).collect();
        if hungry.is_empty() || left == 0 {
            break;
        }
        let each = left / hungry.len() as u32;
        if each == 0 {
            for i in (0..n).map(|k| (first + k) % n) {
                if left == 0 {
                    break;
                }
                if given[i] < wants[i] {
                    given[i] += 1;
                    left -= 1;
                }
            }
            break;
        }
        for i in hungry {
            let g = each.min(wants[i] - given[i]);
            given[i] += g;
            left -= g;
        }
    }
    for (i, g) in given.into_iter().enumerate() {
        grant(i, g);
    }
    *free = left;
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUPERFRAME: Duration = Duration(100_000_000);

    fn rules(cra_bps: f64, rbdc_max_bps: f64, vbdc: bool) -> RequestRules {
        RequestRules {
            cra_bps,
            rbdc_max_bps,
            rbdc_timeout: Duration::from_secs(1),
            vbdc,
        }
    }

    fn at(ms: u64) -> SimTime {
        SimTime(ms * 1_000_000)
    }

    /// 12 kb/s in slots of 100 bytes every 0.1 s is 1.5 slots: 1, 2, 1, 2.
    #[test]
    fn cra_gives_its_rate_without_a_request() {
        let mut s = Scheduler::new(&[rules(12e3, 0.0, false)], 10, 100, SUPERFRAME);
        let slots: Vec<u32> = (0..4).map(|k| s.allocate(at(100 * k), 0)[0].cra).collect();
        assert_eq!(slots, [1, 2, 1, 2]);
    }

    /// A VBDC request of 950 bytes is 10 slots; with 4 free per superframe
    /// they come 4, 4, 2; then nothing.
    #[test]
    fn vbdc_serves_the_volume_asked() {
        let mut s = Scheduler::new(&[rules(0.0, 0.0, true)], 4, 100, SUPERFRAME);
        s.send(Request {
            terminal: 0,
            arrives: at(50),
            kind: RequestKind::Vbdc { bytes: 950 },
        });
        let slots: Vec<u32> = (0..5).map(|k| s.allocate(at(100 * k), 0)[0].vbdc).collect();
        assert_eq!(slots, [0, 4, 4, 2, 0]);
    }

    /// An RBDC rate of 16 kb/s (2 slots) holds until its timeout, 1 s
    /// after it arrived, unless replaced.
    #[test]
    fn rbdc_holds_until_replaced_or_timed_out() {
        let mut s = Scheduler::new(&[rules(0.0, 1e6, false)], 10, 100, SUPERFRAME);
        s.send(Request {
            terminal: 0,
            arrives: at(50),
            kind: RequestKind::Rbdc { bps: 16e3 },
        });
        let slots: Vec<u32> = (0..13)
            .map(|k| s.allocate(at(100 * k), 0)[0].rbdc)
            .collect();
        assert_eq!(slots, [0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0, 0]);
        s.send(Request {
            terminal: 0,
            arrives: at(1_250),
            kind: RequestKind::Rbdc { bps: 8e3 },
        });
        assert_eq!(s.allocate(at(1_300), 0)[0].rbdc, 1);
    }

    /// Two terminals ask for more than the 5 free slots after CRA: CRA
    /// first (terminal 1's 1 slot), then RBDC (terminal 0's 3), then VBDC
    /// shares what is left (1 slot, to the terminal whose turn it is).
    #[test]
    fn the_scheduler_serves_cra_then_rbdc_then_vbdc() {
        let r = [rules(0.0, 1e6, true), rules(8e3, 0.0, true)];
        let mut s = Scheduler::new(&r, 5, 100, SUPERFRAME);
        for (terminal, kind) in [
            (0, RequestKind::Rbdc { bps: 24e3 }),
            (0, RequestKind::Vbdc { bytes: 1000 }),
            (1, RequestKind::Vbdc { bytes: 1000 }),
        ] {
            s.send(Request {
                terminal,
                arrives: at(0),
                kind,
            });
        }
        let g = s.allocate(at(0), 1);
        assert_eq!(
            g[0],
            Grant {
                cra: 0,
                rbdc: 3,
                vbdc: 0
            }
        );
        assert_eq!(
            g[1],
            Grant {
                cra: 1,
                rbdc: 0,
                vbdc: 1
            }
        );
    }

    /// The terminal asks for its rate of arrivals and its backlog less what
    /// it asked for and was not granted yet.
    #[test]
    fn the_terminal_asks_for_its_arrivals_and_new_backlog() {
        let mut t = Requester::new(rules(0.0, 1e6, true));
        let mut sent = Vec::new();
        t.arrived_bytes = 1500;
        t.requests(at(0), SUPERFRAME, 1500, |k| sent.push(k));
        assert_eq!(
            sent,
            [
                RequestKind::Rbdc { bps: 120e3 },
                RequestKind::Vbdc { bytes: 1500 }
            ]
        );
        sent.clear();
        // Nothing new arrived: the rate falls to 0 (a request), the backlog
        // is already asked for (none).
        t.requests(at(100), SUPERFRAME, 1500, |k| sent.push(k));
        assert_eq!(sent, [RequestKind::Rbdc { bps: 0.0 }]);
        // 10 slots of 100 bytes granted: 500 bytes still outstanding; the
        // backlog grew to 2,000: 1,500 more asked.
        t.granted(
            Grant {
                cra: 0,
                rbdc: 0,
                vbdc: 10,
            },
            100,
        );
        sent.clear();
        t.requests(at(200), SUPERFRAME, 2000, |k| sent.push(k));
        assert_eq!(sent, [RequestKind::Vbdc { bytes: 1500 }]);
    }

    #[test]
    fn an_unchanged_rate_is_repeated_after_half_the_timeout() {
        let mut t = Requester::new(rules(0.0, 1e6, false));
        let mut times = Vec::new();
        for k in 0..12 {
            t.arrived_bytes = 100;
            t.requests(at(100 * k), SUPERFRAME, 0, |_| times.push(100 * k));
        }
        assert_eq!(times, [0, 500, 1000]);
    }
}
