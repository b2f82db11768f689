//! A run's results cut down to the fields a caller reads, and the names
//! of the fields each table's rows have.
//!
//! A sweep of thousands of short runs reads a dozen numbers of each: the
//! whole results, turned into Python objects, cost more than the run
//! (issue 33). `FieldSet` keeps only the named fields, so the caller
//! parses a few hundred bytes instead of a few kilobytes.

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

    /// The fields of `results` these name, as JSON text. Only the tables
    /// named are serialized (a flow's row alone has some sixty numbers).
    pub fn project_results(&self, results: &RunResult) -> String {
        let out: Map<String, Value> = self
            .children
            .iter()
            .filter_map(|(k, sub)| top_level(results, k).map(|v| (k.clone(), sub.project(&v))))
            .collect();
        Value::Object(out).to_string()
    }
}

/// One top-level field of the results, serialized alone; None for a name
/// the results do not have (`every_top_level_field_is_known` checks the
/// list against the serialized results).
fn top_level(r: &RunResult, key: &str) -> Option<Value> {
    let v = match key {
        "name" => serde_json::to_value(&r.name),
        "seed" => serde_json::to_value(r.seed),
        "end_time_s" => serde_json::to_value(r.end_time_s),
        "events" => serde_json::to_value(r.events),
        "apps_done" => serde_json::to_value(r.apps_done),
        "transfers" => serde_json::to_value(&r.transfers),
        "flows" => serde_json::to_value(&r.flows),
        "links" => serde_json::to_value(&r.links),
        "flow_series" => serde_json::to_value(&r.flow_series),
        "link_series" => serde_json::to_value(&r.link_series),
        "stalls" => serde_json::to_value(&r.stalls),
        "apps" => serde_json::to_value(&r.apps),
        "warnings" => serde_json::to_value(&r.warnings),
        _ => return None,
    };
    Some(v.expect("results serialize"))
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
