//! The discrete-event engine: time, the event list, random streams and the
//! math the models share.
//! Nothing here knows about networks or TCP.

pub mod event_list;
pub mod event_queue;
pub mod heap;
pub mod math;
pub mod prefetch;
pub mod rng;
pub mod time;
pub mod timer_calendar;

pub use event_queue::EventQueue;
pub use rng::RngStream;
pub use time::{Duration, SimTime};
