//! Applications: they open connections, write and close, and record
//! transfers (response times). An application object plays both the client
//! and the server side of its connections, like OPNET's application
//! definitions; it acts only through `AppCtx`, so it never touches TCP state.

pub mod bulk;
pub mod ftp;
pub mod http;
pub mod transfers;
pub mod web;

use crate::engine::SimTime;
use crate::tcp::Notice;

pub type ConnId = u32;
pub type AppId = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Client,
    Server,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppAction {
    /// Create connection `conn` between the app's client and server and
    /// send the client's SYN.
    Open(ConnId),
    Write(ConnId, Side, u64),
    Close(ConnId, Side),
    Timer(SimTime, u64),
}

/// One measured transfer: an FTP download, an HTTP page or a web transfer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transfer {
    pub index: u32,
    pub conn: ConnId,
    pub start: SimTime,
    pub end: Option<SimTime>,
    /// Application bytes the client receives in this transfer.
    pub bytes: u64,
}

pub struct AppCtx<'a> {
    pub now: SimTime,
    actions: &'a mut Vec<AppAction>,
    next_conn: &'a mut ConnId,
    /// Connection ids each `open` takes: the application's, and one per
    /// proxy on its route that splits it (`pep`), numbered right after.
    ids_per_open: ConnId,
}

impl<'a> AppCtx<'a> {
    pub fn new(now: SimTime, actions: &'a mut Vec<AppAction>, next_conn: &'a mut ConnId) -> Self {
        AppCtx {
            now,
            actions,
            next_conn,
            ids_per_open: 1,
        }
    }

    /// Each `open` takes `n` connection ids (see `ids_per_open`).
    pub fn with_ids_per_open(mut self, n: ConnId) -> Self {
        self.ids_per_open = n;
        self
    }
    pub fn open(&mut self) -> ConnId {
        let c = *self.next_conn;
        *self.next_conn += self.ids_per_open;
        self.actions.push(AppAction::Open(c));
        c
    }
    pub fn write(&mut self, conn: ConnId, side: Side, bytes: u64) {
        self.actions.push(AppAction::Write(conn, side, bytes));
    }
    pub fn close(&mut self, conn: ConnId, side: Side) {
        self.actions.push(AppAction::Close(conn, side));
    }
    pub fn timer(&mut self, at: SimTime, token: u64) {
        self.actions.push(AppAction::Timer(at, token));
    }
}

pub trait Application {
    /// Short name for results ("ftp", "http", "bulk", "web").
    fn kind(&self) -> &'static str;
    /// Called once at time zero.
    fn start(&mut self, ctx: &mut AppCtx);
    fn on_notice(&mut self, conn: ConnId, side: Side, notice: Notice, ctx: &mut AppCtx);
    fn on_timer(&mut self, _token: u64, _ctx: &mut AppCtx) {}
    /// No more work will ever come (lets a run end early).
    fn is_done(&self) -> bool;
    /// It has no set amount of work (it goes on until the run ends), so a
    /// transfer still under way at the end is no failure.
    fn is_open_ended(&self) -> bool {
        false
    }
    fn transfers(&self) -> &[Transfer];
}
