/*!
Benchmark results: the data model a bench run fills, the writers that
present it, and `fwbench compare`.

# Layout

- `model.rs`: [`BenchReport`] and its parts; what the orchestrator fills,
  round by round, and what `--json` writes. Measured figures only.
- `summary.rs`: [`Summary`], every derived figure (medians over rounds,
  ranks, ratio to hyper, `mw vs hello`, whether a row is client-bound),
  computed, never stored.
- `text.rs`: the terminal report and its `--markdown` twin (same content);
  `fidelity.rs` its tables comparing the runtimes that served the JS rows
  (`bench --runtime`).
- `csv.rs`, `json.rs`, `svg.rs`: the other writers; `json.rs` also loads.
- `html/`: report.html, one self-contained page of the same tables with
  interactive charts, and `fwbench html` that re-renders a report.json.
- `capacity.rs`: `fwbench capacity`'s results (capacity.json) and table;
  `html/capacity.rs` its page.
- `compare.rs`: `fwbench compare A.json B.json` ([`CompareArgs`]);
  `history.rs` the same command over more reports, or a directory.
- `table.rs`, `format.rs`: the `Table` of text cells (aligned text or
  markdown) and number formatting, shared by the writers.

Every writer takes the report and an injected `&mut dyn Write` (oha's
printer idea), so tests capture the output and the CLI picks the file.
A failed row, or one without rounds, never breaks a writer: it is shown as
FAILED (or "no rounds") with its reason.

# Use from the orchestrator

```
use fwbench::report::{self, BenchReport, Percentiles, Round, RowKind};
# let (tool, machine, pinning) = Default::default();
let mut run = BenchReport::new(tool, machine, pinning, serde_json::json!({}), "2026-09-30T10:00:00Z");
let latency = Percentiles { p50: 210, p99: 540, ..Percentiles::default() };
run.row_mut("hyper", "hello", RowKind::Native).push_round(Round::new(5.0, 225_000, 225_000, latency));
run.header.wall_time_s = 7.2;
report::write_terminal(&run, &mut std::io::stdout())?;
# Ok::<(), std::io::Error>(())
```
*/

pub mod anatomy;
mod anatomy_svg;
pub mod capacity;
pub mod compare;
pub mod cost;
mod csv;
mod fidelity;
mod format;
pub mod history;
pub mod html;
mod json;
pub mod memory;
mod memory_table;
pub mod merge;
pub mod model;
pub mod summary;
mod svg;
mod table;
mod text;
pub mod warmup;
mod warmup_table;

pub use anatomy_svg::write_anatomy_svg;
pub use compare::{compare, CompareArgs, CompareOutcome, Comparison, RowComparison};
pub use csv::{write_csv, COLUMNS as CSV_COLUMNS};
pub use format::{printable, CLIENT_BOUND};
pub use html::{write_html, write_html_with, Lead};
pub use json::{load_json, parse_json, write_json, ReadReportError, MAX_REPORT_BYTES};
pub use model::{
    BenchReport, HeapAfterGc, MachineInfo, Percentiles, Pinning, Round, RoundTrips, Row, RowKind, RowMemory,
    RowStatus, RunHeader, RuntimeInfo, ServerHostInfo, StartupSplit, ToolInfo, OLDEST_READABLE_SCHEMA,
    SCHEMA_VERSION,
};
pub use summary::{FrameworkSummary, RowSummary, Spread, Summary};
pub use svg::write_svg;
pub(crate) use svg::{draw_title, SCENARIO_COLORS, TITLE_HEIGHT};
pub use table::{Align, Table};
pub use text::{run_header, write_markdown, write_terminal};
