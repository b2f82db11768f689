//! The one error type of scenario input: a field path and what is wrong
//! with it, and the value checks shared by the scenario validator and the
//! variants' and router functions' own settings.

use std::fmt;

/// A scenario that cannot run: `field` names where (a dotted path such as
/// `links[1].ab.errors.ber`), `message` says what is wrong.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioError {
    pub field: String,
    pub message: String,
}

impl ScenarioError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> ScenarioError {
        ScenarioError {
            field: field.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "invalid scenario: {}", self.message)
        } else {
            write!(f, "invalid scenario: {}: {}", self.field, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

impl ScenarioError {
    /// The same error, for a table found at `prefix` (`tcp.adalr` +
    /// `rwnd_mode` = `tcp.adalr.rwnd_mode`).
    pub fn under(self, prefix: &str) -> ScenarioError {
        let field = match (prefix, self.field.as_str()) {
            (p, "") => p.to_string(),
            ("", f) => f.to_string(),
            (p, f) if f.starts_with('[') => format!("{p}{f}"),
            (p, f) => format!("{p}.{f}"),
        };
        ScenarioError { field, ..self }
    }
}

/// An error for `field` whose `value` is wrong in the way `why` says.
pub fn bad(field: impl Into<String>, value: impl fmt::Display, why: &str) -> ScenarioError {
    ScenarioError::new(field, format!("{value} {why}"))
}

/// A number as an error message shows it: as written for ordinary
/// magnitudes, in exponent form for huge or tiny ones (1e300, not 301
/// digits).
pub fn number(v: f64) -> String {
    if v != 0.0 && v.is_finite() && !(1e-6..1e15).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        v.to_string()
    }
}

/// The largest number any setting accepts (a catch-all bound for fields
/// without a tighter one: nothing simulable needs more, and 1e300 would
/// overflow the arithmetic built on it).
pub const MAX_SETTING: f64 = 1e12;

/// The one range check every model's validation uses: `v` finite and in
/// `[lo, hi]`; the error names the field, the value and the range.
pub fn range(field: &str, v: f64, lo: f64, hi: f64) -> Result<(), ScenarioError> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(())
    } else {
        Err(bad(
            field,
            number(v),
            &format!("must be between {} and {}", number(lo), number(hi)),
        ))
    }
}

/// A whole-number setting in `[lo, hi]`.
pub fn count(field: &str, v: u64, lo: u64, hi: u64) -> Result<(), ScenarioError> {
    if (lo..=hi).contains(&v) {
        Ok(())
    } else {
        Err(bad(field, v, &format!("must be between {lo} and {hi}")))
    }
}

pub fn positive(field: &str, v: f64) -> Result<(), ScenarioError> {
    if v.is_finite() && v > 0.0 {
        at_most_max(field, v)
    } else {
        Err(bad(field, number(v), "must be a positive number"))
    }
}

fn at_most_max(field: &str, v: f64) -> Result<(), ScenarioError> {
    if v > MAX_SETTING {
        return Err(bad(field, number(v), "must be at most 1e12"));
    }
    Ok(())
}

/// The longest simulated time a scenario may name, seconds (about 31
/// years): the clock counts nanoseconds in 64 bits (584 years), and a time
/// beyond it would silently saturate; anything this long is a typo.
pub const MAX_SIM_SECONDS: f64 = 1e9;

/// A time in seconds (duration, start) the simulation clock can hold: zero
/// or more and at most `MAX_SIM_SECONDS`.
pub fn seconds(field: &str, v: f64) -> Result<(), ScenarioError> {
    non_negative(field, v)?;
    if v > MAX_SIM_SECONDS {
        return Err(bad(
            field,
            number(v),
            "must be at most 1e9 (seconds of simulated time)",
        ));
    }
    Ok(())
}

/// The longest one-way propagation delay, seconds (the Moon is 1.3 s
/// away; anything beyond a million seconds is a typo).
pub const MAX_DELAY_S: f64 = 1e6;

/// A propagation or added delay, seconds: 0 to `MAX_DELAY_S`.
pub fn delay(field: &str, v: f64) -> Result<(), ScenarioError> {
    range(field, v, 0.0, MAX_DELAY_S)
}

/// The slowest and fastest links satcp accepts, bits per second: rates
/// are whole bits per second, and a rate rounding to 0 would divide by
/// zero; anything above 1 Tb/s is a typo.
pub const MIN_RATE_BPS: f64 = 1.0;
pub const MAX_RATE_BPS: f64 = 1e12;

/// A transmission rate, bits per second: 1 to 1e12.
pub fn rate(field: &str, v: f64) -> Result<(), ScenarioError> {
    if v.is_finite() && (MIN_RATE_BPS..=MAX_RATE_BPS).contains(&v) {
        Ok(())
    } else {
        Err(bad(
            field,
            number(v),
            "must be between 1 and 1e12 (bits per second)",
        ))
    }
}

pub fn non_negative(field: &str, v: f64) -> Result<(), ScenarioError> {
    if v.is_finite() && v >= 0.0 {
        at_most_max(field, v)
    } else {
        Err(bad(field, number(v), "must be zero or more"))
    }
}

pub fn probability(field: &str, v: f64) -> Result<(), ScenarioError> {
    if (0.0..=1.0).contains(&v) {
        Ok(())
    } else {
        Err(bad(field, number(v), "must be between 0 and 1"))
    }
}

/// Deserializes a settings table, naming a failing field by its path in
/// the table; a missing table (null) gives the defaults.
pub fn typed<T: serde::de::DeserializeOwned + Default>(
    v: &serde_json::Value,
) -> Result<T, ScenarioError> {
    if v.is_null() {
        return Ok(T::default());
    }
    crate::scenario::tables_only::deserialize(v).map_err(path_error)
}

/// A deserialization error, named by the path where it happened.
pub fn path_error(e: serde_path_to_error::Error<serde_json::Error>) -> ScenarioError {
    let path = e.path().to_string();
    let field = if path == "." { String::new() } else { path };
    ScenarioError::new(field, e.into_inner().to_string())
}
