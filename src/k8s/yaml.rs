/*!
A JSON value written as block-style YAML, the form people read and diff
Kubernetes manifests in.

Small on purpose: manifests hold maps, lists, strings, whole numbers and
booleans, nothing YAML-specific (anchors, tags, multi-line scalars). A
string is written plain only when it cannot be read back as anything else
(letters, digits and `._/-`, starting with a letter or `/`, not a YAML 1.1
boolean or null such as `yes` or `off`); every other string is written as a
JSON string, which YAML reads as a double-quoted scalar, so user text with
quotes, colons, `#` or `$` round-trips exactly (the integration tests parse
the output with PyYAML and compare).
*/

use serde_json::Value;

/// `value` as one YAML document, after `comment` (each line prefixed `# `).
pub fn document(comment: &str, value: &Value) -> String {
    let mut out = String::new();
    for line in comment.lines() {
        out.push_str(format!("# {line}").trim_end());
        out.push('\n');
    }
    write_value(&mut out, value, 0);
    out
}

/// Writes a map or list as indented block lines (each ending in a newline),
/// or a scalar followed by a newline.
fn write_value(out: &mut String, value: &Value, indent: usize) {
    let pad = " ".repeat(indent);
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (key, item) in map {
                out.push_str(&format!("{pad}{}:", scalar_text(key)));
                write_nested(out, item, indent + 2);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            for item in items {
                // The item's first line goes after "- "; the rest stay at
                // the item's indent, two columns in.
                let mut block = String::new();
                write_value(&mut block, item, indent + 2);
                out.push_str(&format!("{pad}- {}", &block[indent + 2..]));
            }
        }
        scalar => {
            out.push_str(&pad);
            out.push_str(&scalar_of(scalar));
            out.push('\n');
        }
    }
}

/// What follows `key:`: a scalar (or empty collection) on the same line, or
/// a nested block on the next lines.
fn write_nested(out: &mut String, value: &Value, indent: usize) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            out.push('\n');
            write_value(out, value, indent);
        }
        Value::Array(items) if !items.is_empty() => {
            out.push('\n');
            write_value(out, value, indent);
        }
        scalar => {
            out.push(' ');
            out.push_str(&scalar_of(scalar));
            out.push('\n');
        }
    }
}

/// A scalar or empty collection on one line.
fn scalar_of(value: &Value) -> String {
    match value {
        Value::String(text) => scalar_text(text),
        Value::Object(_) => "{}".to_owned(),
        Value::Array(_) => "[]".to_owned(),
        other => other.to_string(),
    }
}

/// A string: plain when unambiguous, else JSON-quoted.
fn scalar_text(text: &str) -> String {
    const WORDS: [&str; 12] = [
        "true", "false", "yes", "no", "on", "off", "y", "n", "null", "nan", "inf", "~",
    ];
    let first_ok = text.starts_with(|c: char| c.is_ascii_alphabetic() || c == '/');
    let rest_ok = text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "._/-".contains(c));
    if first_ok && rest_ok && !WORDS.contains(&text.to_ascii_lowercase().as_str()) {
        text.to_owned()
    } else {
        serde_json::to_string(text).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn maps_and_lists_nest_in_blocks_with_keys_in_order() {
        let value = json!({
            "kind": "Job",
            "spec": {
                "completions": 3,
                "suspend": false,
                "containers": [{ "name": "load", "args": ["-c", "400"], "env": [] }],
                "labels": {},
            },
        });
        // Keys in the order they were inserted: serde_json's preserve_order
        // is on in this crate graph (a dependency asks for it), and the
        // manifests read apiVersion, kind, metadata, spec as kubectl's
        // examples do.
        let expected = "\
# made by a test
kind: Job
spec:
  completions: 3
  suspend: false
  containers:
    - name: load
      args:
        - \"-c\"
        - \"400\"
      env: []
  labels: {}
";
        assert_eq!(document("made by a test", &value), expected);
    }

    #[test]
    fn strings_that_yaml_would_read_otherwise_are_quoted() {
        for plain in [
            "load",
            "Indexed",
            "/results",
            "app.kubernetes.io/name",
            "fwbench-load",
            "batch/v1",
        ] {
            assert_eq!(scalar_text(plain), plain);
        }
        for quoted in [
            "2",
            "1Gi",
            "yes",
            "No",
            "off",
            "~",
            "",
            "-c",
            "a b",
            "x: y",
            "#c",
            "$(HOME)",
            "reg/img:1",
        ] {
            assert_eq!(
                scalar_text(quoted),
                serde_json::to_string(quoted).unwrap(),
                "{quoted}"
            );
        }
    }
}
