//! The output queue of a link direction as a scenario gives it: `queue`
//! (the kind, from `KINDS`), `queue_packets` or `queue_bytes`, and the
//! kind's own settings table, named as the kind (`red = { ... }`).

use super::{Queue, QueueKind, QueueLimit, QueueSettings, KINDS};
use crate::engine::RngStream;
use crate::error::{bad, ScenarioError};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::sync::Arc;

#[derive(Clone, Debug)]
pub struct QueueConfig {
    kind: &'static str,
    limit: QueueLimit,
    settings: Arc<dyn QueueSettings>,
}

/// The queue's flat fields.
#[derive(Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct QueueFields {
    /// The queue discipline (none: the first, drop_tail); its settings
    /// table has its name (`red = { ... }`).
    #[schemars(extend("enum" = kind_names()))]
    queue: Option<String>,
    /// Buffer limit in packets waiting (none with neither limit: unlimited).
    #[schemars(range(min = 1))]
    queue_packets: Option<u64>,
    /// Buffer limit in bytes waiting; not with `queue_packets`.
    #[schemars(range(min = 1))]
    queue_bytes: Option<u64>,
}

/// The queue kinds' names, the default first.
pub fn kind_names() -> Vec<&'static str> {
    KINDS.iter().map(|k| k.name).collect()
}

impl QueueConfig {
    /// Takes the queue's fields and the kinds' tables out of one
    /// direction's settings table and checks them; errors name paths
    /// relative to that table (`queue_packets`, `red.max_th`).
    pub fn take_from(table: &mut Map<String, Value>) -> Result<QueueConfig, ScenarioError> {
        let fields: Map<String, Value> = ["queue", "queue_packets", "queue_bytes"]
            .into_iter()
            .filter_map(|k| table.remove(k).map(|v| (k.to_string(), v)))
            .collect();
        let fields: QueueFields = crate::error::typed(&Value::Object(fields))?;
        let kind = match &fields.queue {
            None => &KINDS[0],
            Some(name) => find(name)?,
        };
        // Every kind's table is taken out: one for another kind than the
        // direction's is an error.
        let mut own = Value::Null;
        for k in KINDS {
            match table.remove(k.name) {
                Some(t) if k.name == kind.name => own = t,
                Some(_) => {
                    return Err(ScenarioError::new(
                        k.name,
                        format!(
                            "applies only to queue = {:?}, and the queue is {:?}",
                            k.name, kind.name
                        ),
                    ))
                }
                None => {}
            }
        }
        let settings = (kind.settings)(&own).map_err(|e| e.under(kind.name))?;
        let limit = match (fields.queue_packets, fields.queue_bytes) {
            (Some(0), _) => return Err(bad("queue_packets", 0, "must be at least 1")),
            (None, Some(0)) => return Err(bad("queue_bytes", 0, "must be at least 1")),
            (Some(_), Some(_)) => {
                return Err(ScenarioError::new(
                    "queue_bytes",
                    "give queue_packets or queue_bytes, not both",
                ))
            }
            (Some(p), None) => QueueLimit::Packets(p as usize),
            (None, Some(b)) => QueueLimit::Bytes(b),
            (None, None) => QueueLimit::Unlimited,
        };
        Ok(QueueConfig {
            kind: kind.name,
            limit,
            settings,
        })
    }

    /// The kind's name (`drop_tail`, `red`, ...).
    pub fn kind(&self) -> &'static str {
        self.kind
    }

    /// The total limit (`queue_packets`, `queue_bytes`, or none).
    pub fn limit(&self) -> QueueLimit {
        self.limit
    }

    /// The queue of a link direction of `rate_bps`; `rng` is the queue's
    /// own stream.
    pub fn build(&self, rate_bps: u64, rng: RngStream) -> Box<dyn Queue> {
        self.settings.build(self.limit, rate_bps, rng)
    }
}

impl Default for QueueConfig {
    /// An unlimited queue of the default kind.
    fn default() -> QueueConfig {
        QueueConfig::take_from(&mut Map::new()).expect("the default queue")
    }
}

