//! GC and allocation figures of a Node or Deno row, read from what V8
//! prints with `--trace-gc-nvp`: one line per collection on the server's
//! stdout, `[pid:isolate:0]  123 ms: GC: {"pause":0.4,"gc":"s",…}`. The
//! app is not changed (no `gc()`, no hooks); the flag is V8's own, the one
//! fwbench's own rows need no flag for (they count through the heap-stats
//! hooks). Bun's JavaScriptCore prints nothing like it, so its rows have no
//! GC figures.
//!
//! What a line gives, summed over the collections a window holds:
//! `allocated` (bytes allocated since the previous collection, so a
//! window's sum lags its allocations by at most one young generation),
//! `pause` (ms) per collection, and for a full collection (`"gc":"mc"`)
//! also `incremental`, the main thread's incremental-marking steps before
//! it, as fwbench's own rows count them.

use std::sync::{Arc, Mutex};

use super::RuntimeKind;
use crate::engine::HeapSnapshot;

/// The flags that make `kind` print its collections (before the script).
pub fn flags(kind: RuntimeKind) -> &'static [&'static str] {
    match kind {
        RuntimeKind::Node => &["--trace-gc-nvp"],
        RuntimeKind::Deno => &["--v8-flags=--trace-gc-nvp"],
        RuntimeKind::Bun => &[],
    }
}

/// The counters of one server's collections so far, fed its stdout lines.
#[derive(Debug, Clone, Default)]
pub struct GcTrace {
    counters: Arc<Mutex<HeapSnapshot>>,
}

impl GcTrace {
    /// Counts `line` if it is a collection's line; says whether it was any
    /// line V8's tracing prints (a collection, or another trace line such
    /// as the memory pool's, which V8 splits over two lines).
    pub fn note(&self, line: &str) -> bool {
        let Some(collection) = collection_in(line) else {
            return is_trace_line(line);
        };
        let mut counters = self.counters.lock().unwrap_or_else(|poison| poison.into_inner());
        counters.allocated_bytes += collection.allocated;
        let pause_ns = ms_to_ns(collection.pause_ms);
        if collection.full {
            counters.full_gcs += 1;
            counters.full_gc_ns += pause_ns + ms_to_ns(collection.incremental_ms);
        } else {
            counters.young_gcs += 1;
            counters.young_gc_ns += pause_ns;
        }
        counters.longest_pause_ns = counters.longest_pause_ns.max(pause_ns);
        true
    }

    /// The counters now; the longest pause starts again from here, as
    /// [`HeapSnapshot::longest_pause_ns`] is the longest since the last
    /// snapshot.
    pub fn snapshot(&self) -> HeapSnapshot {
        let mut counters = self.counters.lock().unwrap_or_else(|poison| poison.into_inner());
        let now = *counters;
        counters.longest_pause_ns = 0;
        now
    }
}

/// One collection, as its line tells it.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Collection {
    allocated: u64,
    pause_ms: f64,
    incremental_ms: f64,
    full: bool,
}

/// The collection a `--trace-gc-nvp` line describes, if it is one.
fn collection_in(line: &str) -> Option<Collection> {
    let (prefix, json) = line.split_once(" GC: ")?;
    if !prefix.starts_with('[') {
        return None;
    }
    let fields: serde_json::Value = serde_json::from_str(json.trim()).ok()?;
    let number = |key: &str| fields.get(key).and_then(serde_json::Value::as_f64).unwrap_or(0.0);
    Some(Collection {
        allocated: number("allocated").max(0.0) as u64,
        pause_ms: number("pause").max(0.0),
        incremental_ms: number("incremental").max(0.0),
        // "s" (scavenge) and the minor mark-sweeper's "mms" are young.
        full: fields.get("gc").and_then(serde_json::Value::as_str) == Some("mc"),
    })
}

/// Whether `line` is one V8's GC tracing prints: `[pid:isolate:id] N ms:
/// …`, or the memory pool line's second half, which starts `, removed`.
fn is_trace_line(line: &str) -> bool {
    let line = line.trim_end();
    (line.starts_with('[') && line.contains(" ms: ")) || line.starts_with(", removed")
}

fn ms_to_ns(ms: f64) -> u64 {
    (ms * 1e6).round() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCAVENGE: &str = r#"[2564:0x33288000:0]       24 ms: GC: {"pause":0.392,"mutator":0.716,"gc":"s","reason":"allocation failure","allocated":898896,"promoted":104456,"incremental":0}"#;
    const MARK_COMPACT: &str = r#"[7377:0x3e8f2000:0]      294 ms: GC: {"pause":40.683,"gc":"mc","is_incremental":true,"incremental":6.392,"allocated":5050096}"#;

    #[test]
    fn collections_add_up_young_and_full_apart() {
        let trace = GcTrace::default();
        assert!(trace.note(SCAVENGE));
        assert!(trace.note(SCAVENGE));
        assert!(trace.note(MARK_COMPACT));
        let counted = trace.snapshot();
        assert_eq!(counted.allocated_bytes, 2 * 898_896 + 5_050_096);
        assert_eq!((counted.young_gcs, counted.full_gcs), (2, 1));
        assert_eq!(counted.young_gc_ns, 2 * 392_000);
        // The full collection's pause and its incremental steps.
        assert_eq!(counted.full_gc_ns, 40_683_000 + 6_392_000);
        assert_eq!(counted.longest_pause_ns, 40_683_000);
        // The longest pause is per snapshot; the sums are not.
        let later = trace.snapshot();
        assert_eq!(later.longest_pause_ns, 0);
        assert_eq!(later.young_gcs, 2);
    }

    #[test]
    fn other_trace_lines_are_recognised_and_counted_as_nothing() {
        let trace = GcTrace::default();
        assert!(trace
            .note("[2564:0x33288000:0]       23 ms: Memory pool: Removed pages: 0, removed large pages: 0"));
        assert!(trace.note(", removed zone reservations: 0"));
        // A collection line cut short counts nothing.
        assert!(trace.note("[2564:0x33288000:0]       25 ms: GC: {\"pause\":0.3,"));
        assert_eq!(trace.snapshot(), HeapSnapshot::default());
    }

    #[test]
    fn lines_that_are_not_v8s_are_left_alone() {
        let trace = GcTrace::default();
        assert!(!trace.note("fwbench-launch serving main.mjs (fetch app) on http://127.0.0.1:1/"));
        // An app's own text that merely mentions GC is not a collection.
        assert!(!trace.note("GC: {\"pause\": 1000}"));
        assert_eq!(trace.snapshot(), HeapSnapshot::default());
    }
}
