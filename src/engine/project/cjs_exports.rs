//! What Node finds in a CommonJS module without running it: the names its
//! ES importers may import (`import { a } from './cjs.js'`), and whether a
//! file with no declared type is an ES module after all.
//!
//! Node finds named exports with cjs-module-lexer; this reads the same
//! patterns from swc's syntax tree: `exports.a =`, `module.exports.a =`,
//! `exports['a'] =`, `Object.defineProperty(exports, 'a', …)`,
//! `module.exports = { a, b: …, c() {} }` (and esbuild's
//! `0 && (module.exports = {…})` hint, the same assignment), and re-exports
//! (`module.exports = require('./x')`, `...require('./x')` in that object,
//! TypeScript's `__exportStar(require('./x'), exports)`). Anything else is
//! still reachable through the default export, `module.exports`.

use swc_common::sync::Lrc;
use swc_common::{FileName, SourceMap, Spanned};
use swc_ecma_ast::{
    AssignTarget, CallExpr, Callee, Expr, Lit, MemberExpr, MemberProp, ModuleItem, Program, Prop, PropName,
    PropOrSpread, SimpleAssignTarget,
};
use swc_ecma_parser::{Parser, StringInput, Syntax};
use swc_ecma_visit::{Visit, VisitWith};

/// A CommonJS module's statically visible exports.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Exports {
    /// Names assigned or defined on `exports`.
    pub names: Vec<String>,
    /// Specifiers whose exports this module passes on.
    pub reexports: Vec<String>,
}

fn parse(source: &str) -> Option<Program> {
    let map: Lrc<SourceMap> = Lrc::default();
    let file = map.new_source_file(FileName::Anon.into(), source.to_owned());
    let mut parser = Parser::new(Syntax::Es(Default::default()), StringInput::from(&*file), None);
    parser.parse_program().ok()
}

/// Where `source`, a CommonJS module, first breaks the grammar: `(line,
/// column, what)`, 1-based, for a load error that names the place (V8's
/// own error from compiling a module wrapper carries no location).
pub fn syntax_error(source: &str) -> Option<(usize, usize, String)> {
    let map: Lrc<SourceMap> = Lrc::default();
    let file = map.new_source_file(FileName::Anon.into(), source.to_owned());
    let syntax = Syntax::Es(swc_ecma_parser::EsSyntax {
        allow_return_outside_function: true,
        ..Default::default()
    });
    let mut parser = Parser::new(syntax, StringInput::from(&*file), None);
    let error = match parser.parse_script() {
        Err(error) => error,
        Ok(_) => parser.take_errors().into_iter().next()?,
    };
    let at = map.lookup_char_pos(error.span().lo);
    Some((at.line, at.col_display + 1, error.kind().msg().into_owned()))
}

/// Whether `source` has ES module syntax (an `import` or `export`
/// declaration), which makes a file of undeclared type an ES module. A
/// file that does not parse is judged by its lines: one that starts with
/// `import` or `export` makes it a module, so that V8 reports its syntax
/// error as a module's (Node, too, retries a failed CommonJS compile as an
/// ES module when it sees module syntax).
pub fn has_module_syntax(source: &str) -> bool {
    // Most files of a package without a `type` are CommonJS with no
    // `import`/`export` keyword at all: no need to parse them.
    if !mentions_module_keyword(source) {
        return false;
    }
    match parse(source) {
        Some(Program::Module(module)) => module
            .body
            .iter()
            .any(|item| matches!(item, ModuleItem::ModuleDecl(_))),
        Some(Program::Script(_)) => false,
        None => source.lines().any(|line| {
            let line = line.trim_start();
            ["import ", "import{", "export ", "export{"]
                .iter()
                .any(|start| line.starts_with(start))
        }),
    }
}

/// Whether `source` has `import` or `export` followed by what can follow
/// them in a declaration (a space, `{`, `*`, a quote, `.` of
/// `import.meta`): without one there is no module syntax to find.
/// `module.exports`, `exports.x` and `import(` do not count.
fn mentions_module_keyword(source: &str) -> bool {
    let follows = |rest: &str| {
        rest.chars()
            .next()
            .is_some_and(|c| c.is_whitespace() || matches!(c, '{' | '*' | '"' | '\'' | '.'))
    };
    ["import", "export"].iter().any(|keyword| {
        source
            .match_indices(keyword)
            .any(|(at, _)| follows(&source[at + keyword.len()..]))
    })
}

/// The exports of the CommonJS module `source`.
pub fn detect(source: &str) -> Exports {
    let mut found = Finder::default();
    if let Some(program) = parse(source) {
        program.visit_with(&mut found);
    }
    found.exports.names.sort();
    found.exports.names.dedup();
    found.exports
}

#[derive(Default)]
struct Finder {
    exports: Exports,
}

/// `exports` or `module.exports`.
fn is_exports(expr: &Expr) -> bool {
    match expr {
        Expr::Ident(ident) => &*ident.sym == "exports",
        Expr::Member(member) => is_module_exports(member),
        Expr::Paren(paren) => is_exports(&paren.expr),
        _ => false,
    }
}

fn is_module_exports(member: &MemberExpr) -> bool {
    matches!(&*member.obj, Expr::Ident(ident) if &*ident.sym == "module")
        && property(&member.prop).as_deref() == Some("exports")
}

fn property(prop: &MemberProp) -> Option<String> {
    match prop {
        MemberProp::Ident(ident) => Some(ident.sym.to_string()),
        MemberProp::Computed(computed) => string(&computed.expr),
        MemberProp::PrivateName(_) => None,
    }
}

