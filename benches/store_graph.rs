// The work graph at scale (included by benches/store.rs): warm `ready` (the graph cached in the
// index), the first `ready` after a write (the graph rebuilt), and `claim` (lock, read, check,
// atomic write with fsync), each through the store as a handler calls it.

use std::time::{Duration, Instant};

use docket::store::generate::generate_workspace;
use docket::store::{IssueFilter, Store, StoreOptions};

/// CPU time of this thread: a claim's own work, apart from waiting for the disk's fsync or for a
/// core on a loaded machine (the wall-clock column has both).
fn thread_cpu() -> Duration {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec into the pointer it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

fn median(mut samples: Vec<Duration>) -> f64 {
    samples.sort();
    samples[samples.len() / 2].as_secs_f64() * 1000.0
}

pub fn run() {
    let sizes = std::env::var("DOCKET_BENCH_GRAPH_SIZES").unwrap_or_else(|_| "10000,100000".into());
    println!(
        "\n{:>7} | {:>9} | {:>13} | {:>19} | {:>22} | {:>13} | {:>16}",
        "issues", "ready", "open blocked", "warm ready ms", "ready after write ms", "claim ms", "claim CPU ms"
    );
    for n in sizes.split(',').filter_map(|s| s.trim().parse::<usize>().ok()) {
        let dir = tempfile::tempdir().expect("tmp");
        let ws = generate_workspace(dir.path(), n, 42);
        let store = Store::open(ws, StoreOptions { branch_aware_ids: false, ..StoreOptions::default() });
        let all = IssueFilter::default();
        let first = store.ready(&all, None, 0, 30).expect("ready").value;
        let warm = median(
            (0..200)
                .map(|_| {
                    let t = Instant::now();
                    std::hint::black_box(store.ready(&all, None, 0, 25).expect("ready").value.issues.len());
                    t.elapsed()
                })
                .collect(),
        );
        let ids: Vec<String> = first.issues.iter().take(30).map(|(m, _)| m.id.clone()).collect();
        let mut claims = Vec::new();
        let mut claims_cpu = Vec::new();
        let mut after_write = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            let (t, cpu) = (Instant::now(), thread_cpu());
            let done = store.claim(id, &format!("agent-{i}")).expect("claim");
            claims.push(t.elapsed());
            claims_cpu.push(thread_cpu() - cpu);
            assert!(!done.changed.is_empty(), "{id} was claimed");
            let t = Instant::now();
            std::hint::black_box(store.ready(&all, None, 0, 25).expect("ready").value.issues.len());
            after_write.push(t.elapsed());
        }
        println!(
            "{n:>7} | {:>9} | {:>13} | {warm:>19.3} | {:>22.2} | {:>13.3} | {:>16.3}",
            first.total,
            first.open_blocked,
            median(after_write),
            median(claims),
            median(claims_cpu)
        );
    }
}
