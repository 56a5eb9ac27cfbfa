//! The arguments of the short `bench` and `sweep` runs the tests make.
//! [`bench`] and [`sweep`] start from what those runs share: 300 ms rounds
//! after a 100 ms warm-up, one round, the files written to the test's own
//! directory. A test then names what it is about (frameworks, scenarios,
//! connections, ...) and overrides a default where it needs another value,
//! and hands the result to [`fwbench`](super::fwbench) or any other taker
//! of an argument list:
//!
//! ```ignore
//! let out = fwbench(bench(&dir).only("hello").frameworks("s200,hyper").rounds(2));
//! ```
//!
//! Each flag is given once, in the order first set (a default's place is
//! kept when a test overrides it); `--scenario` is the one that repeats.

use std::ffi::OsStr;

/// `fwbench bench --duration 300ms --warmup 100ms --rounds 1 --out OUT`,
/// to add to.
pub fn bench(out: impl AsRef<OsStr>) -> BenchArgs {
    BenchArgs::short("bench", out)
}

/// `fwbench sweep --duration 300ms --warmup 100ms --rounds 1 --out OUT`,
/// to add to.
pub fn sweep(out: impl AsRef<OsStr>) -> BenchArgs {
    BenchArgs::short("sweep", out)
}

/// The arguments of one short `bench` or `sweep` run; iterates as its
/// argument list (the command first).
#[derive(Debug, Clone)]
pub struct BenchArgs {
    command: &'static str,
    /// `(flag, value)`, in the order given.
    flags: Vec<(&'static str, String)>,
    /// Arguments given as they are, after the flags.
    rest: Vec<String>,
}

impl BenchArgs {
    fn short(command: &'static str, out: impl AsRef<OsStr>) -> BenchArgs {
        BenchArgs {
            command,
            flags: Vec::new(),
            rest: Vec::new(),
        }
        .duration("300ms")
        .warmup("100ms")
        .rounds(1)
        .set("--out", out)
    }

    /// `--frameworks LIST` (comma-separated).
    pub fn frameworks(self, list: &str) -> BenchArgs {
        self.set("--frameworks", list)
    }

    /// `--only LIST`: built-in scenarios by name, comma-separated.
    pub fn only(self, list: &str) -> BenchArgs {
        self.set("--only", list)
    }

    /// One more `--scenario NAME_OR_PATH`; the scenarios keep their order.
    pub fn scenario(mut self, scenario: impl AsRef<OsStr>) -> BenchArgs {
        self.flags.push(("--scenario", text(scenario)));
        self
    }

    /// `--duration` of each round (300ms unless set).
    pub fn duration(self, duration: &str) -> BenchArgs {
        self.set("--duration", duration)
    }

    /// `--warmup` before each round (100ms unless set).
    pub fn warmup(self, warmup: &str) -> BenchArgs {
        self.set("--warmup", warmup)
    }

    /// Leaves `--warmup` out: each round warms up for the command's own
    /// default.
    pub fn default_warmup(mut self) -> BenchArgs {
        self.flags.retain(|(flag, _)| *flag != "--warmup");
        self
    }

    /// `--rounds` (1 unless set).
    pub fn rounds(self, rounds: u32) -> BenchArgs {
        self.set("--rounds", rounds.to_string())
    }

    /// `--connections`.
    pub fn connections(self, connections: u32) -> BenchArgs {
        self.set("--connections", connections.to_string())
    }

    /// `--in-runtime`: how long each JS row is also measured inside its
    /// runtime.
    pub fn in_runtime(self, duration: &str) -> BenchArgs {
        self.set("--in-runtime", duration)
    }

    /// `--in-runtime 0s`: no in-runtime measurement.
    pub fn skip_in_runtime(self) -> BenchArgs {
        self.in_runtime("0s")
    }

    /// `--json PATH`: a copy of the JSON report there.
    pub fn json(self, path: impl AsRef<OsStr>) -> BenchArgs {
        self.set("--json", path)
    }

    /// `FLAG VALUE`, for a flag with no method of its own; replaces the
    /// value when the flag is already set.
    pub fn set(mut self, flag: &'static str, value: impl AsRef<OsStr>) -> BenchArgs {
        let value = text(value);
        match self.flags.iter_mut().find(|(name, _)| *name == flag) {
            Some((_, old)) => *old = value,
            None => self.flags.push((flag, value)),
        }
        self
    }

    /// `args` as they are, after the flags (a list another helper made).
    pub fn args<I, S>(mut self, args: I) -> BenchArgs
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.rest.extend(args.into_iter().map(text));
        self
    }

    /// The argument list: the command, the flags, then the rest.
    pub fn build(self) -> Vec<String> {
        let mut list = vec![self.command.to_owned()];
        for (flag, value) in self.flags {
            list.push(flag.to_owned());
            list.push(value);
        }
        list.extend(self.rest);
        list
    }
}

impl IntoIterator for BenchArgs {
    type Item = String;
    type IntoIter = std::vec::IntoIter<String>;

    fn into_iter(self) -> Self::IntoIter {
        self.build().into_iter()
    }
}

fn text(value: impl AsRef<OsStr>) -> String {
    let value = value.as_ref();
    value
        .to_str()
        .unwrap_or_else(|| panic!("not UTF-8: {value:?}"))
        .to_owned()
}
