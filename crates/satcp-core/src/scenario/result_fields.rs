//! A run's results cut down to the fields a caller reads, and the names
//! of the fields each table's rows have.
//!
//! A sweep of thousands of short runs reads a dozen numbers of each: the
//! whole results, turned into Python objects, cost more than the run
//! (issue 33). `FieldSet` keeps only the named fields, so the caller
//! parses a few hundred bytes instead of a few kilobytes.

use super::projection::Picked;
use super::results::{FlowRow, LinkRow, RunResult, TransferRow};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Fields to keep, given as dotted paths ("events", "flows.goodput_bps",
/// "flows.server.timeouts"): a path through a list applies to each of its
/// elements, and a path that ends at an object keeps the whole object. A
/// name the results do not have is left out (the caller knows which it
/// asked for).
#[derive(Debug, Default, PartialEq)]
pub struct FieldSet {
    /// Keep the value whole (a path ended here).
    whole: bool,
    children: BTreeMap<String, FieldSet>,
}

impl FieldSet {
    pub fn new<S: AsRef<str>>(paths: &[S]) -> FieldSet {
        let mut root = FieldSet::default();
        for path in paths {
            let mut node = &mut root;
            for key in path.as_ref().split('.') {
                node = node.children.entry(key.to_string()).or_default();
            }
            node.whole = true;
        }
        root
    }

    /// The part of `value` these fields name.
    pub fn project(&self, value: &Value) -> Value {
        if self.whole {
            return value.clone();
        }
        match value {
            Value::Object(m) => Value::Object(
                self.children
                    .iter()
                    .filter_map(|(k, sub)| m.get(k).map(|v| (k.clone(), sub.project(v))))
                    .collect::<Map<String, Value>>(),
            ),
            Value::Array(items) => Value::Array(items.iter().map(|v| self.project(v)).collect()),
            other => other.clone(),
        }
    }

    /// The fields of `results` these name, as JSON text, in the order the
    /// results have them (`projection`: only what is named is serialized).
    pub fn project_results(&self, results: &RunResult) -> String {
        serde_json::to_string(&Picked {
            value: results,
            fields: self,
        })
        .expect("results serialize")
    }

    /// Whether the value here is kept whole (a path ended here).
    pub fn is_whole(&self) -> bool {
        self.whole
    }

    /// The fields to keep of an enum variant's data: those under its name,
    /// or none.
    pub fn variant(&self, name: &str) -> &FieldSet {
        static NOTHING: FieldSet = FieldSet {
            whole: false,
            children: BTreeMap::new(),
        };
        self.child(name).unwrap_or(&NOTHING)
    }

    /// The fields to keep of the field `name` (None: it is left out).
    pub fn child(&self, name: &str) -> Option<&FieldSet> {
        self.children.get(name)
    }
}

/// One row of each table with every field the row type always has (the
/// variant's and recovery's own counters aside, which vary by variant), as
/// JSON: `{"transfers": {...}, "flows": {...}, "links": {...}}`. A caller
/// checks the columns it is asked for against these before any run.
pub fn row_templates() -> String {
    serde_json::json!({
        "transfers": TransferRow::default(),
        "flows": FlowRow::default(),
        "links": LinkRow::default(),
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample() -> Value {
        json!({
            "events": 26,
            "name": "x",
            "flows": [
                {"goodput_bps": 1.0, "conn": 0, "server": {"timeouts": 2, "undos": 0}},
                {"goodput_bps": 3.0, "conn": 1, "server": {"timeouts": 0, "undos": 1}},
            ],
            "stalls": [{"conn": 0, "aborted_s": null}],
        })
    }

    #[test]
    fn keeps_only_the_named_fields_through_lists() {
        let f = FieldSet::new(&["events", "flows.goodput_bps", "flows.server.timeouts"]);
        assert_eq!(
            f.project(&sample()),
            json!({
                "events": 26,
                "flows": [
                    {"goodput_bps": 1.0, "server": {"timeouts": 2}},
                    {"goodput_bps": 3.0, "server": {"timeouts": 0}},
                ],
            })
        );
    }

    #[test]
    fn a_path_ending_at_an_object_keeps_it_whole_and_wins_over_deeper_ones() {
        let f = FieldSet::new(&["stalls", "flows.server", "flows.server.timeouts"]);
        let v = f.project(&sample());
        assert_eq!(v["stalls"], sample()["stalls"]);
        assert_eq!(v["flows"][1]["server"], json!({"timeouts": 0, "undos": 1}));
    }

    #[test]
    fn unknown_names_are_left_out_and_no_fields_give_an_empty_object() {
        let f = FieldSet::new(&["nope", "flows.nope"]);
        assert_eq!(f.project(&sample()), json!({"flows": [{}, {}]}));
        assert_eq!(FieldSet::new::<&str>(&[]).project(&sample()), json!({}));
    }

    #[test]
    fn templates_have_every_row_field() {
        let t: Value = serde_json::from_str(&row_templates()).unwrap();
        assert!(t["transfers"]["response_time_s"].is_null());
        assert_eq!(t["transfers"]["outcome"], "done");
        assert!(t["flows"]["server"]["retransmitted_segments"].is_u64());
        assert!(t["links"]["stats"]["queue_drops"].is_u64());
    }
}
