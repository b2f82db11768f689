//! Loss that follows a schedule (`errors.loss_schedule = [[time_s, p],
//! ...]`): each packet whose transmission ends at t is lost with the
//! probability in force at t, on top of the memoryless error model. An
//! orbit's handover outages are a schedule of 1s and 0s. Probabilities 0
//! and 1 draw nothing; the draws come from their own stream
//! (`loss-schedule/<link>/<dir>`).

use super::schedule::{self, Schedule};
use crate::engine::{RngStream, SimTime};
use crate::error::{probability, ScenarioError};

pub struct ScheduledLoss {
    schedule: Schedule,
    rng: RngStream,
}

impl ScheduledLoss {
    /// Checks the schedule's points (paths relative to it, `[1][1]`).
    pub fn validate(points: &[[f64; 2]]) -> Result<(), ScenarioError> {
        schedule::check(points, probability)
    }

    pub fn new(points: &[[f64; 2]], rng: RngStream) -> ScheduledLoss {
        ScheduledLoss {
            schedule: Schedule::new(points),
            rng,
        }
    }

    /// Whether a packet whose transmission ends `now` is lost.
    pub fn lost(&mut self, now: SimTime) -> bool {
        let p = self.schedule.at(now);
        p >= 1.0 || (p > 0.0 && self.rng.bernoulli(p))
    }
}
