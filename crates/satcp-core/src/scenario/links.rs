//! One `[[links]]` entry: `name`, `a`, `b`, settings that apply to both
//! directions, and the tables `ab` (a to b) and `ba` with each direction's
//! own. A direction's settings are the link-level table deep-merged with
//! its own, field by field (tables merge, any other value is replaced),
//! before anything is typed: each model then reads its table
//! (`net/link_config.rs`) without knowing where its fields came from, and
//! an error is traced back to the table where the user wrote the field
//! (`links[1].ab.errors.ber` or `links[1].errors.ber`).

use super::config::LinkConfig;
use crate::error::ScenarioError;
use crate::net::link_config::DirectionConfig;
use serde::Deserialize;
use serde_json::{Map, Value};

/// The fields that are the link's, not a direction's.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Ends {
    /// The link's name (results, `--pcap`, `--set links[NAME]`); default
    /// `<a>-<b>`.
    #[serde(default)]
    #[schemars(length(min = 1, max = super::validate::MAX_NAME_CHARS))]
    name: Option<String>,
    /// One end's node; direction `ab` goes from `a` to `b`.
    a: String,
    /// The other end's node (not `a`).
    b: String,
}

/// Reads links[i] (`f`).
pub fn parse(f: &str, v: Value) -> Result<LinkConfig, ScenarioError> {
    let Value::Object(mut link) = v else {
        return Err(ScenarioError::new(f, "must be a table"));
    };
    let ends: Map<String, Value> = ["name", "a", "b"]
        .into_iter()
        .filter_map(|k| link.remove(k).map(|v| (k.to_string(), v)))
        .collect();
    let ends: Ends = super::tables_only::deserialize(&Value::Object(ends))
        .map_err(|e| crate::error::path_error(e).under(f))?;
    let mut own = |dir: &str| match link.remove(dir) {
        None => Ok(Map::new()),
        Some(Value::Object(m)) => Ok(m),
        Some(_) => Err(ScenarioError::new(format!("{f}.{dir}"), "must be a table")),
    };
    let (ab, ba) = (own("ab")?, own("ba")?);
    for (table, at) in [
        (&link, f.to_string()),
        (&ab, format!("{f}.ab")),
        (&ba, format!("{f}.ba")),
    ] {
        renamed(table).map_err(|e| e.under(&at))?;
    }
    let parse_ab = DirectionConfig::parse(merged(&link, &ab));
    let parse_ba = DirectionConfig::parse(merged(&link, &ba));
    match (parse_ab, parse_ba) {
        (Ok(ab), Ok(ba)) => Ok(LinkConfig {
            name: ends.name,
            a: ends.a,
            b: ends.b,
            ab,
            ba,
        }),
        (Err(e), ba_result) => Err(written_where(f, "ab", e, &link, &ab, ba_result.err())),
        (Ok(_), Err(e)) => Err(written_where(f, "ba", e, &link, &ba, None)),
    }
}

/// `base` with `over` merged into it: tables field by field, recursively;
/// any other value of `over` replaces `base`'s.
fn merged(base: &Map<String, Value>, over: &Map<String, Value>) -> Map<String, Value> {
    let mut out = base.clone();
    for (k, v) in over {
        let merged = match (out.get(k), v) {
            (Some(Value::Object(b)), Value::Object(o)) => Value::Object(merged(b, o)),
            _ => v.clone(),
        };
        out.insert(k.clone(), merged);
    }
    out
}

