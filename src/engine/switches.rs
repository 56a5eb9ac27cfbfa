//! The engine switches: the environment variables that change how the
//! engine runs a row (`FWBENCH_SNAPSHOT`, `FWBENCH_HEAP_STATS`,
//! `FWBENCH_V8_FLAGS`). They are variables rather than options because
//! every row's `fwbench serve` process inherits them unchanged (flags.rs).
//! Since they change the figures (a `--jitless` run is 0.6× the req/s), each
//! is checked before anything runs, an unknown value refused rather than
//! taken for the default, and recorded in every report (`tool.engine_switches`),
//! where `compare` names a difference.

use std::collections::BTreeMap;

use anyhow::bail;

/// Which snapshots runtimes start from (snapshot.rs).
pub const SNAPSHOT: &str = "FWBENCH_SNAPSHOT";

/// The heap counters' switch (heap_stats.rs): `off` turns them off.
pub const HEAP_STATS: &str = "FWBENCH_HEAP_STATS";

/// The engine flags (flags.rs).
pub const V8_FLAGS: &str = "FWBENCH_V8_FLAGS";

/// Every engine switch. This file names them and imports nothing of the
/// engine: the files that read them take their names from here.
pub const SWITCHES: [&str; 3] = [SNAPSHOT, HEAP_STATS, V8_FLAGS];

/// The values a switch takes; empty: any (V8's flags, checked by flags.rs).
fn allowed(switch: &str) -> &'static [&'static str] {
    match switch {
        SNAPSHOT => &["on", "off", "bootstrap"],
        HEAP_STATS => &["on", "off"],
        _ => &[],
    }
}

/// The switches this process's environment sets, each checked: a value the
/// switch does not know is an error naming the ones it does.
pub fn from_env() -> anyhow::Result<BTreeMap<String, String>> {
    let mut set = BTreeMap::new();
    for switch in SWITCHES {
        let Some(value) = std::env::var_os(switch) else {
            continue;
        };
        let Ok(value) = value.into_string() else {
            bail!("{switch} is not valid UTF-8");
        };
        check(switch, &value)?;
        set.insert(switch.to_owned(), value);
    }
    Ok(set)
}

/// Whether `switch` may be `value`.
fn check(switch: &str, value: &str) -> anyhow::Result<()> {
    let allowed = allowed(switch);
    if !allowed.is_empty() && !allowed.contains(&value) {
        bail!(
            "{switch}={value:?} is not a value it takes: expected {}",
            allowed.join(", ")
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_misspelt_value_is_refused_naming_the_values() {
        assert!(check("FWBENCH_SNAPSHOT", "bootstrap").is_ok());
        assert!(check("FWBENCH_HEAP_STATS", "off").is_ok());
        let error = check("FWBENCH_SNAPSHOT", "bootsrap").unwrap_err().to_string();
        assert!(error.contains("expected on, off, bootstrap"), "{error}");
        assert!(check("FWBENCH_HEAP_STATS", "0").is_err());
        // V8's flags are checked against V8 itself (flags.rs).
        assert!(check("FWBENCH_V8_FLAGS", "--jitless").is_ok());
    }
}
