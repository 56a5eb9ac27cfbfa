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
        anyhow::bail!("{VARIABLE}: {flag} is refused: it would {why}, past the sandbox");
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
        "expose-gc" | "expose-externalize-string" | "expose-statistics" | "expose-trigger-failure" => {
            Some("give app code engine functions on globalThis that cannot be removed")
        }
        "expose-gc-as" | "expose-cputracemark-as" => {
            Some("give app code an engine function under a name of its own")
        }
        "allow-natives-syntax" => Some("let app code call V8's internal functions (%Name() syntax)"),
        _ => None,
    }
}

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
        ] {
            assert!(refused(flag).is_none(), "{flag}");
        }
    }
}