/// Error `e`, found in direction `dir`'s merged settings with a path
/// relative to them, named where its field was written: in the
/// direction's table (`own`) or the link's. An error of a link-level field
/// that only this direction's settings make (the other direction has none,
/// or another) says which direction.
fn written_where(
    f: &str,
    dir: &str,
    e: ScenarioError,
    link: &Map<String, Value>,
    own: &Map<String, Value>,
    other_direction: Option<ScenarioError>,
) -> ScenarioError {
    let path = steps(&e.field);
    let (in_own, in_link) = (written(own, &path), written(link, &path));
    // The direction's table wins where it holds the field, or as much of
    // its path as the link's (a table the direction set, whose field took
    // its default); a field written nowhere is the link's.
    if in_own == path.len() || (in_own >= in_link && in_own > 0) {
        return e.under(&format!("{f}.{dir}"));
    }
    if other_direction.as_ref() == Some(&e) {
        return e.under(f);
    }
    let message = format!("{} (in direction {dir})", e.message);
    ScenarioError::new(e.field, message).under(f)
}

/// How many leading steps of `path` the table holds.
fn written(table: &Map<String, Value>, path: &[Step]) -> usize {
    let mut here: Option<&Value> = None;
    for (n, step) in path.iter().enumerate() {
        let next = match (here, step) {
            (None, Step::Key(k)) => table.get(k),
            (Some(Value::Object(m)), Step::Key(k)) => m.get(k),
            (Some(Value::Array(a)), Step::Index(i)) => a.get(*i),
            _ => None,
        };
        match next {
            Some(v) => here = Some(v),
            None => return n,
        }
    }
    path.len()
}

enum Step {
    Key(String),
    Index(usize),
}

/// `errors.loss_schedule[1][0]` -> errors, loss_schedule, 1, 0.
fn steps(field: &str) -> Vec<Step> {
    let mut out = Vec::new();
    for part in field.split('.').filter(|p| !p.is_empty()) {
        let mut pieces = part.split('[');
        if let Some(key) = pieces.next().filter(|k| !k.is_empty()) {
            out.push(Step::Key(key.to_string()));
        }
        for index in pieces {
            match index.trim_end_matches(']').parse() {
                Ok(i) => out.push(Step::Index(i)),
                Err(_) => return out,
            }
        }
    }
    out
}

/// Link settings that each model's table now holds: (the old flat key,
/// its path now).
const RENAMED: &[(&str, &str)] = &[
    ("red_min_th", "red.min_th"),
    ("red_max_th", "red.max_th"),
    ("red_max_p", "red.max_p"),
    ("red_wq", "red.wq"),
    ("red_gentle", "red.gentle"),
    ("ecn_marking", "red.ecn_marking"),
    ("priority_push_out", "priority.push_out"),
    ("ber", "errors.ber"),
    ("loss", "errors.loss"),
    ("duplicate", "errors.duplicate"),
    ("errors_data_only", "errors.data_only"),
    (
        "corrupted_reach_next_node",
        "errors.corrupted_reach_next_node",
    ),
    ("drop_seqs", "errors.drop_seqs"),
    ("loss_schedule", "errors.loss_schedule"),
    ("gilbert_elliott", "errors.gilbert_elliott"),
    ("reorder_delay", "reorder.delay"),
    ("reorder_delay_mean_s", "reorder.mean_s"),
    ("reorder_delay_sd_s", "reorder.sd_s"),
    ("arq_attempts", "arq.attempts"),
    ("arq_recover_all", "arq.recover_all"),
];

