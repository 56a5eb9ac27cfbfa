//! `fwbench serve`'s banner, as bench reads it: the address the server
//! listens on and, for a JS row, its start-up split (src/serve.rs writes
//! both); and the server's stdout, where the banner is found.

use std::io::BufRead;
use std::net::SocketAddr;
use std::time::Duration;

use super::runtimes::gc_trace::GcTrace;

/// When a JS row's server had its runtime ready and its app loaded, from
/// the spawn of its process: the server's own times since its `main`
/// (its banner's `started:` note), moved by what came before `main`
/// (exec, the dynamic loader), which is the time between the spawn and the
/// banner's arrival less the server's own time to its banner.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoadedAt {
    /// The runtime was built, with the Web globals and preloaded modules.
    pub runtime_ready: Duration,
    /// Every worker had loaded and installed the app.
    pub app_loaded: Duration,
}

/// The address in `fwbench serve`'s banner (`… on http://127.0.0.1:PORT/ …`).
pub fn address(banner: &str) -> Option<SocketAddr> {
    let start = banner.find("http://")? + "http://".len();
    banner[start..].split('/').next()?.parse().ok()
}

/// The start-up split in a JS row's banner (`… · started: runtime ready
/// R ms, app loaded A ms, banner B ms`), moved to the spawner's clock: the
/// banner arrived `banner_seen` after the spawn.
pub fn loaded_at(banner: &str, banner_seen: Duration) -> Option<LoadedAt> {
    let note = &banner[banner.rfind("started: ")? + "started: ".len()..];
    let mut runtime_ready = None;
    let mut app_loaded = None;
    let mut at_banner = None;
    for part in note.trim_end().split(", ") {
        let (label, ms) = part.strip_suffix(" ms")?.rsplit_once(' ')?;
        let at = Duration::try_from_secs_f64(ms.parse::<f64>().ok()? / 1e3).ok()?;
        match label {
            "runtime ready" => runtime_ready = Some(at),
            "app loaded" => app_loaded = Some(at),
            "banner" => at_banner = Some(at),
            _ => {}
        }
    }
    let before_main = banner_seen.saturating_sub(at_banner?);
    Some(LoadedAt {
        runtime_ready: before_main + runtime_ready?,
        app_loaded: before_main + app_loaded?,
    })
}

/// Reads a server's stdout: the banner, its first line, goes to `banner`;
/// the rest is drained so the server never blocks on a full pipe.
///
/// With `trace`, every line is offered to it instead, and the banner is
/// the launcher's line wherever it starts: V8 prints its trace through
/// C's stdio, which flushes a pipe in blocks, not lines, so the launcher's
/// one write can land in the middle of a trace line (the line's two halves
/// are then one collection lost, before the banner).
pub fn read_stdout(
    mut reader: impl BufRead,
    banner: &std::sync::mpsc::Sender<String>,
    trace: Option<&GcTrace>,
) {
    let Some(trace) = trace else {
        let mut line = String::new();
        let _ = reader.read_line(&mut line);
        let _ = banner.send(line);
        let _ = std::io::copy(&mut reader, &mut std::io::sink());
        return;
    };
    let mut bytes = Vec::new();
    let mut announced = false;
    while reader.read_until(b'\n', &mut bytes).is_ok_and(|read| read > 0) {
        let line = String::from_utf8_lossy(&bytes);
        match line.find(LAUNCHER_BANNER).filter(|_| !announced) {
            Some(start) => {
                announced = true;
                let _ = banner.send(line[start..].to_owned());
            }
            None => {
                trace.note(&line);
            }
        }
        bytes.clear();
    }
    if !announced {
        // The end of stdout, as for a server with no trace.
        let _ = banner.send(String::new());
    }
}

/// How js/launch/launch.mjs's and announce.mjs's banners begin.
const LAUNCHER_BANNER: &str = "fwbench-launch serving ";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn banners_give_the_address() {
        let banner = "fwbench serving x (fetch app) on http://127.0.0.1:4321/ with 1 worker [QuickJS]";
        assert_eq!(address(banner), Some("127.0.0.1:4321".parse().unwrap()));
        assert_eq!(address("fwbench: failed to load"), None);
    }

    #[test]
    fn a_js_banner_gives_the_start_up_split_on_the_spawners_clock() {
        let banner = "fwbench serving x (fetch app) on http://127.0.0.1:4321/ with 1 worker [V8] \
                      · started: runtime ready 8.0 ms, app loaded 20.5 ms, banner 21.0 ms\n";
        // The banner came 25 ms after the spawn: 4 ms before `main`.
        let loaded = loaded_at(banner, Duration::from_millis(25)).expect("a split");
        assert_eq!(loaded.runtime_ready, Duration::from_millis(12));
        assert_eq!(loaded.app_loaded, Duration::from_micros(24_500));
        let native = "fwbench serving x (native) on http://127.0.0.1:1/ with 1 worker [native Rust] \
                      · started: banner 1.0 ms";
        assert_eq!(loaded_at(native, Duration::from_millis(3)), None);
        assert_eq!(
            loaded_at("fwbench serving x on http://127.0.0.1:1/", Duration::ZERO),
            None
        );
    }

    #[test]
    fn v8s_trace_lines_around_the_banner_are_counted_and_the_banner_found() {
        let stdout = concat!(
            "[1:0x1:0]  20 ms: Memory pool: Removed pages: 0, removed large pages: 0\n",
            ", removed zone reservations: 0\n",
            "[1:0x1:0]  23 ms: GC: {\"pause\":0.5,\"gc\":\"s\",\"allocated\":1000}\n",
            // A block of the trace flushed mid-line, the banner's write, the
            // rest of the block.
            "[1:0x1:0]  24 ms: GC: {\"pause\":0.5,\"gc\":\"s\",\"allo",
            "fwbench-launch serving main.mjs (fetch app) on http://127.0.0.1:9/ with 1 worker\n",
            "cated\":1000}\n",
            "[1:0x1:0]  90 ms: GC: {\"pause\":0.25,\"gc\":\"s\",\"allocated\":4000}\n",
        );
        let (tx, rx) = std::sync::mpsc::channel();
        let trace = GcTrace::default();
        read_stdout(stdout.as_bytes(), &tx, Some(&trace));
        assert_eq!(
            rx.recv().unwrap(),
            "fwbench-launch serving main.mjs (fetch app) on http://127.0.0.1:9/ with 1 worker\n"
        );
        // The collection cut in two is lost; the others count.
        let counted = trace.snapshot();
        assert_eq!((counted.young_gcs, counted.allocated_bytes), (2, 5000));
        assert_eq!(counted.young_gc_ns, 750_000);
    }

    #[test]
    fn a_traced_server_that_never_announces_ends_with_its_stdout() {
        let (tx, rx) = std::sync::mpsc::channel();
        read_stdout(
            "[1:0x1:0]  23 ms: GC: {}\n".as_bytes(),
            &tx,
            Some(&GcTrace::default()),
        );
        assert_eq!(rx.recv().unwrap(), "");
    }

    #[test]
    fn without_a_trace_the_first_line_is_the_banner_whatever_it_is() {
        let (tx, rx) = std::sync::mpsc::channel();
        read_stdout("[1:0x1:0]  23 ms: GC: {}\nfwbench serve\n".as_bytes(), &tx, None);
        assert_eq!(rx.recv().unwrap(), "[1:0x1:0]  23 ms: GC: {}\n");
    }
}
