//! Criterion benchmarks of the fixed scenarios (`common/mod.rs` describes
//! them). Criterion reports wall time per run and, as throughput, simulated
//! events per second. `make bench` runs `summary` first, which prints wall
//! time, events, events/s, ns/event and peak memory per scenario.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

mod common;

/// What satcp's programs allocate with (`huge_page_alloc.rs`): measured as
/// users run it.
#[global_allocator]
static ALLOC: satcp_core::HugePageAlloc = satcp_core::HugePageAlloc;

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("scenarios");
    g.sample_size(10);
    for (name, make) in common::all() {
        let s = satcp_core::parse(&make().to_string()).expect("valid bench scenario");
        let events = satcp_core::run(&s).events;
        g.throughput(Throughput::Elements(events));
        g.bench_function(name, |b| b.iter(|| satcp_core::run(&s)));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
