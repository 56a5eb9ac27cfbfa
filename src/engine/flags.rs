//! Engine flags from the environment, for profiling and GC studies:
//! `FWBENCH_V8_FLAGS="--perf-basic-prof --trace-gc" fwbench serve app.js`.
//!
//! An environment variable rather than an option, because `bench`, `check`
//! and `sweep` start each row as its own `fwbench serve` process: the
//! variable reaches every one of them unchanged. V8 takes its flags once per
//! process, before the first isolate, so they are applied at start-up.

/// The variable holding the engine flags (space-separated).
pub const VARIABLE: &str = "FWBENCH_V8_FLAGS";

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

/// Sets `flags` and returns those the engine did not take.
fn unknown_flags(flags: &[String]) -> Vec<String> {
    // The first argument stands for the program name, as on a command line.
    let mut args = vec!["fwbench".to_string()];
    args.extend(flags.iter().cloned());
    deno_core::v8_set_flags(args).into_iter().skip(1).collect()
}