fn string(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Lit(Lit::Str(text)) => text.value.as_str().map(str::to_owned),
        Expr::Tpl(tpl) if tpl.exprs.is_empty() && tpl.quasis.len() == 1 => {
            tpl.quasis[0].cooked.as_ref()?.as_str().map(str::to_owned)
        }
        _ => None,
    }
}

/// The specifier of `require('x')`.
fn required(expr: &Expr) -> Option<String> {
    let Expr::Call(call) = expr else { return None };
    let Callee::Expr(callee) = &call.callee else {
        return None;
    };
    match &**callee {
        Expr::Ident(ident) if &*ident.sym == "require" && call.args.len() == 1 => string(&call.args[0].expr),
        _ => None,
    }
}

impl Finder {
    fn object_literal(&mut self, props: &[PropOrSpread]) {
        for prop in props {
            match prop {
                PropOrSpread::Spread(spread) => {
                    if let Some(specifier) = required(&spread.expr) {
                        self.exports.reexports.push(specifier);
                    }
                }
                PropOrSpread::Prop(prop) => {
                    let key = match &**prop {
                        Prop::Shorthand(ident) => Some(ident.sym.to_string()),
                        Prop::KeyValue(kv) => prop_name(&kv.key),
                        Prop::Method(method) => prop_name(&method.key),
                        Prop::Getter(getter) => prop_name(&getter.key),
                        _ => None,
                    };
                    self.exports.names.extend(key);
                }
            }
        }
    }
}

fn prop_name(name: &PropName) -> Option<String> {
    match name {
        PropName::Ident(ident) => Some(ident.sym.to_string()),
        PropName::Str(text) => text.value.as_str().map(str::to_owned),
        _ => None,
    }
}

impl Visit for Finder {
    fn visit_assign_expr(&mut self, assign: &swc_ecma_ast::AssignExpr) {
        if let AssignTarget::Simple(SimpleAssignTarget::Member(member)) = &assign.left {
            if is_module_exports(member) {
                // module.exports = …
                match &*assign.right {
                    Expr::Object(object) => self.object_literal(&object.props),
                    right => self.exports.reexports.extend(required(right)),
                }
            } else if is_exports(&member.obj) {
                // exports.a = …, module.exports.a = …
                self.exports.names.extend(property(&member.prop));
            }
        }
        assign.visit_children_with(self);
    }

    fn visit_call_expr(&mut self, call: &CallExpr) {
        if let Callee::Expr(callee) = &call.callee {
            match &**callee {
                // Object.defineProperty(exports, 'a', …)
                Expr::Member(member)
                    if matches!(&*member.obj, Expr::Ident(o) if &*o.sym == "Object")
                        && property(&member.prop).as_deref() == Some("defineProperty")
                        && call.args.len() >= 2
                        && is_exports(&call.args[0].expr) =>
                {
                    self.exports.names.extend(string(&call.args[1].expr));
                }
                // __exportStar(require('./x'), exports), __export(require('./x'))
                Expr::Ident(ident)
                    if matches!(&*ident.sym, "__exportStar" | "__export") && !call.args.is_empty() =>
                {
                    self.exports.reexports.extend(required(&call.args[0].expr));
                }
                _ => {}
            }
        }
        call.visit_children_with(self);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_patterns_node_finds() {
        let found = detect(
            r#"
            "use strict";
            exports.a = 1;
            module.exports.b = function () {};
            exports['c-d'] = 3;
            Object.defineProperty(exports, "e", { enumerable: true, get: () => 5 });
            exports.f = exports.g = void 0;
            __exportStar(require("./star"), exports);
            function later() { exports.h = 8; }
            "#,
        );
        assert_eq!(found.names, ["a", "b", "c-d", "e", "f", "g", "h"]);
        assert_eq!(found.reexports, ["./star"]);
    }

    #[test]
    fn module_exports_objects_and_reexports() {
        let found = detect("module.exports = { x, y: 2, z() {}, 'q r': 1, ...require('./more') };");
        assert_eq!(found.names, ["q r", "x", "y", "z"]);
        assert_eq!(found.reexports, ["./more"]);
        let esbuild = detect("var m = {}; 0 && (module.exports = { fromHint, other });");
        assert_eq!(esbuild.names, ["fromHint", "other"]);
        let whole = detect("module.exports = require('./impl');");
        assert_eq!(whole.reexports, ["./impl"]);
        assert!(detect("module.exports = createApp();").names.is_empty());
    }

    #[test]
    fn module_syntax_is_import_or_export() {
        assert!(has_module_syntax("import a from 'a'; a();"));
        assert!(has_module_syntax("const x = 1;\nexport { x };"));
        assert!(!has_module_syntax("const a = require('a'); module.exports = a;"));
        assert!(!has_module_syntax("this is not javascript"));
        assert!(!mentions_module_keyword(
            "module.exports = { a }; exports.b = import('c');"
        ));
        assert!(mentions_module_keyword("export{a}") && mentions_module_keyword("import\"x\""));
        assert!(mentions_module_keyword("const u = import.meta.url;"));
        assert!(has_module_syntax(
            "export default {\n  f() { return g('x';\n  },\n};\n"
        ));
    }

    #[test]
    fn syntax_errors_have_a_place() {
        let (line, column, what) = syntax_error("const a = 1;\nmodule.exports = { a,, };\n").unwrap();
        assert_eq!((line, column), (2, 22), "{what}");
        assert_eq!(syntax_error("return 1;"), None, "a CommonJS module may return");
    }
}
