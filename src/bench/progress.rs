//! The progress line of `fwbench bench` on a terminal: a bar, the row and
//! round being measured, and the time left. Redrawn a few times a second by
//! its own thread; nothing is drawn when stderr is not a terminal.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

struct State {
    label: String,
    done: usize,
    total: usize,
    started: Instant,
    /// Planned seconds per measurement, for the estimate before any finish.
    per_step: Duration,
}

/// A live progress line; call `step` before each measurement.
pub struct Progress {
    state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Progress {
    /// A progress line for `total` measurements of about `per_step` each.
    pub fn new(total: usize, per_step: Duration) -> Self {
        let state = Arc::new(Mutex::new(State {
            label: String::new(),
            done: 0,
            total,
            started: Instant::now(),
            per_step,
        }));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = std::io::stderr().is_terminal().then(|| {
            let (state, stop) = (state.clone(), stop.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    if let Ok(state) = state.lock() {
                        draw(&state);
                    }
                    std::thread::sleep(Duration::from_millis(250));
                }
                eprint!("\r\x1b[2K");
            })
        });
        Self { state, stop, thread }
    }

    /// Marks the start of measurement number `done` (0-based), described by `label`.
    pub fn step(&self, done: usize, label: String) {
        if let Ok(mut state) = self.state.lock() {
            state.done = done;
            state.label = label;
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn draw(state: &State) {
    const WIDTH: usize = 24;
    let filled = (state.done * WIDTH).checked_div(state.total).unwrap_or(0);
    let elapsed = state.started.elapsed();
    let per_step = if state.done > 0 {
        elapsed / state.done as u32
    } else {
        state.per_step
    };
    let left = per_step * (state.total - state.done.min(state.total)) as u32;
    let mut err = std::io::stderr().lock();
    let _ = write!(
        err,
        "\r\x1b[2K[{}{}] {}/{}  {}  ~{} left",
        "#".repeat(filled),
        "-".repeat(WIDTH - filled),
        state.done,
        state.total,
        state.label,
        crate::units::wall_time(left.as_secs() as f64)
    );
    let _ = err.flush();
}
