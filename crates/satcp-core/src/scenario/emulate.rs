//! The `[emulate]` table: the hosts and commands of `satcp emulate`
//! (docs/emulation.md). A simulation ignores it, so that one file is both
//! simulated and emulated; it is typed here so that the parser checks its
//! fields in every command and the schema and reference describe it. That
//! its hosts are nodes of the scenario, and which nodes are hosts when
//! `hosts` is absent, the emulation checks (`python/satcp/emulate.py`).

use crate::error::{bad, count, ScenarioError};
use serde::Deserialize;

/// At most this many end hosts in one emulation (one network namespace
/// each).
pub const MAX_EMULATED_HOSTS: usize = 250;

/// `[emulate]`.
#[derive(Clone, Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct EmulateSettings {
    /// The end hosts, one network namespace each: distinct nodes of the
    /// scenario; default: each application's client and server, in the
    /// order they first appear.
    #[schemars(length(min = 2, max = MAX_EMULATED_HOSTS))]
    pub hosts: Option<Vec<String>>,
    /// The commands (`[[emulate.run]]`), run in order; without entries,
    /// `satcp emulate` needs `-- COMMAND`.
    pub run: Vec<EmulatedCommand>,
}

/// One `[[emulate.run]]` entry.
#[derive(Clone, Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EmulatedCommand {
    /// The host (one of `hosts`) that runs it.
    pub host: String,
    /// A shell command (`sh -c`), not empty. It sees `SATCP_ADDR_<node>`,
    /// `SATCP_HOST`, `SATCP_OUT`, `SATCP_T0_NS` and `satcp-bulk` on its
    /// `PATH`.
    #[schemars(length(min = 1))]
    pub cmd: String,
    /// Started, and stopped once the other entries have ended (after up to
    /// 5 s to end by itself); without it, the next entry starts when this
    /// one ends.
    #[serde(default)]
    pub background: bool,
}

impl EmulateSettings {
    /// What the core can check: the hosts are 2 to `MAX_EMULATED_HOSTS`
    /// distinct nodes, each command names a host and has something to run.
    pub fn validate(&self, nodes: &[String]) -> Result<(), ScenarioError> {
        let is_node = |field: String, n: &str| {
            if nodes.iter().any(|x| x == n) {
                Ok(())
            } else {
                Err(bad(field, n, "is not a node"))
            }
        };
        if let Some(hosts) = &self.hosts {
            let n = hosts.len() as u64;
            count("emulate.hosts", n, 2, MAX_EMULATED_HOSTS as u64)?;
            for (i, h) in hosts.iter().enumerate() {
                is_node(format!("emulate.hosts[{i}]"), h)?;
                if hosts[..i].contains(h) {
                    return Err(bad(format!("emulate.hosts[{i}]"), h, "is listed twice"));
                }
            }
        }
        for (i, r) in self.run.iter().enumerate() {
            let host = format!("emulate.run[{i}].host");
            is_node(host.clone(), &r.host)?;
            if self.hosts.as_ref().is_some_and(|h| !h.contains(&r.host)) {
                return Err(bad(host, &r.host, "is none of emulate.hosts"));
            }
            if r.cmd.trim().is_empty() {
                return Err(ScenarioError::new(
                    format!("emulate.run[{i}].cmd"),
                    "must be a shell command, not empty",
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nodes() -> Vec<String> {
        ["a", "b", "c"].map(String::from).to_vec()
    }

    fn settings(hosts: Option<&[&str]>, runs: &[(&str, &str)]) -> EmulateSettings {
        EmulateSettings {
            hosts: hosts.map(|h| h.iter().map(|x| x.to_string()).collect()),
            run: runs
                .iter()
                .map(|&(host, cmd)| EmulatedCommand {
                    host: host.into(),
                    cmd: cmd.into(),
                    background: false,
                })
                .collect(),
        }
    }

    fn field_of(e: EmulateSettings) -> String {
        e.validate(&nodes()).unwrap_err().field
    }

    #[test]
    fn hosts_are_two_or_more_distinct_nodes() {
        assert!(settings(Some(&["a", "b"]), &[]).validate(&nodes()).is_ok());
        assert!(settings(None, &[]).validate(&nodes()).is_ok());
        assert_eq!(field_of(settings(Some(&["a"]), &[])), "emulate.hosts");
        assert_eq!(
            field_of(settings(Some(&["a", "x"]), &[])),
            "emulate.hosts[1]"
        );
        assert_eq!(
            field_of(settings(Some(&["a", "a"]), &[])),
            "emulate.hosts[1]"
        );
    }

    #[test]
    fn a_command_runs_in_a_host_and_is_not_empty() {
        let ok = settings(Some(&["a", "b"]), &[("a", "true")]);
        assert!(ok.validate(&nodes()).is_ok());
        let not_a_host = settings(Some(&["a", "b"]), &[("c", "true")]);
        assert_eq!(field_of(not_a_host), "emulate.run[0].host");
        assert_eq!(
            field_of(settings(None, &[("x", "true")])),
            "emulate.run[0].host"
        );
        assert_eq!(
            field_of(settings(None, &[("a", "  ")])),
            "emulate.run[0].cmd"
        );
    }
}
