//! Rust source read as text: comments, strings and test modules blanked,
//! and the paths a file names (`use` trees, `crate::`/`super::`/`self::`
//! paths, `pub use` re-exports).

/// The source with comments and string and char literals turned to spaces
/// (newlines kept), so that only code is read.
pub(super) fn blank_comments_and_strings(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let blank = |out: &mut Vec<u8>, range: std::ops::Range<usize>| {
        for b in &mut out[range] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    };
    let mut i = 0;
    while i < bytes.len() {
        let rest = &bytes[i..];
        if rest.starts_with(b"//") {
            let end = rest
                .iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |n| i + n);
            blank(&mut out, i..end);
            i = end;
        } else if rest.starts_with(b"/*") {
            let (mut depth, mut j) = (0usize, i);
            while j < bytes.len() {
                if bytes[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if bytes[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i..j);
            i = j;
        } else if rest.starts_with(b"r\"")
            || rest.starts_with(b"r#")
            || rest.starts_with(b"br\"")
            || rest.starts_with(b"br#")
        {
            let start = i + if rest[0] == b'b' { 2 } else { 1 };
            let hashes = bytes[start..].iter().take_while(|&&b| b == b'#').count();
            if bytes.get(start + hashes) != Some(&b'"') || (i > 0 && is_ident(bytes[i - 1])) {
                i += 1;
                continue;
            }
            let closing: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            let body = start + hashes + 1;
            let end = bytes[body..]
                .windows(closing.len())
                .position(|w| w == closing)
                .map_or(bytes.len(), |n| body + n + closing.len());
            blank(&mut out, i..end);
            i = end;
        } else if rest[0] == b'"' {
            let mut j = i + 1;
            while j < bytes.len() && bytes[j] != b'"' {
                j += if bytes[j] == b'\\' { 2 } else { 1 };
            }
            blank(&mut out, i..(j + 1).min(bytes.len()));
            i = j + 1;
        } else if rest[0] == b'\'' {
            // A char literal ('x', '\n', '\u{..}'), not a lifetime ('a).
            let end = if rest.get(1) == Some(&b'\\') {
                rest.iter()
                    .skip(2)
                    .position(|&b| b == b'\'')
                    .map(|n| i + 2 + n + 1)
            } else {
                let width = std::str::from_utf8(&rest[1..rest.len().min(5)]).ok().or_else(|| {
                    (2..5)
                        .rev()
                        .find_map(|n| std::str::from_utf8(&rest[1..rest.len().min(n)]).ok())
                });
                width.and_then(|s| s.chars().next()).and_then(|c| {
                    let after = 1 + c.len_utf8();
                    (rest.get(after) == Some(&b'\'')).then_some(i + after + 1)
                })
            };
            match end {
                Some(end) => {
                    blank(&mut out, i..end);
                    i = end;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Byte offset of the `}` closing the `{` at `open`.
fn closing_brace(code: &str, open: usize) -> usize {
    let mut depth = 0;
    for (i, b) in code.bytes().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    code.len()
}

/// The code with every `#[cfg(test)]` inline module blanked.
pub(super) fn blank_tests(code: &str) -> String {
    let mut out = code.to_string();
    let mut from = 0;
    while let Some(found) = code[from..].find("#[cfg(test)]") {
        let at = from + found;
        from = at + 1;
        let after = code[at + 12..].trim_start();
        let Some(header) = after.strip_prefix("mod ") else {
            continue;
        };
        let Some(brace) = header.find(['{', ';']) else {
            continue;
        };
        if header.as_bytes()[brace] != b'{' {
            continue;
        }
        let open = code.len() - header.len() + brace;
        let close = closing_brace(code, open);
        out.replace_range(
            at..=close.min(code.len() - 1),
            &" ".repeat(close.min(code.len() - 1) + 1 - at),
        );
    }
    out
}

/// Names of the modules declared `#[cfg(test)] mod name;` (in a file of
/// their own).
pub(super) fn test_module_declarations(text: &str) -> Vec<String> {
    let code = blank_comments_and_strings(text);
    let mut names = Vec::new();
    for (at, _) in code.match_indices("#[cfg(test)]") {
        let after = code[at + 12..].trim_start();
        let Some(header) = after
            .strip_prefix("mod ")
            .or_else(|| after.strip_prefix("pub mod "))
        else {
            continue;
        };
        let name: String = header
            .chars()
            .take_while(|&c| c.is_alphanumeric() || c == '_')
            .collect();
        if header[name.len()..].trim_start().starts_with(';') {
            names.push(name);
        }
    }
    names
}

/// Inline modules (`mod name { … }`) and their spans.
pub(super) fn inline_modules(code: &str) -> Vec<(String, std::ops::Range<usize>)> {
    let mut modules = Vec::new();
    for (at, _) in code.match_indices("mod ") {
        if at > 0 && is_ident(code.as_bytes()[at - 1]) {
            continue;
        }
        let header = &code[at + 4..];
        let name: String = header
            .chars()
            .take_while(|&c| c.is_alphanumeric() || c == '_')
            .collect();
        if name.is_empty() || !header[name.len()..].trim_start().starts_with('{') {
            continue;
        }
        let open = at + 4 + name.len() + header[name.len()..].find('{').expect("checked");
        modules.push((name, open..closing_brace(code, open)));
    }
    modules
}

/// Every path in the code, with its offset: each leaf of each `use` tree,
/// and each `crate::`, `super::` or `self::` path outside them.
pub(super) fn paths_in(code: &str) -> Vec<(usize, Vec<String>)> {
    let uses = use_statements(code);
    let statements: Vec<std::ops::Range<usize>> =
        uses.iter().map(|(at, tree)| *at..*at + 4 + tree.len()).collect();
    let mut paths = Vec::new();
    for &(at, tree) in &uses {
        let public = is_public(code, at);
        for (path, name) in expand_use_tree(tree) {
            // A re-export alone is a door for others, not a use: it is an
            // arrow only when the file's own code names what it passes on.
            if public && !named_outside(code, &statements, &name) {
                continue;
            }
            paths.push((at, path));
        }
    }
    let bytes = code.as_bytes();
    for start in ["crate::", "super::", "self::"] {
        for (at, _) in code.match_indices(start) {
            if at > 0 && (is_ident(bytes[at - 1]) || bytes[at - 1] == b':' || bytes[at - 1] == b'$') {
                continue;
            }
            if statements.iter().any(|s| s.contains(&at)) {
                continue;
            }
            // The path runs while identifiers are joined by `::`.
            let mut chain = Vec::new();
            let mut rest = &code[at..];
            loop {
                let word: String = rest
                    .chars()
                    .take_while(|&c| c.is_alphanumeric() || c == '_')
                    .collect();
                if word.is_empty() {
                    break;
                }
                rest = &rest[word.len()..];
                chain.push(word);
                match rest.strip_prefix("::") {
                    Some(after) => rest = after,
                    None => break,
                }
            }
            paths.push((at, chain));
        }
    }
    paths
}

/// Each `use …;` statement: its offset and its tree's text.
fn use_statements(code: &str) -> Vec<(usize, &str)> {
    let bytes = code.as_bytes();
    let mut statements = Vec::new();
    for (at, _) in code.match_indices("use ") {
        if at > 0 && (is_ident(bytes[at - 1]) || bytes[at - 1] == b':') {
            continue;
        }
        let Some(end) = code[at..].find(';') else { continue };
        statements.push((at, &code[at + 4..at + end]));
    }
    statements
}

/// The `pub use` re-exports of a file: exported name (`*` for a glob) and
/// the path it stands for.
pub(super) fn re_exports(code: &str) -> Vec<(String, Vec<String>)> {
    let mut exports = Vec::new();
    for (at, tree) in use_statements(code) {
        if is_public(code, at) {
            for (path, name) in expand_use_tree(tree) {
                exports.push((name, path));
            }
        }
    }
    exports
}

/// Whether the `use` at `at` is `pub` or `pub(…)`.
fn is_public(code: &str, at: usize) -> bool {
    let before = code[..at].trim_end();
    before.ends_with("pub")
        || before.ends_with(')') && before.trim_end_matches(|c| c != '(').ends_with("pub(")
}

/// Whether `name` appears as a word in the code outside the `use`
/// statements.
fn named_outside(code: &str, statements: &[std::ops::Range<usize>], name: &str) -> bool {
    let bytes = code.as_bytes();
    code.match_indices(name).any(|(at, _)| {
        let end = at + name.len();
        let word_starts = at == 0 || !is_ident(bytes[at - 1]);
        let word_ends = !bytes.get(end).is_some_and(|&b| is_ident(b));
        word_starts && word_ends && !statements.iter().any(|s| s.contains(&at))
    })
}

/// Whether a file defines a public item `name`.
pub(super) fn defines(code: &str, name: &str) -> bool {
    ["struct", "enum", "fn", "type", "trait", "const", "static", "mod"]
        .iter()
        .any(|kind| {
            code.match_indices(&format!("{kind} {name}")).any(|(at, found)| {
                !code
                    .as_bytes()
                    .get(at + found.len())
                    .is_some_and(|&b| is_ident(b))
            })
        })
}

/// A `use` tree's leaves: each full path and the name it binds (`*` for a
/// glob; `self` in a group binds the group's module).
fn expand_use_tree(tree: &str) -> Vec<(Vec<String>, String)> {
    let mut tokens: Vec<String> = Vec::new();
    let mut word = String::new();
    for c in tree.replace("::", " :: ").chars() {
        if c.is_whitespace() || matches!(c, '{' | '}' | ',') {
            if !word.is_empty() {
                tokens.push(std::mem::take(&mut word));
            }
            if !c.is_whitespace() {
                tokens.push(c.to_string());
            }
        } else {
            word.push(c);
        }
    }
    if !word.is_empty() {
        tokens.push(word);
    }
    let mut leaves = Vec::new();
    let mut at = 0;
    parse_tree(&tokens, &mut at, &[], &mut leaves);
    leaves
}

fn parse_tree(tokens: &[String], at: &mut usize, prefix: &[String], leaves: &mut Vec<(Vec<String>, String)>) {
    let mut path = prefix.to_vec();
    while *at < tokens.len() {
        let token = tokens[*at].as_str();
        *at += 1;
        match token {
            "::" => {}
            "{" => {
                loop {
                    parse_tree(tokens, at, &path, leaves);
                    match tokens.get(*at).map(String::as_str) {
                        Some(",") => *at += 1,
                        Some("}") => {
                            *at += 1;
                            break;
                        }
                        _ => break,
                    }
                    if tokens.get(*at).map(String::as_str) == Some("}") {
                        *at += 1;
                        break;
                    }
                }
                return;
            }
            "," | "}" => {
                *at -= 1;
                break;
            }
            "as" => {
                let alias = tokens.get(*at).cloned().unwrap_or_default();
                *at += 1;
                leaves.push((path.clone(), alias));
                return;
            }
            "self" if !path.is_empty() => {
                let name = path.last().cloned().unwrap_or_default();
                leaves.push((path.clone(), name));
                return;
            }
            word => path.push(word.to_string()),
        }
    }
    if path.len() > prefix.len() {
        let name = path.last().cloned().unwrap_or_default();
        if name == "*" {
            path.pop();
        }
        leaves.push((path, name));
    }
}
