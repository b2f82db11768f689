//! Unit tests that drive the TCP machinery (`tcp/`) with real variants
//! (`protocols/`): they live above both layers, so that `tcp/` imports
//! nothing from `protocols/`.

mod ecn_tests;
mod frto_tests;
mod halt_tests;
mod hook_tests;
mod nextseg_tests;
mod prr_tests;
mod read_buffer_tests;
mod rtt_sample_tests;
mod timeout_scoreboard_tests;
mod undo_tests;
