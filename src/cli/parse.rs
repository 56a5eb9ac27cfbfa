//! The value parsers of the command line's own formats (`--app NAME=DIR`,
//! `--request 'GET /'`, `--depths 0,1,2`, ...): a bad value gets a message
//! that says what was expected, as clap prints it.

use std::path::PathBuf;

use crate::header_sets::HeaderSet;
use crate::scenario::Suite;

/// The longest chain `--depth` and `sweep --depths` accept.
pub const MAX_DEPTH: usize = 256;

/// Chain depths for `sweep`, sorted, each once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Depths(pub Vec<usize>);

/// `[NAME=]DIR` for `--app`: the row's name (default: the directory's, or
/// for a file its parent directory's) and the path.
pub fn parse_app(text: &str) -> Result<(String, PathBuf), String> {
    let (name, path) = match text.split_once('=') {
        Some((name, path)) => (Some(name.to_owned()), PathBuf::from(path)),
        None => (None, PathBuf::from(text)),
    };
    let canonical =
        std::fs::canonicalize(&path).map_err(|e| format!("cannot read the app {}: {e}", path.display()))?;
    let name = match name {
        Some(name) => name,
        None => {
            let dir = if canonical.is_dir() {
                canonical.as_path()
            } else {
                canonical.parent().unwrap_or(&canonical)
            };
            dir.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "app".to_owned())
        }
    };
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
    {
        return Err(format!(
            "'{name}' is not a row name: use letters, digits, '-', '_' and '.' (NAME=DIR)"
        ));
    }
    Ok((name, canonical))
}

/// `METHOD PATH` for `--request`.
pub fn parse_request_line(text: &str) -> Result<(String, String), String> {
    let mut parts = text.split_whitespace();
    match (parts.next(), parts.next(), parts.next()) {
        (Some(method), Some(path), None)
            if method.chars().all(|c| c.is_ascii_uppercase()) && path.starts_with('/') =>
        {
            Ok((method.to_owned(), path.to_owned()))
        }
        _ => Err(format!(
            "expected 'METHOD /path' (e.g. 'GET /api/items'), got '{text}'"
        )),
    }
}

/// `name: value` for `--request-header`.
pub fn parse_request_header(text: &str) -> Result<(String, String), String> {
    match text.split_once(':') {
        Some((name, value))
            if !name.trim().is_empty() && name.trim().chars().all(|c| c.is_ascii_graphic() && c != ':') =>
        {
            Ok((name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        }
        _ => Err(format!("expected 'name: value', got '{text}'")),
    }
}

/// Parses `--headers`, naming the sets on a bad value.
pub fn parse_header_set(text: &str) -> Result<HeaderSet, String> {
    text.parse()
}

/// Parses `--suite`, naming the suites on a bad value.
pub fn parse_suite(text: &str) -> Result<Suite, String> {
    text.parse()
}

/// Parses `0,1,2,4`: whole numbers up to [`MAX_DEPTH`], at least two
/// distinct.
pub fn parse_depths(text: &str) -> Result<Depths, String> {
    let mut depths = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let depth: usize = part
            .parse()
            .map_err(|_| format!("'{part}' is not a whole number of links"))?;
        if depth > MAX_DEPTH {
            return Err(format!("{depth} links is past the limit of {MAX_DEPTH}"));
        }
        depths.push(depth);
    }
    depths.sort_unstable();
    depths.dedup();
    if depths.len() < 2 {
        return Err("give at least two distinct depths, e.g. 0,1,2,4,8,16".into());
    }
    Ok(Depths(depths))
}

/// Parses `--max-header-bytes`, refusing what hyper cannot honour (below
/// its minimum the limit was silently raised).
pub fn parse_header_bytes(text: &str) -> Result<usize, String> {
    let min = crate::adapter::MIN_HEADER_BYTES;
    match text.trim().parse::<usize>() {
        Ok(bytes) if bytes >= min => Ok(bytes),
        Ok(bytes) => Err(format!(
            "{bytes} is below {min}: hyper's read buffer, which holds the request head, \
             cannot be smaller, so a lower limit could not be kept; use {min} or more"
        )),
        Err(_) => Err(format!(
            "invalid byte count '{text}': expected a whole number, at least {min}"
        )),
    }
}

/// `KEY=VALUE` for `--env`.
pub fn parse_env_var(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((key, value)) if !key.is_empty() && !key.contains(char::is_whitespace) => {
            Ok((key.to_owned(), value.to_owned()))
        }
        _ => Err(format!("expected KEY=VALUE, got '{text}'")),
    }
}

pub fn parse_rate(text: &str) -> Result<f64, String> {
    match text.trim().replace('_', "").parse::<f64>() {
        Ok(rate) if rate.is_finite() && rate >= 1.0 => Ok(rate),
        _ => Err(format!(
            "invalid rate '{text}': expected requests per second, at least 1, like 5000"
        )),
    }
}

pub fn parse_precision(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(p) if (0.001..=0.5).contains(&p) => Ok(p),
        _ => Err(format!(
            "invalid precision '{text}': expected a fraction between 0.001 and 0.5, like 0.05"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_head_limit_below_hyper_minimum_is_refused() {
        assert_eq!(parse_header_bytes("8192"), Ok(8192));
        assert!(parse_header_bytes("8191").unwrap_err().contains("below 8192"));
        assert!(parse_header_bytes("lots").unwrap_err().contains("at least 8192"));
    }

    #[test]
    fn depths_are_sorted_deduplicated_and_bounded() {
        assert_eq!(parse_depths("4, 0,2,2"), Ok(Depths(vec![0, 2, 4])));
        assert!(parse_depths("3").unwrap_err().contains("two distinct"));
        assert!(parse_depths("1,x").unwrap_err().contains("'x'"));
        assert!(parse_depths("1,100000").unwrap_err().contains("limit"));
    }

    #[test]
    fn rates_and_precisions_out_of_range_are_refused() {
        assert_eq!(parse_rate("10_000"), Ok(10_000.0));
        assert!(parse_rate("0.5").is_err());
        assert!(parse_rate("inf").is_err());
        assert_eq!(parse_precision("0.05"), Ok(0.05));
        assert!(parse_precision("0").is_err());
        assert!(parse_precision("2").is_err());
    }
}
