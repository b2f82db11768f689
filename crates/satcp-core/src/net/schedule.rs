//! A value that changes over time, step-wise: a link direction's delay or
//! rate following a table (a measured trace, or an orbit's geometry
//! computed per reconfiguration slot). Queries come with the simulation's
//! clock, which never goes back, so a cursor makes each O(1) amortized.

use crate::engine::SimTime;
use crate::error::{
    seconds, ScenarioError, MAX_DELAY_S, MAX_RATE_BPS, MAX_SIM_SECONDS, MIN_RATE_BPS,
};

#[derive(Clone, Debug)]
pub struct Schedule {
    /// (from when, value), times increasing; before the first time the
    /// first value holds.
    points: Vec<(SimTime, f64)>,
    cursor: usize,
}

impl Schedule {
    /// `points` as (seconds, value), in increasing time.
    pub fn new(points: &[[f64; 2]]) -> Schedule {
        Schedule {
            points: points
                .iter()
                .map(|p| (SimTime::from_secs_f64(p[0]), p[1]))
                .collect(),
            cursor: 0,
        }
    }

    /// The value in force at `now` (`now` never less than at the last call).
    pub fn at(&mut self, now: SimTime) -> f64 {
        while self.cursor + 1 < self.points.len() && self.points[self.cursor + 1].0 <= now {
            self.cursor += 1;
        }
        self.points[self.cursor].1
    }
}

/// Checks a schedule as written in a scenario: at least one point, times
/// zero or more and increasing, each value checked by `value` (which gets
/// the value's path, `[i][1]`). Paths are relative to the schedule.
/// The schema of a schedule (an optional list of [time_s, value] points,
/// the value within [lo, hi]): the ranges `check` enforces, stated per
/// coordinate so that the scenario reference shows them.
pub fn points_schema(lo: f64, hi: f64) -> schemars::Schema {
    schemars::json_schema!({
        "type": ["array", "null"],
        "items": {
            "type": "array",
            "minItems": 2,
            "maxItems": 2,
            "prefixItems": [
                {"type": "number", "minimum": 0.0, "maximum": MAX_SIM_SECONDS},
                {"type": "number", "minimum": lo, "maximum": hi},
            ],
            "items": false,
        },
    })
}

pub fn delay_points(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    points_schema(0.0, MAX_DELAY_S)
}

pub fn rate_points(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    points_schema(MIN_RATE_BPS, MAX_RATE_BPS)
}

pub fn probability_points(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    points_schema(0.0, 1.0)
}

pub fn check(
    points: &[[f64; 2]],
    value: impl Fn(&str, f64) -> Result<(), ScenarioError>,
) -> Result<(), ScenarioError> {
    if points.is_empty() {
        return Err(ScenarioError::new(
            "",
            "must have at least one [time_s, value] point",
        ));
    }
    for (i, p) in points.iter().enumerate() {
        let at = |k: usize| format!("[{i}][{k}]");
        seconds(&at(0), p[0])?;
        if i > 0 && p[0] <= points[i - 1][0] {
            return Err(crate::error::bad(
                at(0),
                p[0],
                "must be later than the point before",
            ));
        }
        value(&at(1), p[1])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_at_the_given_times() {
        let mut s = Schedule::new(&[[0.0, 1.0], [2.0, 5.0], [2.5, 3.0]]);
        let t = SimTime::from_secs_f64;
        assert_eq!(s.at(t(0.0)), 1.0);
        assert_eq!(s.at(t(1.999)), 1.0);
        assert_eq!(s.at(t(2.0)), 5.0);
        assert_eq!(s.at(t(2.4)), 5.0);
        assert_eq!(s.at(t(100.0)), 3.0);
        let mut late = Schedule::new(&[[1.0, 7.0], [3.0, 8.0]]);
        assert_eq!(
            late.at(t(0.5)),
            7.0,
            "the first value before the first time"
        );
    }
}
