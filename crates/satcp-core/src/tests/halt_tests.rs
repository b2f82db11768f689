//! The event loop's safety net (`Simulation::check_timer_progress`): a
//! variant whose timer, once due, stays due without sending anything would
//! be woken at the same instant for ever. With checking on, the run records
//! the violation and halts instead. (Without the halt, this test would not
//! end.)

use crate::engine::SimTime;
use crate::protocols::reno::Reno;
use crate::tcp::congestion::CongestionControl;
use crate::tcp::recovery::NewRenoRecovery;
use crate::tcp::send_state::SendState;
use crate::tcp::variant::{EndpointParts, VariantFactory};
use crate::tcp::Recovery;

/// Reno with a timer due at 1 s for ever, which does nothing when it fires.
struct StuckTimer(Reno);

impl CongestionControl for StuckTimer {
    fn name(&self) -> &'static str {
        "stuck-timer"
    }
    fn on_ack(&mut self, s: &mut SendState, acked: u64, now: SimTime) {
        self.0.on_ack(s, acked, now);
    }
    fn ssthresh(&mut self, s: &SendState) -> u64 {
        self.0.ssthresh(s)
    }
    fn on_timeout(&mut self, s: &mut SendState) {
        self.0.on_timeout(s);
    }
    fn next_timer(&self) -> Option<SimTime> {
        Some(SimTime::from_secs_f64(1.0))
    }
}

struct StuckTimerFactory;

impl VariantFactory for StuckTimerFactory {
    fn endpoint(&self, _recovery: Recovery) -> EndpointParts {
        EndpointParts::new(
            Box::new(StuckTimer(Reno::new())),
            Box::new(NewRenoRecovery),
            false,
        )
    }
}

#[test]
fn a_timer_that_stays_due_halts_a_checked_run() {
    let text = r#"{"name": "stuck", "seed": 1, "duration_s": 30.0,
        "nodes": ["server", "client"],
        "links": [{"a": "server", "b": "client", "rate_bps": 1e6, "delay_s": 0.25}],
        "apps": [{"kind": "ftp", "client": "client", "server": "server", "file_bytes": 1000000}]}"#;
    let s = crate::parse(text).expect("the scenario parses");
    let mut sim = crate::scenario::build::build(&s);
    sim.apps[0].variant.factory = std::sync::Arc::new(StuckTimerFactory);
    sim.check_invariants(true);
    sim.run(SimTime::from_secs_f64(30.0), true);
    let v = sim.violations();
    assert_eq!(v.len(), 1, "{v:#?}");
    assert!(v[0].starts_with("t = 1 s,"), "{}", v[0]);
    assert!(v[0].ends_with("run halted"), "{}", v[0]);
    assert!(!sim.apps_done(), "the 1 MB download cannot be done by 1 s");
}
