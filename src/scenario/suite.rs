//! Suites of built-in scenarios: which of them `bench` and `check` run
//! when no scenario is named. Every file in scenarios/ is built in (the
//! registry is that directory, compiled in); the default suite is the
//! article's three, so `bench` with no arguments keeps its ~3½ minutes, and
//! `--suite full` is every built-in scenario, so one added to scenarios/
//! joins it with no change here.

use std::fmt;
use std::str::FromStr;

/// A suite of built-in scenarios.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Suite {
    /// The unwind-tax article's scenarios ([`DEFAULT_SUITE`]).
    #[default]
    Default,
    /// Every built-in scenario.
    Full,
}

/// The default suite's scenarios: the article's hello, param and mw. A
/// built-in scenario not named here runs with `--suite full` or `--only`.
pub const DEFAULT_SUITE: &[&str] = &["hello", "param", "mw"];

impl Suite {
    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Suite::Default => "default",
            Suite::Full => "full",
        }
    }

    /// Whether the built-in scenario `name` is in this suite.
    pub fn contains(self, name: &str) -> bool {
        match self {
            Suite::Default => DEFAULT_SUITE.contains(&name),
            Suite::Full => true,
        }
    }

    /// The suite's built-in scenarios, in the built-in order (sorted by
    /// name).
    pub fn scenarios(self) -> Vec<String> {
        super::builtin_names()
            .into_iter()
            .filter(|name| self.contains(name))
            .collect()
    }
}

impl fmt::Display for Suite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Suite {
    type Err = String;

    fn from_str(text: &str) -> Result<Suite, String> {
        match text.trim() {
            "default" => Ok(Suite::Default),
            "full" => Ok(Suite::Full),
            _ => Err(format!(
                "unknown suite '{text}': expected default ({}) or full (every built-in scenario; \
                 `fwbench list` names them)",
                DEFAULT_SUITE.join(", ")
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_is_every_built_in_scenario() {
        let all = super::super::builtin_names();
        assert_eq!(Suite::Full.scenarios(), all);
        assert!(all.len() >= DEFAULT_SUITE.len());
    }

    #[test]
    fn default_is_the_articles_three_and_each_is_built_in() {
        let default = Suite::Default.scenarios();
        assert_eq!(default, ["hello", "mw", "param"]);
        let all = super::super::builtin_names();
        assert!(DEFAULT_SUITE.iter().all(|name| all.iter().any(|n| n == name)));
    }

    #[test]
    fn names_parse_and_unknown_ones_say_what_is_expected() {
        assert_eq!("full".parse::<Suite>(), Ok(Suite::Full));
        assert_eq!("default".parse::<Suite>(), Ok(Suite::Default));
        let error = "all".parse::<Suite>().unwrap_err();
        assert!(error.contains("'all'") && error.contains("full"), "{error}");
    }
}
