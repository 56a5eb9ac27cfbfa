//! Projects that cannot load: each fails with a load error that names the
//! file (and, for a dependency, who required it), exit status 2, and
//! nothing left running. Each is made in a temporary directory.

use std::path::Path;
use std::time::Duration;

use super::Scratch;
use crate::support::fwbench_within;

/// Serves `project`, which must fail to load with exit status 2 well
/// within the load timeout; returns its stderr.
fn load_fails(project: &Path) -> String {
    let out = fwbench_within(
        [
            "serve".as_ref(),
            project.as_os_str(),
            "--port".as_ref(),
            "0".as_ref(),
            "--handler-timeout".as_ref(),
            "5s".as_ref(),
        ],
        Duration::from_secs(20),
    )
    .expect("serve exits by itself");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        out.stdout.is_empty(),
        "no banner: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    stderr
}

const PACKAGE: (&str, &str) = ("package.json", r#"{"name":"bad","main":"index.js"}"#);

#[test]
fn a_missing_module_names_it_and_the_require_stack() {
    let project = Scratch::new(
        "missing",
        &[
            PACKAGE,
            ("index.js", "require('./lib/helper');\n"),
            ("lib/helper.js", "require('left-pad');\n"),
        ],
    );
    let err = load_fails(project.path());
    assert!(err.contains("Cannot find module 'left-pad'"), "{err}");
    assert!(
        err.contains("Require stack:") && err.contains("lib/helper.js") && err.contains("index.js"),
        "{err}"
    );
}

#[test]
fn a_syntax_error_in_a_dependency_names_its_file_and_line() {
    let project = Scratch::new(
        "syntax",
        &[
            PACKAGE,
            ("index.js", "require('broken');\n"),
            (
                "node_modules/broken/package.json",
                r#"{"name":"broken","version":"1.0.0"}"#,
            ),
            (
                "node_modules/broken/index.js",
                "const a = 1;\nmodule.exports = { a,, };\n",
            ),
        ],
    );
    let err = load_fails(project.path());
    assert!(err.contains("SyntaxError"), "{err}");
    assert!(err.contains("node_modules/broken/index.js:2"), "{err}");
}

#[test]
fn a_package_that_needs_a_refused_builtin_says_which_and_why() {
    let project = Scratch::new(
        "builtin",
        &[
            PACKAGE,
            ("index.js", "require('spawner');\n"),
            (
                "node_modules/spawner/package.json",
                r#"{"name":"spawner","version":"1.0.0"}"#,
            ),
            (
                "node_modules/spawner/index.js",
                "require('child_process').execSync('id');\n",
            ),
        ],
    );
    let err = load_fails(project.path());
    assert!(
        err.contains("node:child_process is not available in fwbench"),
        "{err}"
    );
    assert!(err.contains("execSync"), "{err}");
    assert!(err.contains("node_modules/spawner/index.js"), "{err}");
}

#[test]
fn a_symlink_out_of_the_project_is_refused() {
    let outside = Scratch::new("outside", &[("secret.js", "module.exports = 'secret';\n")]);
    let project = Scratch::new("symlink", &[PACKAGE, ("index.js", "require('./secret.js');\n")]);
    std::os::unix::fs::symlink(outside.path().join("secret.js"), project.path().join("secret.js"))
        .expect("make the link");
    let err = load_fails(project.path());
    assert!(
        err.contains("EACCES") && err.contains("only its project directory"),
        "{err}"
    );
    assert!(err.contains("secret.js"), "{err}");
}

#[test]
fn a_package_json_that_is_not_json_is_named() {
    let project = Scratch::new("manifest", &[("package.json", "{ \"main\": "), ("index.js", "")]);
    let err = load_fails(project.path());
    assert!(err.contains("package.json is not valid JSON"), "{err}");
}

#[test]
fn an_entry_that_never_listens_and_exports_nothing_is_refused() {
    let project = Scratch::new("idle", &[PACKAGE, ("index.js", "const x = 1;\n")]);
    let err = load_fails(project.path());
    assert!(err.contains("never called listen()"), "{err}");
}

#[test]
fn typescript_that_needs_a_transform_is_refused_as_node_refuses_it() {
    let project = Scratch::new(
        "enum",
        &[
            (r"package.json", r#"{"name":"bad","type":"module","main":"index.ts"}"#),
            ("index.ts", "enum Color { Red, Green }\nexport default { fetch: () => new Response(String(Color.Red)) };\n"),
        ],
    );
    let err = load_fails(project.path());
    assert!(err.contains("ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX"), "{err}");
    assert!(err.contains("index.ts"), "{err}");
}

#[test]
fn a_native_addon_is_refused_by_name() {
    let project = Scratch::new(
        "addon",
        &[
            PACKAGE,
            ("index.js", "require('./build/binding.node');\n"),
            ("build/binding.node", "\x7fELF"),
        ],
    );
    let err = load_fails(project.path());
    assert!(
        err.contains("Cannot load native addon") && err.contains("binding.node"),
        "{err}"
    );
}

#[test]
fn an_absent_builtin_names_the_module_that_imported_it() {
    let project = Scratch::new(
        "absent",
        &[
            (
                r"package.json",
                r#"{"name":"bad","type":"module","main":"index.js"}"#,
            ),
            (
                "index.js",
                "import readline from 'node:readline';\nexport default readline;\n",
            ),
        ],
    );
    let err = load_fails(project.path());
    assert!(err.contains("node:readline is not available in fwbench"), "{err}");
    assert!(err.contains("index.js"), "names the importer: {err}");
}

#[test]
fn requiring_an_es_module_with_top_level_await_is_nodes_error() {
    let project = Scratch::new(
        "tla",
        &[
            PACKAGE,
            ("index.js", "require('./late.mjs');\n"),
            ("late.mjs", "await null;\nexport const x = 1;\n"),
        ],
    );
    let err = load_fails(project.path());
    assert!(
        err.contains("ERR_REQUIRE_ASYNC_MODULE") || err.contains("top-level await"),
        "{err}"
    );
    assert!(err.contains("late.mjs"), "{err}");
}