/// The one place that maps a queue kind's name to its model.
fn find(name: &str) -> Result<&'static QueueKind, ScenarioError> {
    KINDS.iter().find(|k| k.name == name).ok_or_else(|| {
        bad(
            "queue",
            name,
            &format!("is not a queue ({})", kind_names().join(", ")),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn take(v: Value) -> Result<QueueConfig, ScenarioError> {
        let Value::Object(mut m) = v else {
            panic!("a table")
        };
        let q = QueueConfig::take_from(&mut m)?;
        assert!(m.is_empty(), "left: {m:?}");
        Ok(q)
    }

    #[test]
    fn the_default_is_an_unlimited_drop_tail_queue() {
        let q = take(json!({})).unwrap();
        assert_eq!((q.kind(), q.limit), ("drop_tail", QueueLimit::Unlimited));
        let q = take(json!({"queue_bytes": 3000})).unwrap();
        assert_eq!(q.limit, QueueLimit::Bytes(3000));
    }

    #[test]
    fn the_kind_names_its_settings_table() {
        let q = take(json!({"queue": "red", "queue_packets": 50, "red": {"max_th": 20}})).unwrap();
        assert_eq!((q.kind(), q.limit), ("red", QueueLimit::Packets(50)));
        take(json!({"queue": "priority", "priority": {"push_out": false}})).unwrap();
        let e = take(json!({"queue": "priority", "red": {"max_th": 20}})).unwrap_err();
        assert_eq!(e.field, "red");
        assert!(e.message.contains("\"priority\""), "{e}");
        assert_eq!(take(json!({"red": {}})).unwrap_err().field, "red");
        let e = take(json!({"queue": "red", "red": {"max_th": 2}})).unwrap_err();
        assert_eq!(e.field, "red.max_th");
        let e = take(json!({"queue": "red", "red": {"colour": 2}})).unwrap_err();
        assert_eq!(e.field, "red.colour");
    }

    #[test]
    fn the_per_flow_and_delay_queues_read_their_tables() {
        let q = take(json!({"queue": "drr", "queue_packets": 100,
            "drr": {"quantum_bytes": 1500, "flow_limit_packets": 30}}))
        .unwrap();
        assert_eq!((q.kind(), q.limit), ("drr", QueueLimit::Packets(100)));
        take(json!({"queue": "codel", "codel": {"target_s": 0.02, "interval_s": 0.6}})).unwrap();
        take(json!({"queue": "fq_codel", "fq_codel": {"quantum_bytes": 1514}})).unwrap();
        let e = take(json!({"queue": "fq_codel", "codel": {}})).unwrap_err();
        assert_eq!(e.field, "codel");
        let e = take(json!({"queue": "drr", "drr": {"quantum_bytes": 0}})).unwrap_err();
        assert_eq!(e.field, "drr.quantum_bytes");
        let e = take(json!({"queue": "codel", "codel": {"interval_s": 0}})).unwrap_err();
        assert_eq!(e.field, "codel.interval_s");
        // A time below the clock's nanosecond would round to zero.
        let e = take(json!({"queue": "codel", "codel": {"target_s": 1e-300}})).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid scenario: codel.target_s: 1e-300 must be between 1e-9 and 1000000000"
        );
        let e = take(json!({"queue": "fq_codel", "fq_codel": {"interval_s": 1e10}})).unwrap_err();
        assert_eq!(e.field, "fq_codel.interval_s");
        take(json!({"queue": "codel", "codel": {"target_s": 1e-9, "interval_s": 1e9}})).unwrap();
    }

    #[test]
    fn bad_fields() {
        for (v, field) in [
            (json!({"queue": "wfq"}), "queue"),
            (json!({"queue": 3}), "queue"),
            (json!({"queue_packets": 0}), "queue_packets"),
            (json!({"queue_packets": -1}), "queue_packets"),
            (json!({"queue_bytes": 0}), "queue_bytes"),
            (json!({"queue_packets": 5, "queue_bytes": 5}), "queue_bytes"),
        ] {
            assert_eq!(take(v.clone()).unwrap_err().field, field, "{v}");
        }
        let e = take(json!({"queue": "wfq"})).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid scenario: queue: wfq is not a queue \
             (drop_tail, priority, red, drr, codel, fq_codel, ack_filter)"
        );
    }
}
