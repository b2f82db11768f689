//! The layering of docs/architecture.md: the shared machinery (`engine/`,
//! `net/`, `tcp/`) names no variant. Variants plug in through the traits of
//! `tcp/` and `net/router.rs` and the registry in `protocols/mod.rs`.
//! Dependencies point one way: `metrics/` reads `tcp/` (an endpoint's
//! counters are its own state), not the reverse; `net/` builds its models
//! from their own settings and knows nothing of scenarios, the simulation
//! or TCP's state.

use std::fs;
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Lines of code (comments left out) that mention `needle`.
fn offending(layer: &str, needle: &str) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src")
        .join(layer);
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    assert!(!files.is_empty(), "no sources under {}", root.display());
    let mut hits = Vec::new();
    for f in files {
        for (i, line) in fs::read_to_string(&f).unwrap().lines().enumerate() {
            let code = line.split("//").next().unwrap();
            if code.contains(needle) {
                hits.push(format!("{}:{}: {}", f.display(), i + 1, line.trim()));
            }
        }
    }
    hits
}

#[test]
fn shared_layers_import_nothing_from_protocols() {
    for layer in ["engine", "net", "tcp"] {
        let hits = offending(layer, "protocols");
        assert!(
            hits.is_empty(),
            "{layer}/ uses protocols/:\n{}",
            hits.join("\n")
        );
    }
}

#[test]
fn shared_layers_name_no_variant() {
    for layer in ["engine", "net", "tcp"] {
        for name in [
            "adalr",
            "peach",
            "faststart",
            "fast_start",
            "example",
            "Adalr",
            "Peach",
        ] {
            let hits = offending(layer, name);
            assert!(
                hits.is_empty(),
                "{layer}/ names {name}:\n{}",
                hits.join("\n")
            );
        }
    }
}

#[test]
fn tcp_imports_nothing_from_metrics() {
    let hits = offending("tcp", "metrics");
    assert!(hits.is_empty(), "tcp/ uses metrics/:\n{}", hits.join("\n"));
}

#[test]
fn net_imports_nothing_from_the_layers_above() {
    for needle in [
        "crate::tcp",
        "crate::scenario",
        "crate::sim",
        "crate::metrics",
    ] {
        let hits = offending("net", needle);
        assert!(hits.is_empty(), "net/ uses {needle}:\n{}", hits.join("\n"));
    }
}

#[test]
fn the_test_itself_can_fail() {
    // The scan finds what it looks for: protocols/ does name its variants,
    // metrics/ does import tcp/.
    assert!(!offending("protocols", "adalr").is_empty());
    assert!(!offending("metrics", "crate::tcp").is_empty());
}
