//! Bytes -> arbitrary segments, timers and application calls fed to a TCP
//! endpoint of any registered variant; must never panic, and the transport
//! invariants must hold after every step. The body is shared with the
//! stable replay tests (crates/satcp-fuzz-targets).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    satcp_fuzz_targets::endpoint_segments(data);
});
