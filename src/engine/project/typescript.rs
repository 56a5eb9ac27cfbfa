//! TypeScript as Node 26 runs it by default: type stripping. Erasable
//! syntax (annotations, interfaces, type aliases, `as`, `satisfies`,
//! generics, `import type`, `declare`) is replaced by blanks, so lines and
//! columns stay where they were and stack traces point at the `.ts` file's
//! own lines; syntax with run-time meaning (enums, namespaces with values,
//! parameter properties, legacy `module`) is refused, as Node refuses it
//! without `--experimental-transform-types`. This is swc's stripper, the
//! one Node's own (amaro) wraps, in the same mode.

use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};

use swc_common::errors::Handler;
use swc_common::sync::Lrc;
use swc_common::SourceMap;
use swc_ts_fast_strip::{Mode, Options};

/// Whether Node treats `path` as TypeScript.
pub fn is_typescript(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("ts" | "mts" | "cts")
    )
}

/// A writer into a shared buffer: swc reports diagnostics to a writer it
/// owns, and the message is wanted afterwards.
#[derive(Clone, Default)]
struct Diagnostics(Arc<Mutex<Vec<u8>>>);

impl Write for Diagnostics {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `source` (the file at `path`) with its types blanked out; the error is
/// Node's kind of message: what is not supported and where.
pub fn strip(path: &Path, source: &str) -> Result<String, String> {
    let map: Lrc<SourceMap> = Lrc::default();
    let diagnostics = Diagnostics::default();
    let handler = Handler::with_emitter_writer(Box::new(diagnostics.clone()), Some(map.clone()));
    let options = Options {
        filename: Some(path.display().to_string()),
        module: match path.extension().and_then(|e| e.to_str()) {
            Some("mts") => Some(true),
            Some("cts") => Some(false),
            _ => None,
        },
        mode: Mode::StripOnly,
        ..Options::default()
    };
    match swc_ts_fast_strip::operate(&map, &handler, source.to_owned(), options) {
        Ok(output) => Ok(output.code),
        Err(error) => {
            let text = String::from_utf8_lossy(&diagnostics.0.lock().unwrap_or_else(|e| e.into_inner()))
                .into_owned();
            let kind = match error.code {
                swc_ts_fast_strip::ErrorCode::UnsupportedSyntax => "ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX",
                _ => "ERR_INVALID_TYPESCRIPT_SYNTAX",
            };
            Err(format!(
                "{kind}: {} in {} (Node runs TypeScript by stripping types; syntax with run-time \
                 meaning needs a build step)\n{}",
                error.message,
                path.display(),
                text.trim_end()
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_become_blanks_and_lines_stay() {
        let source = "interface A { x: number }\nconst a: A = { x: 1 } as A;\nexport function f<T>(v: T): T { return v; }\n";
        let out = strip(Path::new("/p/a.ts"), source).unwrap();
        assert_eq!(out.lines().count(), source.lines().count());
        assert!(out.contains("const a    = { x: 1 }"), "{out}");
        assert!(!out.contains("interface"), "{out}");
        assert!(
            out.lines()
                .nth(2)
                .unwrap()
                .starts_with("export function f   (v   )"),
            "{out}"
        );
    }

    #[test]
    fn runtime_syntax_is_refused_as_node_refuses_it() {
        let err = strip(Path::new("/p/e.ts"), "enum Color { Red }\n").unwrap_err();
        assert!(err.starts_with("ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX"), "{err}");
        assert!(err.contains("/p/e.ts"), "{err}");
        let err = strip(
            Path::new("/p/c.ts"),
            "class P { constructor(private x: number) {} }\n",
        )
        .unwrap_err();
        assert!(err.starts_with("ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX"), "{err}");
        let err = strip(Path::new("/p/s.ts"), "const = ;\n").unwrap_err();
        assert!(err.starts_with("ERR_INVALID_TYPESCRIPT_SYNTAX"), "{err}");
    }
}