/// A table that still uses an old flat key: the error says the new one.
fn renamed(table: &Map<String, Value>) -> Result<(), ScenarioError> {
    let old_reorder = table.get("reorder").is_some_and(|v| !v.is_object());
    let hit = RENAMED
        .iter()
        .find(|(old, _)| table.contains_key(*old))
        .copied()
        .or(old_reorder.then_some(("reorder", "reorder.prob")));
    let Some((old, new)) = hit else {
        return Ok(());
    };
    let (model, field) = new.split_once('.').expect("a table and a field");
    Err(ScenarioError::new(
        old,
        format!("renamed to {new}: write {model} = {{ {field} = ... }}"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn link(extra: Value) -> Value {
        let mut v = json!({"a": "x", "b": "y", "rate_bps": 1e6});
        v.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        v
    }

    fn error(extra: Value) -> String {
        parse("links[1]", link(extra)).unwrap_err().to_string()
    }

    #[test]
    fn tables_merge_field_by_field() {
        let l = parse(
            "links[0]",
            link(json!({
                "delay_s": 0.25,
                "errors": {"ber": 1e-6, "gilbert_elliott": {"p": 0.01, "r": 0.2}},
                "arq": {"attempts": 3},
                "ab": {"errors": {"loss": 0.01, "gilbert_elliott": {"r": 0.5}}},
                "ba": {"rate_bps": 2e6, "errors": {"ber": 0.0}, "arq": {"recover_all": true}}
            })),
        )
        .unwrap();
        let (ab, ba) = (&l.ab, &l.ba);
        assert_eq!((ab.rate_bps, ba.rate_bps), (Some(1e6), Some(2e6)));
        assert_eq!((ab.delay_s, ba.delay_s), (0.25, 0.25));
        assert_eq!((ab.errors.ber, ab.errors.loss), (1e-6, 0.01));
        assert_eq!((ba.errors.ber, ba.errors.loss), (0.0, 0.0));
        let g = ab.errors.gilbert_elliott.unwrap();
        assert_eq!((g.p, g.r), (0.01, 0.5));
        assert_eq!(ba.errors.gilbert_elliott.unwrap().r, 0.2);
        assert_eq!((ab.arq.attempts, ab.arq.recover_all), (3, false));
        assert_eq!((ba.arq.attempts, ba.arq.recover_all), (3, true));
    }

    #[test]
    fn a_direction_replaces_lists_and_the_queue_kind() {
        let l = parse(
            "links[0]",
            link(json!({
                "queue": "red", "red": {"max_th": 30},
                "errors": {"drop_seqs": [1, 2]},
                "ab": {"errors": {"drop_seqs": [3]}},
                "ba": {"queue": "red", "red": {"min_th": 10}}
            })),
        )
        .unwrap();
        assert_eq!(l.ab.errors.drop_seqs, [3]);
        assert_eq!(l.ba.errors.drop_seqs, [1, 2]);
        assert_eq!((l.ab.queue.kind(), l.ba.queue.kind()), ("red", "red"));
    }

    #[test]
    fn errors_name_the_table_where_the_field_was_written() {
        let e = error(json!({"ab": {"errors": {"ber": 2}}}));
        assert_eq!(
            e,
            "invalid scenario: links[1].ab.errors.ber: 2 must be between 0 and 1"
        );
        // Written at link level, wrong in both directions: no direction named.
        let e = error(json!({"errors": {"ber": 2}}));
        assert_eq!(
            e,
            "invalid scenario: links[1].errors.ber: 2 must be between 0 and 1"
        );
        // Wrong in one direction only.
        let e = error(json!({"errors": {"ber": 2}, "ab": {"errors": {"ber": 0}}}));
        assert_eq!(
            e,
            "invalid scenario: links[1].errors.ber: 2 must be between 0 and 1 (in direction ba)"
        );
        assert!(
            error(json!({"errors": {"gilbert_elliott": {"p": 0.1, "r": 0.1}},
                             "ba": {"errors": {"gilbert_elliott": {"q": 1}}}}))
            .starts_with("invalid scenario: links[1].ba.errors.gilbert_elliott.q: unknown field")
        );
        assert!(error(json!({"ab": {"mtu": 1}})).contains("links[1].ab.mtu: unknown field"));
        assert!(error(json!({"mtu": 1})).contains("links[1].mtu: unknown field"));
        let e = error(json!({"delay_schedule": [[1.0, 0.1], [0.5, 0.1]]}));
        assert!(e.contains("links[1].delay_schedule[1][0]"), "{e}");
        let e = error(json!({"ba": {"delay_schedule": [[0.0, -0.1]]}}));
        assert!(e.contains("links[1].ba.delay_schedule[0][1]"), "{e}");
    }

    #[test]
    fn cross_field_rules_name_where_the_field_was_written() {
        // recover_all at link level, ARQ turned off in one direction.
        let e = error(json!({"arq": {"attempts": 3, "recover_all": true},
                             "ba": {"arq": {"attempts": 0}}}));
        assert!(
            e.contains("links[1].arq.recover_all: needs link-level ARQ"),
            "{e}"
        );
        assert!(e.ends_with("(in direction ba)"), "{e}");
        let e = error(json!({"ab": {"arq": {"recover_all": true}}}));
        assert!(e.contains("links[1].ab.arq.recover_all"), "{e}");
        // RED: the table where the thresholds were set.
        let e = error(json!({"queue": "red", "ab": {"red": {"min_th": 20}}}));
        assert!(
            e.contains("links[1].ab.red.max_th: 15 must be above min_th (20)"),
            "{e}"
        );
        let e = error(json!({"queue": "red", "red": {"max_th": 4}}));
        assert_eq!(
            e,
            "invalid scenario: links[1].red.max_th: 4 must be above min_th (5)"
        );
        // RED settings for a direction whose queue is another.
        let e = error(json!({"queue": "red", "red": {"gentle": true},
                             "ab": {"queue": "priority"}}));
        assert!(
            e.contains("links[1].red: applies only to queue = \"red\""),
            "{e}"
        );
        assert!(e.ends_with("(in direction ab)"), "{e}");
        let e = error(json!({"priority": {"push_out": false}}));
        assert!(
            e.contains("links[1].priority: applies only to queue = \"priority\""),
            "{e}"
        );
    }

    #[test]
    fn the_rate_is_needed_in_each_direction() {
        let no_rate = json!({"a": "x", "b": "y"});
        let e = parse("links[1]", no_rate).unwrap_err().to_string();
        assert_eq!(
            e,
            "invalid scenario: links[1].rate_bps: missing: set it on the link or in each direction"
        );
        let one = json!({"a": "x", "b": "y", "ab": {"rate_bps": 1e6}});
        let e = parse("links[1]", one).unwrap_err().to_string();
        assert!(e.ends_with("(in direction ba)"), "{e}");
        let both = json!({"a": "x", "b": "y", "ab": {"rate_bps": 1e6}, "ba": {"rate_bps": 1e5}});
        parse("links[1]", both).unwrap();
    }

    #[test]
    fn every_old_flat_key_names_its_new_place() {
        for (old, new) in RENAMED {
            let (model, field) = new.split_once('.').unwrap();
            for (extra, at) in [
                (json!({ *old: 1 }), format!("links[1].{old}")),
                (json!({"ab": { *old: 1 }}), format!("links[1].ab.{old}")),
                (json!({"ba": { *old: 1 }}), format!("links[1].ba.{old}")),
            ] {
                assert_eq!(
                    error(extra),
                    format!(
                        "invalid scenario: {at}: renamed to {new}: write {model} = {{ {field} = ... }}"
                    )
                );
            }
        }
        assert_eq!(
            error(json!({"ab": {"reorder": 0.01}})),
            "invalid scenario: links[1].ab.reorder: renamed to reorder.prob: write reorder = { prob = ... }"
        );
        // The new tables are not taken for old keys.
        parse("links[0]", link(json!({"reorder": {"prob": 0.01}}))).unwrap();
    }

    #[test]
    fn bad_entries() {
        assert_eq!(
            parse("links[0]", json!([1])).unwrap_err().to_string(),
            "invalid scenario: links[0]: must be a table"
        );
        let e = error(json!({"ab": 3}));
        assert_eq!(e, "invalid scenario: links[1].ab: must be a table");
        let e = parse("links[1]", json!({"a": "x", "rate_bps": 1e6}))
            .unwrap_err()
            .to_string();
        assert!(e.contains("links[1]: missing field `b`"), "{e}");
        let e = error(json!({"a": 3}));
        assert!(e.contains("links[1].a: invalid type"), "{e}");
    }
}
