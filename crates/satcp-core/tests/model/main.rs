//! Integration tests of the model, in one test binary (each binary is a
//! separate optimized link, which dominates `cargo test --release` time):
//!
//! - `theory`: window-limited throughput, bottleneck saturation, set-up
//!   latency, delayed-ACK ratio, the square-root law under random loss
//! - `robustness`: property tests under loss, duplication and reordering
//! - `determinism`: reproducibility and independent random streams
//! - `thesis`: the thesis scenario against the window-limited prediction
//! - `adalr`: TCP-ADaLR's slow-start sub-phases and the thesis's claims on
//!   the ideal FTP download
//! - `window_scaling`: RFC 7323 windows of 1 MB and 16 MB, timestamps

mod adalr;
mod common;
mod determinism;
mod robustness;
mod theory;
mod thesis;
mod window_scaling;
