//! Engine flags from the environment, for profiling and GC studies:
//! `FWBENCH_V8_FLAGS="--perf-basic-prof --trace-gc" fwbench serve app.js`.
//!
//! An environment variable rather than an option, because `bench`, `check`
//! and `sweep` start each row as its own `fwbench serve` process: the
//! variable reaches every one of them unchanged. V8 takes its flags once per
//! process, before the first isolate, so they are applied at start-up.

/// The variable holding the engine flags (space-separated).
pub const VARIABLE: &str = super::switches::V8_FLAGS;

/// Passes the flags in [`VARIABLE`], if set, to the engine. Fails naming
/// the flags the engine does not know, so that a typo is not a silent
/// no-op. Call once, before any runtime is built.
pub fn apply_from_env() -> anyhow::Result<()> {
    let Some(value) = std::env::var_os(VARIABLE) else {
        return Ok(());
    };
    let value = value
        .into_string()
        .map_err(|_| anyhow::anyhow!("{VARIABLE} is not valid UTF-8"))?;
    let flags: Vec<String> = value.split_whitespace().map(String::from).collect();
    if flags.is_empty() {
        return Ok(());
    }
    if let Some((flag, why)) = flags.iter().find_map(|flag| refused(flag).map(|why| (flag, why))) {
        anyhow::bail!("{VARIABLE}: {flag} is refused: {why}");
    }
    let unknown = unknown_flags(&flags);
    if !unknown.is_empty() {
        anyhow::bail!(
            "{VARIABLE}: the engine ({}) does not know {} (V8 lists its flags with {VARIABLE}=--help fwbench list)",
            super::engine_name(),
            unknown.join(" ")
        );
    }
    Ok(())
}

/// Why `flag` may not be set, if it may not. V8's extension
/// flags put their functions on every context's global object as
/// non-configurable properties, which the host cannot remove before
/// app code runs; the others give app code engine functions under names of
/// its choosing, or as syntax.
fn refused(flag: &str) -> Option<&'static str> {
    let name = flag
        .trim_start_matches('-')
        .split('=')
        .next()
        .unwrap_or("")
        .replace('_', "-");
    match name.as_str() {
        "expose-gc" | "expose-externalize-string" | "expose-statistics" | "expose-trigger-failure" => Some(
            "it would give app code engine functions on globalThis that cannot be removed, past the sandbox",
        ),
        "expose-gc-as" | "expose-cputracemark-as" => {
            Some("it would give app code an engine function under a name of its own, past the sandbox")
        }
        "allow-natives-syntax" => {
            Some("it would let app code call V8's internal functions (%Name() syntax), past the sandbox")
        }
        // Turning a flag off (`--no-opt`) is as safe as turning it on is;
        // turning an extension off is always safe.
        name if name.starts_with("no-") && refused(&name[3..]).is_some() => None,
        name => {
            let plain = name.strip_prefix("no-").unwrap_or(name);
            (!LET_THROUGH.iter().any(|prefix| plain.starts_with(prefix)))
                .then_some(
                "fwbench does not let it through: it lets through the flags for tracing, profiling, logging, GC, \
                 heap sizes and compiler tiers",
            )
        }
    }
}

/// The V8 flags let through, by prefix: what profiles, traces, sizes the
/// heap or picks the compiler tiers, which change how fast the rows run but
/// not what app code can reach. Any other flag is refused: V8 has flags
/// that hand app code its internals under other names
/// (`--allow-natives-for-differential-fuzzing`), and a list of what is
/// refused would miss the next one.
const LET_THROUGH: &[&str] = &[
    "trace",
    "perf-",
    "prof",
    "log",
    "print-",
    "help",
    "jitless",
    "lite-mode",
    "max-",
    "min-",
    "initial-",
    "semi-space",
    "scavenge",
    "minor-",
    "gc",
    "single-threaded",
    "concurrent",
    "parallel",
    "incremental",
    "memory-",
    "stack-size",
    "predictable",
    "opt",
    "lazy",
    "sparkplug",
    "maglev",
    "turbo",
    "interrupt-budget",
    "always-",
    "stress-",
    "harmony",
    "random-seed",
    "hash-seed",
    "use-",
];

/// Sets `flags` and returns those the engine did not take.
fn unknown_flags(flags: &[String]) -> Vec<String> {
    // The first argument stands for the program name, as on a command line.
    let mut args = vec!["fwbench".to_string()];
    args.extend(flags.iter().cloned());
    deno_core::v8_set_flags(args).into_iter().skip(1).collect()
}

#[cfg(test)]
mod tests {
    use super::refused;

    #[test]
    fn flags_that_expose_engine_internals_to_apps_are_refused() {
        for flag in [
            "--allow-natives-syntax",
            "--allow_natives_syntax",
            "--expose-gc",
            "--expose-statistics",
            "--expose-gc-as=collect",
            "--expose_cputracemark_as=mark",
        ] {
            assert!(refused(flag).is_some(), "{flag}");
        }
        for flag in [
            "--trace-gc",
            "--harmony-shadow-realm",
            "--no-allow-natives-syntax",
            "--no-expose-gc",
            "--jitless",
            "--perf-basic-prof",
            "--log-function-events",
            "--max-old-space-size=512",
            "--no-opt",
            "--single-threaded-gc",
        ] {
            assert!(refused(flag).is_none(), "{flag}");
        }
    }

    /// V8 has more flags that open its internals to app code than any list
    /// of refusals would keep up with: what is not let through is refused.
    #[test]
    fn a_flag_not_let_through_is_refused() {
        for flag in [
            "--allow-natives-for-differential-fuzzing",
            "--allow_natives_for_differential_fuzzing",
            "--fuzzing",
            "--enable-experimental-regexp-engine",
            "--expose-inspector-scripts",
        ] {
            let why = refused(flag).unwrap_or_else(|| panic!("{flag} let through"));
            assert!(why.contains("does not let it through"), "{flag}: {why}");
        }
    }
}
