//! TOML text -> validated scenario -> built simulation; must never panic.
//! The body is shared with the stable replay tests (crates/satcp-fuzz-targets).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| satcp_fuzz_targets::scenario_text(data));
