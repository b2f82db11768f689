//! One split connection at a proxy: two legs, each a TCP endpoint of the
//! proxy's node, and the rules that join them.
//!
//! - The leg facing the client listens (it answers the intercepted SYN);
//!   once its handshake is done the leg facing the server connects (PEPsal
//!   accepts, then connects).
//! - Bytes one leg delivers in order are written into the other leg.
//! - A FIN one leg receives closes the other leg (half-close by half-close).
//! - The buffer of a direction is what the proxy has received and the
//!   onward leg has not yet seen acknowledged (its unacknowledged bytes,
//!   sent or not, as a socket's send buffer in PEPsal): the receiving leg
//!   holds that much of its receive buffer, so its advertised window is
//!   the room left and shrinks to zero when the buffer is full.

use crate::engine::SimTime;
use crate::net::packet::NodeId;
use crate::tcp::{Notice, TcpConfig, TcpEndpoint, TcpOutput, VariantChoice};

/// A leg of a split connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leg {
    /// Faces the client: it speaks with the server's address.
    ClientSide,
    /// Faces the server: it speaks with the client's address.
    ServerSide,
}

impl Leg {
    pub fn other(self) -> Leg {
        match self {
            Leg::ClientSide => Leg::ServerSide,
            Leg::ServerSide => Leg::ClientSide,
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }

    pub fn name(self) -> &'static str {
        match self {
            Leg::ClientSide => "client-side",
            Leg::ServerSide => "server-side",
        }
    }
}

/// What a leg's notice makes the proxy do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LegAction {
    /// Open the leg toward the server.
    Connect(Leg),
    /// Write bytes into a leg.
    Write(Leg, u64),
    /// Close a leg (its FIN follows the data).
    Close(Leg),
}

/// The rule for a notice of `leg`.
pub fn on_notice(leg: Leg, n: Notice) -> Option<LegAction> {
    match (leg, n) {
        (Leg::ClientSide, Notice::Connected) => Some(LegAction::Connect(Leg::ServerSide)),
        (_, Notice::Delivered(bytes)) => Some(LegAction::Write(leg.other(), bytes)),
        (_, Notice::PeerClosed) => Some(LegAction::Close(leg.other())),
        _ => None,
    }
}

/// How one proxy on an application's route splits its connections: where
/// it is and what each leg runs (made once per application when the
/// scenario is built).
#[derive(Clone)]
pub struct RelayPlan {
    pub node: NodeId,
    /// The leg that crosses the satellite.
    pub satellite: Leg,
    /// Settings and variant of each leg (`Leg::index`).
    pub legs: [(TcpConfig, VariantChoice); 2],
}

impl RelayPlan {
    /// A new leg endpoint: it keeps delivered bytes until the other leg
    /// has them acknowledged; the client side listens.
    pub fn endpoint(&self, leg: Leg) -> TcpEndpoint {
        let (cfg, variant) = &self.legs[leg.index()];
        let mut ep = TcpEndpoint::from_parts(cfg, variant.endpoint());
        ep.hold_delivered();
        if leg == Leg::ClientSide {
            ep.listen();
        }
        ep
    }
}

/// A split connection's counters, per direction of the data (indexed by
/// the leg that receives it).
#[derive(Clone, Debug, Default)]
pub struct Relay {
    /// The application connection this one splits.
    pub conn: u32,
    /// The plan's index on the application's route.
    pub hop: u16,
    /// The most bytes the buffer held.
    pub max_buffered: [u64; 2],
    /// How often the buffer filled (the receiving leg's window closed).
    pub buffer_full: [u64; 2],
    /// The receiving leg's window is closed now.
    full: [bool; 2],
}

impl Relay {
    pub fn new(conn: u32, hop: u16) -> Relay {
        Relay {
            conn,
            hop,
            ..Relay::default()
        }
    }

    /// Brings the receiving leg's buffer to what the onward leg has not
    /// seen acknowledged: a window update may go out (into `out`).
    pub fn sync(
        &mut self,
        receiving: Leg,
        rx: &mut TcpEndpoint,
        onward: &TcpEndpoint,
        now: SimTime,
        out: &mut TcpOutput,
    ) {
        let buffered = onward.unacked_app_bytes();
        let i = receiving.index();
        self.max_buffered[i] = self.max_buffered[i].max(buffered);
        rx.set_unread(buffered, now, out);
        let full = rx.advertised_window() == 0;
        if full && !self.full[i] {
            self.buffer_full[i] += 1;
        }
        self.full[i] = full;
    }
}
