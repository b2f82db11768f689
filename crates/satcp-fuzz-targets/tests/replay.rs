//! The fuzz targets on stable, in CI: every corpus file (`fuzz/corpus/`,
//! with the regression inputs of every panic found), then pseudo-random
//! inputs: random bytes for the endpoint, mutated corpus files (byte
//! changes, truncations, splices of lines) for the scenario parser.
//! FUZZ_CASES sets how many (default 3,000 per target).

use satcp_fuzz_targets::{endpoint_segments, scenario_text};
use std::path::PathBuf;

fn corpus(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let d = std::fs::read(&p).unwrap();
            (p, d)
        })
        .collect()
}

fn cases() -> usize {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3_000)
}

/// xorshift64*: a fixed sequence, so a failure here is reproducible.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn run_all<R>(mut target: impl FnMut(&[u8]) -> R, inputs: impl Iterator<Item = Vec<u8>>) -> usize {
    let mut n = 0;
    for input in inputs {
        let call = std::panic::AssertUnwindSafe(|| target(&input));
        if let Err(e) = std::panic::catch_unwind(call) {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            panic!(
                "input {input:?} (as text: {:?}): {msg}",
                String::from_utf8_lossy(&input)
            );
        }
        n += 1;
    }
    n
}

#[test]
fn scenario_corpus_replays() {
    let files = corpus("scenario_text");
    assert!(
        files.len() >= 5,
        "the scenario corpus holds the scenarios/ files"
    );
    for (path, data) in &files {
        // The corpus is worth something only if most of it gets past the
        // parser: every file but the deliberately broken ones is valid.
        let name = path.file_name().unwrap().to_string_lossy();
        if !name.starts_with("bad_") && !name.starts_with("truncated") {
            match satcp_fuzz_targets::parse_scenario_text(data) {
                Some(Ok(_)) => {}
                other => panic!("{name}: {:?}", other.map(|r| r.map(|_| ()))),
            }
        }
        if std::panic::catch_unwind(|| scenario_text(data)).is_err() {
            panic!("{} panics", path.display());
        }
    }
}

#[test]
fn endpoint_corpus_replays() {
    let files = corpus("endpoint_segments");
    assert!(!files.is_empty());
    for (path, data) in &files {
        if std::panic::catch_unwind(|| endpoint_segments(data)).is_err() {
            panic!("{} panics", path.display());
        }
    }
}

#[test]
fn scenario_parser_survives_mutated_scenarios() {
    let seeds: Vec<Vec<u8>> = corpus("scenario_text")
        .into_iter()
        .map(|(_, d)| d)
        .collect();
    let mut rng = Rng(0x5eed_5ca7_c0de_0001);
    let tokens: &[&[u8]] = &[
        b"nan",
        b"-inf",
        b"0",
        b"-1",
        b"1e308",
        b"\"\"",
        b"[]",
        b"{}",
        b"true",
        b"=",
        b"[[links]]",
        b"\n",
        b"\"x\"",
        b"18446744073709551615",
        b"-0.0",
        b"1979-05-27T07:32:00Z",
    ];
    let inputs = (0..cases()).map(|_| {
        let mut d = seeds[rng.below(seeds.len())].clone();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(d.len() + 1);
            match rng.below(9) {
                5..=8 => {
                    // A value replaced: the line stays TOML, the scenario
                    // gets a wrong type, a bad number or a bad name.
                    let text = String::from_utf8_lossy(&d).into_owned();
                    let lines: Vec<&str> = text.lines().collect();
                    let i = rng.below(lines.len());
                    if let Some((key, _)) = lines.get(i).and_then(|l| l.split_once(" = ")) {
                        let t = String::from_utf8_lossy(tokens[rng.below(tokens.len())]);
                        let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
                        out[i] = format!("{key} = {t}");
                        d = out.join("\n").into_bytes();
                    }
                }
                0 => d.truncate(at),
                1 if at < d.len() => d[at] = rng.next() as u8,
                2 => {
                    let t = tokens[rng.below(tokens.len())];
                    d.splice(at..(at + rng.below(8)).min(d.len()), t.iter().copied());
                }
                3 => {
                    // A line of another corpus file spliced in.
                    let other = &seeds[rng.below(seeds.len())];
                    let lines: Vec<&[u8]> = other.split(|&c| c == b'\n').collect();
                    let line = lines[rng.below(lines.len())];
                    let mut l = line.to_vec();
                    l.push(b'\n');
                    let at = d[..at]
                        .iter()
                        .rposition(|&c| c == b'\n')
                        .map_or(0, |p| p + 1);
                    d.splice(at..at, l);
                }
                _ => {
                    let end = (at + rng.below(64)).min(d.len());
                    d.drain(at..end);
                }
            }
        }
        d
    });
    let (mut valid, mut rejected) = (0, 0);
    let n = run_all(
        |d| {
            scenario_text(d);
            match satcp_fuzz_targets::parse_scenario_text(d) {
                Some(Ok(_)) => valid += 1,
                Some(Err(_)) => rejected += 1,
                None => {}
            }
        },
        inputs,
    );
    println!("scenario_text: {n} mutated inputs, {valid} valid, {rejected} rejected by the core");
    // The mutations must reach the core's validation, both ways.
    assert!(
        valid * 20 >= n && rejected * 20 >= n,
        "{valid} valid, {rejected} rejected of {n}"
    );
}

#[test]
fn endpoint_survives_random_segment_sequences() {
    let mut rng = Rng(0x5eed_5ca7_c0de_0002);
    let inputs = (0..cases()).map(|_| {
        let len = 2 + rng.below(1024);
        (0..len).map(|_| rng.next() as u8).collect::<Vec<u8>>()
    });
    let mut reached = [0usize; 3];
    let n = run_all(
        |d| {
            let r = endpoint_segments(d);
            reached[0] += r.established as usize;
            reached[1] += r.data_acked as usize;
            reached[2] += r.retransmitted as usize;
        },
        inputs,
    );
    println!(
        "endpoint_segments: {n} random inputs; established, data acked, retransmitted: {reached:?}"
    );
    // Random bytes must get past the handshake and move data often enough
    // for the run to test more than the handshake.
    assert!(reached.iter().all(|&k| k * 20 >= n), "{reached:?} of {n}");
}
