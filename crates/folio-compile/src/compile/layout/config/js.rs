//! The static part of a JavaScript or TypeScript config file, evaluated without running it:
//! parsed by oxc (the whole language, TypeScript included), then the value the module exports
//! (`export default …`, `module.exports = …`) is evaluated where it is data: object and array
//! literals (spreads of known values merged), strings, template strings whose parts are known,
//! numbers, booleans, `const` bindings of the same file, the relative modules it imports (a
//! `sidebar.ts`, a `versions.json`), and the argument of `defineConfig(…)`-style calls. A config
//! written as a function (`export default async () => ({…})`, Docusaurus's `async function
//! createConfig() { … return config }`) is evaluated through its returned value. Anything else is
//! [`Value::Unknown`], described by its source text.
//!
//! Runs nothing, reads nothing but the file and the relative modules it imports (at most
//! [`MAX_MODULES`], each through [`super::read_text`]'s bounds).

use std::collections::BTreeMap;
use std::path::Path;

use oxc_allocator::Allocator;
use oxc_ast::ast::{
    Argument, ArrayExpressionElement, AssignmentTarget, BindingPattern, Declaration,
    ExportDefaultDeclarationKind, Expression, Function, ImportDeclarationSpecifier, ModuleExportName,
    ObjectPropertyKind, PropertyKey, PropertyKind, Statement,
};
use oxc_parser::Parser;
use oxc_span::{GetSpan, SourceType};

use super::{Map, Value};

/// Modules read for one config file, itself included.
const MAX_MODULES: usize = 16;
/// Values one config file may evaluate to, all modules together: a binding used twice is
/// evaluated once but copied twice, so a 1 MiB file of bindings that each use the previous
/// one twice would otherwise grow without bound.
const MAX_VALUES: usize = 200_000;
/// How deep one evaluation may nest (bindings referring to bindings, nested literals).
const MAX_DEPTH: usize = 64;
use super::MAX_NESTING;

/// The value `rel` (content-relative) exports by default, or its export `name`.
pub(super) fn evaluate(root: &Path, rel: &str, text: &str, name: Option<&str>) -> Value {
    let mut loader = Loader { root, modules: 0, budget: MAX_VALUES };
    loader.modules += 1;
    let want = name.map_or(Want::Default, |n| Want::Named(n.to_owned()));
    loader.module(rel, text, &want)
}

/// What an importer wants of a module.
enum Want {
    Default,
    Named(String),
    Namespace,
}

/// Reads the modules a config imports, counting them.
struct Loader<'r> {
    root: &'r Path,
    modules: usize,
    /// Values that may still be made ([`MAX_VALUES`] at the start).
    budget: usize,
}

impl Loader<'_> {
    /// The export `want` of the module `rel` whose text is `text`.
    fn module(&mut self, rel: &str, text: &str, want: &Want) -> Value {
        if rel.ends_with(".json") {
            return match serde_json::from_str::<serde_json::Value>(text) {
                Ok(json) => pick(super::from_json(&json), want),
                Err(_) => Value::Unknown(format!("`{rel}`, which is not valid JSON")),
            };
        }
        if super::nesting(text) > MAX_NESTING {
            return Value::Unknown(format!("`{rel}`, nested more than {MAX_NESTING} levels deep"));
        }
        let allocator = Allocator::default();
        let source_type = SourceType::from_path(rel).unwrap_or_default();
        let parsed = Parser::new(&allocator, text, source_type).parse();
        if parsed.panicked {
            return Value::Unknown(format!("`{rel}`, which does not parse as {}", language(rel)));
        }
        // A file the parser recovered from is not the file the generator runs: none of it is
        // taken as known.
        if let Some(error) =
            parsed.diagnostics.iter().find(|d| d.severity == oxc_diagnostics::Severity::Error)
        {
            let line = error
                .labels
                .first()
                .map(|label| text.get(..label.offset() as usize).unwrap_or(text).matches('\n').count() + 1);
            let at = line.map(|l| format!(" at line {l}")).unwrap_or_default();
            return Value::Unknown(format!(
                "`{rel}`, which does not parse as {}{at}: {error}",
                language(rel)
            ));
        }
        let module = Module::new(rel, text, &parsed.program.body);
        let mut eval = Eval {
            module: &module,
            loader: self,
            depth: 0,
            scopes: Vec::new(),
            visiting: Vec::new(),
            memo: BTreeMap::new(),
        };
        eval.export(want)
    }

    /// The export `want` of the module `specifier` imported from `from` (content-relative).
    fn import(&mut self, from: &str, specifier: &str, want: &Want) -> Value {
        if !(specifier.starts_with("./") || specifier.starts_with("../")) {
            return Value::Unknown(format!("a value imported from `{specifier}`"));
        }
        let dir = from.rsplit_once('/').map_or("", |(d, _)| d);
        let Some(joined) = crate::compile::layout::beside(dir, specifier) else {
            return Value::Unknown(format!("a value imported from `{specifier}`, outside the content root"));
        };
        let candidates = std::iter::once(joined.clone())
            .chain(["ts", "mts", "js", "mjs", "cjs", "json"].iter().map(|e| format!("{joined}.{e}")))
            .chain(["ts", "js"].iter().map(|e| format!("{joined}/index.{e}")));
        let Some(rel) = candidates.into_iter().find(|c| self.root.join(c).is_file()) else {
            return Value::Unknown(format!("a value imported from `{specifier}`, which is not in the tree"));
        };
        if self.modules >= MAX_MODULES {
            return Value::Unknown(format!(
                "a value imported from `{specifier}` (more than {MAX_MODULES} modules)"
            ));
        }
        self.modules += 1;
        match super::read_text(self.root, &rel) {
            Ok(text) => self.module(&rel, &text, want),
            Err(why) => Value::Unknown(format!("a value imported from `{rel}`: {why}")),
        }
    }
}

fn language(rel: &str) -> &'static str {
    if rel.ends_with("ts") { "TypeScript" } else { "JavaScript" }
}

/// `want` of a module whose whole value is `value` (a JSON file).
fn pick(value: Value, want: &Want) -> Value {
    match want {
        Want::Default | Want::Namespace => value,
        Want::Named(name) => value.get(name).cloned().unwrap_or(Value::Null),
    }
}

/// What a name of the module is bound to.
enum Binding<'a> {
    Expr(&'a Expression<'a>),
    Function(&'a Function<'a>),
    Import(String, Want),
}

/// One parsed module's top-level names and exports.
struct Module<'a> {
    rel: &'a str,
    text: &'a str,
    bindings: BTreeMap<&'a str, Binding<'a>>,
    /// `export default …` or `module.exports = …`.
    default: Option<Binding<'a>>,
    /// Exported name → local name.
    named: BTreeMap<String, String>,
}

impl<'a> Module<'a> {
    fn new(rel: &'a str, text: &'a str, body: &'a [Statement<'a>]) -> Self {
        let mut module =
            Module { rel, text, bindings: BTreeMap::new(), default: None, named: BTreeMap::new() };
        for statement in body {
            match statement {
                Statement::ImportDeclaration(import) => {
                    let source = import.source.value.to_string();
                    for specifier in import.specifiers.iter().flatten() {
                        let (local, want) = match specifier {
                            ImportDeclarationSpecifier::ImportDefaultSpecifier(s) => {
                                (s.local.name.as_str(), Want::Default)
                            }
                            ImportDeclarationSpecifier::ImportNamespaceSpecifier(s) => {
                                (s.local.name.as_str(), Want::Namespace)
                            }
                            ImportDeclarationSpecifier::ImportSpecifier(s) => {
                                let imported = export_name(&s.imported);
                                let want =
                                    if imported == "default" { Want::Default } else { Want::Named(imported) };
                                (s.local.name.as_str(), want)
                            }
                        };
                        module.bindings.insert(local, Binding::Import(source.clone(), want));
                    }
                }
                Statement::VariableDeclaration(decl) => module.declare_variables(&decl.declarations),
                Statement::FunctionDeclaration(f) => {
                    if let Some(id) = &f.id {
                        module.bindings.insert(id.name.as_str(), Binding::Function(f));
                    }
                }
                Statement::ExportDeclaration(export) => match &export.declaration {
                    Declaration::VariableDeclaration(decl) => {
                        module.declare_variables(&decl.declarations);
                        for d in &decl.declarations {
                            if let Some(name) = binding_name(&d.id) {
                                module.named.insert(name.to_owned(), name.to_owned());
                            }
                        }
                    }
                    Declaration::FunctionDeclaration(f) => {
                        if let Some(id) = &f.id {
                            module.bindings.insert(id.name.as_str(), Binding::Function(f));
                            module.named.insert(id.name.to_string(), id.name.to_string());
                        }
                    }
                    _ => {}
                },
                Statement::ExportNamedDeclaration(export) => {
                    for specifier in &export.specifiers {
                        let (local, exported) =
                            (export_name(&specifier.local), export_name(&specifier.exported));
                        module.named.insert(exported, local);
                    }
                }
                Statement::ExportFromDeclaration(export) => {
                    // `export { x as y } from './z'`: a binding of its own.
                    for specifier in &export.specifiers {
                        let (local, exported) =
                            (export_name(&specifier.local), export_name(&specifier.exported));
                        let want = if local == "default" { Want::Default } else { Want::Named(local) };
                        let source = export.source.value.to_string();
                        if exported == "default" {
                            module.default = Some(Binding::Import(source, want));
                        } else {
                            let key: &'a str = specifier.exported.name().as_str();
                            module.bindings.insert(key, Binding::Import(source, want));
                            module.named.insert(exported, key.to_owned());
                        }
                    }
                }
                Statement::ExportDefaultDeclaration(export) => {
                    module.default = match &export.declaration {
                        ExportDefaultDeclarationKind::FunctionDeclaration(f) => Some(Binding::Function(f)),
                        kind => kind.as_expression().map(Binding::Expr),
                    };
                }
                Statement::ExpressionStatement(statement) => {
                    if let Expression::AssignmentExpression(assign) = &statement.expression
                        && let AssignmentTarget::StaticMemberExpression(member) = &assign.left
                        && member.property.name == "exports"
                        && matches!(&member.object, Expression::Identifier(id) if id.name == "module")
                    {
                        module.default = Some(Binding::Expr(&assign.right));
                    }
                }
                _ => {}
            }
        }
        module
    }

    fn declare_variables(&mut self, declarations: &'a [oxc_ast::ast::VariableDeclarator<'a>]) {
        for d in declarations {
            if let (Some(name), Some(init)) = (binding_name(&d.id), &d.init) {
                self.bindings.insert(name, Binding::Expr(init));
            }
        }
    }

    /// The source text of a node, on one line and at most 60 characters, for messages.
    fn snippet(&self, span: oxc_span::Span) -> String {
        let text = self.text.get(span.start as usize..span.end as usize).unwrap_or("");
        let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if one_line.chars().count() > 60 {
            format!("{}…", one_line.chars().take(59).collect::<String>())
        } else {
            one_line
        }
    }
}

fn binding_name<'a>(pattern: &BindingPattern<'a>) -> Option<&'a str> {
    pattern.get_binding_identifier().map(|id| id.name.as_str())
}

fn export_name(name: &ModuleExportName<'_>) -> String {
    name.name().to_string()
}

/// An evaluation in one module.
struct Eval<'m, 'a, 'r> {
    module: &'m Module<'a>,
    loader: &'m mut Loader<'r>,
    depth: usize,
    /// Names declared in the bodies of the functions being evaluated, innermost last.
    scopes: Vec<BTreeMap<&'a str, &'a Expression<'a>>>,
    /// Module bindings being evaluated (a binding that refers to itself is unknown).
    visiting: Vec<&'a str>,
    /// Module bindings already evaluated, with their sizes in values.
    memo: BTreeMap<&'a str, (Value, usize)>,
}

impl<'a> Eval<'_, 'a, '_> {
    fn export(&mut self, want: &Want) -> Value {
        match want {
            Want::Default if self.module.default.is_none() && self.module.named.contains_key("default") => {
                let local = self.module.named["default"].clone();
                let value = self.name(&local);
                match value {
                    Value::Unknown(_) => match self.module.bindings.get(local.as_str()) {
                        Some(Binding::Function(f)) => {
                            self.returned(f.body.as_deref().map_or(&[][..], |b| &b.statements))
                        }
                        _ => value,
                    },
                    value => value,
                }
            }
            Want::Default => match &self.module.default {
                Some(Binding::Expr(e)) => self.config_expr(e),
                Some(Binding::Function(f)) => {
                    self.returned(f.body.as_deref().map_or(&[][..], |b| &b.statements))
                }
                Some(Binding::Import(source, want)) => {
                    let (source, want) = (source.clone(), clone_want(want));
                    self.loader.import(self.module.rel, &source, &want)
                }
                None => Value::Unknown(format!("`{}`, which exports no default value", self.module.rel)),
            },
            Want::Named(name) => match self.module.named.get(name) {
                Some(local) => {
                    let local = local.clone();
                    self.name(&local)
                }
                None => Value::Unknown(format!("`{name}`, which `{}` does not export", self.module.rel)),
            },
            Want::Namespace => {
                let mut names: Vec<(String, String)> =
                    self.module.named.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
                names.sort();
                let entries =
                    names.into_iter().map(|(exported, local)| (exported, self.name(&local))).collect();
                Value::Map(Map { entries, partial: None })
            }
        }
    }

    /// A config's value where a function may stand for it: the value the function returns.
    fn config_expr(&mut self, expr: &'a Expression<'a>) -> Value {
        match expr.without_parentheses() {
            Expression::ArrowFunctionExpression(f) => match &f.body {
                oxc_ast::ast::ArrowFunctionBody::FunctionBody(body) => self.returned(&body.statements),
                body => match body.as_expression() {
                    Some(e) => self.config_expr(e),
                    None => Value::Unknown("a function".to_owned()),
                },
            },
            Expression::FunctionExpression(f) => {
                self.returned(f.body.as_deref().map_or(&[][..], |b| &b.statements))
            }
            Expression::Identifier(id) => match self.module.bindings.get(id.name.as_str()) {
                Some(Binding::Function(f)) => {
                    self.returned(f.body.as_deref().map_or(&[][..], |b| &b.statements))
                }
                _ => self.expr(expr),
            },
            _ => self.expr(expr),
        }
    }

    /// The value a function body returns: its last top-level `return` (or an arrow's
    /// expression), with the body's own `const`s in scope.
    fn returned(&mut self, statements: &'a [Statement<'a>]) -> Value {
        let mut scope = BTreeMap::new();
        let mut result = None;
        for statement in statements {
            match statement {
                Statement::VariableDeclaration(decl) => {
                    for d in &decl.declarations {
                        if let (Some(name), Some(init)) = (binding_name(&d.id), &d.init) {
                            scope.insert(name, init);
                        }
                    }
                }
                Statement::ReturnStatement(ret) => result = ret.argument.as_ref(),
                Statement::ExpressionStatement(e) if statements.len() == 1 => result = Some(&e.expression),
                _ => {}
            }
        }
        let Some(result) = result else {
            return Value::Unknown("a function that returns no value".to_owned());
        };
        self.scopes.push(scope);
        let value = self.config_expr(result);
        self.scopes.pop();
        value
    }

    /// The value bound to `name`.
    fn name(&mut self, name: &str) -> Value {
        if let Some(expr) = self.scopes.iter().rev().find_map(|s| s.get(name).copied()) {
            return self.nested(|eval| eval.expr(expr));
        }
        if let Some((value, size)) = self.memo.get(name) {
            if *size > self.loader.budget {
                return too_large();
            }
            self.loader.budget -= size;
            return value.clone();
        }
        let Some((key, binding)) = self.module.bindings.get_key_value(name) else {
            return match name {
                "undefined" => Value::Null,
                _ => Value::Unknown(format!("`{name}`, which this file does not define")),
            };
        };
        if self.visiting.contains(key) {
            return Value::Unknown(format!("`{name}`, which refers to itself"));
        }
        self.visiting.push(key);
        let value = match binding {
            Binding::Expr(e) => self.nested(|eval| eval.expr(e)),
            Binding::Function(f) => {
                Value::Func(Box::new(self.returned(f.body.as_deref().map_or(&[][..], |b| &b.statements))))
            }
            Binding::Import(source, want) => {
                let (source, want) = (source.clone(), clone_want(want));
                self.loader.import(self.module.rel, &source, &want)
            }
        };
        self.visiting.pop();
        let mut size = 0;
        value.walk(&mut |_| size += 1);
        self.memo.insert(key, (value.clone(), size));
        value
    }

    fn nested(&mut self, f: impl FnOnce(&mut Self) -> Value) -> Value {
        if self.depth >= MAX_DEPTH {
            return Value::Unknown("a value nested too deeply".to_owned());
        }
        self.depth += 1;
        let value = f(self);
        self.depth -= 1;
        value
    }

    fn unknown(&self, expr: &Expression<'_>) -> Value {
        Value::Unknown(format!("`{}`", self.module.snippet(expr.span())))
    }

    fn expr(&mut self, expr: &'a Expression<'a>) -> Value {
        if self.loader.budget == 0 {
            return too_large();
        }
        self.loader.budget -= 1;
        self.nested(|eval| eval.expr_inner(expr))
    }

    fn expr_inner(&mut self, expr: &'a Expression<'a>) -> Value {
        match expr {
            Expression::StringLiteral(s) => Value::Str(s.value.to_string()),
            Expression::NumericLiteral(n) => Value::Number(n.value),
            Expression::BooleanLiteral(b) => Value::Bool(b.value),
            Expression::NullLiteral(_) => Value::Null,
            Expression::TemplateLiteral(t) => {
                let mut out = String::new();
                for (i, quasi) in t.quasis.iter().enumerate() {
                    out.push_str(
                        quasi.value.cooked.as_ref().map_or(quasi.value.raw.as_str(), |c| c.as_str()),
                    );
                    if let Some(e) = t.expressions.get(i) {
                        match self.expr(e) {
                            Value::Str(s) => out.push_str(&s),
                            Value::Number(n) => out.push_str(&number_text(n)),
                            _ => return self.unknown(expr),
                        }
                    }
                }
                Value::Str(out)
            }
            Expression::Identifier(id) => self.name(id.name.as_str()),
            Expression::ParenthesizedExpression(p) => self.expr(&p.expression),
            Expression::TSAsExpression(e) => self.expr(&e.expression),
            Expression::TSSatisfiesExpression(e) => self.expr(&e.expression),
            Expression::TSNonNullExpression(e) => self.expr(&e.expression),
            Expression::TSTypeAssertion(e) => self.expr(&e.expression),
            Expression::AwaitExpression(e) => self.config_expr(&e.argument),
            Expression::ArrowFunctionExpression(_) | Expression::FunctionExpression(_) => {
                Value::Func(Box::new(self.config_expr(expr)))
            }
            Expression::ObjectExpression(object) => {
                let mut map = Map::default();
                for property in &object.properties {
                    match property {
                        ObjectPropertyKind::ObjectProperty(p) => {
                            let key = match &p.key {
                                PropertyKey::StaticIdentifier(id) => Some(id.name.to_string()),
                                PropertyKey::StringLiteral(s) => Some(s.value.to_string()),
                                PropertyKey::NumericLiteral(n) => Some(number_text(n.value)),
                                key => {
                                    key.as_expression().and_then(|e| self.expr(e).str().map(str::to_owned))
                                }
                            };
                            let Some(key) = key else {
                                map.partial.get_or_insert_with(|| {
                                    format!("a computed key `[{}]`", self.module.snippet(p.key.span()))
                                });
                                continue;
                            };
                            let value = if p.kind != PropertyKind::Init {
                                Value::Unknown(format!("the accessor `{key}`"))
                            } else {
                                self.expr(&p.value)
                            };
                            map.entries.push((key, value));
                        }
                        ObjectPropertyKind::SpreadProperty(spread) => match self.expr(&spread.argument) {
                            Value::Map(inner) => {
                                map.entries.extend(inner.entries);
                                if map.partial.is_none() {
                                    map.partial = inner.partial;
                                }
                            }
                            Value::Null => {}
                            _ => {
                                map.partial.get_or_insert_with(|| {
                                    format!("a spread of `{}`", self.module.snippet(spread.argument.span()))
                                });
                            }
                        },
                    }
                }
                Value::Map(map)
            }
            Expression::ArrayExpression(array) => {
                let mut items = Vec::new();
                for element in &array.elements {
                    match element {
                        ArrayExpressionElement::SpreadElement(spread) => match self.expr(&spread.argument) {
                            Value::List(inner) => items.extend(inner),
                            other => items.push(match other {
                                Value::Unknown(_) => other,
                                _ => self.unknown(&spread.argument),
                            }),
                        },
                        ArrayExpressionElement::Elision(_) => items.push(Value::Null),
                        element => match element.as_expression() {
                            Some(e) => items.push(self.expr(e)),
                            None => items.push(Value::Null),
                        },
                    }
                }
                Value::List(items)
            }
            Expression::CallExpression(call) => self.call(call),
            Expression::StaticMemberExpression(member) => match self.expr(&member.object) {
                Value::Map(map) if map.partial.is_none() => {
                    Value::Map(map).get(member.property.name.as_str()).cloned().unwrap_or(Value::Null)
                }
                Value::Map(map) => match Value::Map(map).get(member.property.name.as_str()) {
                    Some(v) => v.clone(),
                    None => self.unknown(expr),
                },
                _ => self.unknown(expr),
            },
            Expression::ComputedMemberExpression(member) => {
                let key = match self.expr(&member.expression) {
                    Value::Str(s) => s,
                    Value::Number(n) => number_text(n),
                    _ => return self.unknown(expr),
                };
                match self.expr(&member.object) {
                    Value::List(items) => {
                        key.parse::<usize>().ok().and_then(|i| items.get(i).cloned()).unwrap_or(Value::Null)
                    }
                    map @ Value::Map(_) => map.get(&key).cloned().unwrap_or_else(|| self.unknown(expr)),
                    _ => self.unknown(expr),
                }
            }
            Expression::BinaryExpression(binary) if binary.operator.as_str() == "+" => {
                match (self.expr(&binary.left), self.expr(&binary.right)) {
                    (Value::Str(a), Value::Str(b)) => Value::Str(a + &b),
                    (Value::Str(a), Value::Number(n)) => Value::Str(a + &number_text(n)),
                    (Value::Number(n), Value::Str(b)) => Value::Str(number_text(n) + &b),
                    (Value::Number(a), Value::Number(b)) => Value::Number(a + b),
                    _ => self.unknown(expr),
                }
            }
            Expression::LogicalExpression(logical) => {
                let left = self.expr(&logical.left);
                let falsy = matches!(&left, Value::Null | Value::Bool(false))
                    || matches!(&left, Value::Str(s) if s.is_empty());
                match (logical.operator.as_str(), &left) {
                    (_, Value::Unknown(_)) => self.unknown(expr),
                    ("||", _) if !falsy => left,
                    ("??", v) if !matches!(v, Value::Null) => left,
                    ("||" | "??", _) => self.expr(&logical.right),
                    ("&&", _) if falsy => left,
                    ("&&", _) => self.expr(&logical.right),
                    _ => self.unknown(expr),
                }
            }
            _ => self.unknown(expr),
        }
    }

    /// A call: `require('./x')` (the module), `require.resolve('./x')` (the path, relative to
    /// this file's folder), a `define…(config)` helper (its argument), or any other call as a
    /// [`Value::Call`] with its arguments evaluated.
    fn call(&mut self, call: &'a oxc_ast::ast::CallExpression<'a>) -> Value {
        let callee = self.module.snippet(call.callee.span());
        let first = call.arguments.first().and_then(Argument::as_expression);
        if let Some(Expression::StringLiteral(s)) = first {
            let source = s.value.to_string();
            match callee.as_str() {
                "require" => return self.loader.import(self.module.rel, &source, &Want::Default),
                "require.resolve" if source.starts_with('.') => {
                    let dir = self.module.rel.rsplit_once('/').map_or("", |(d, _)| d);
                    return crate::compile::layout::beside(dir, &source)
                        .map_or_else(|| Value::Unknown(format!("`{source}`")), Value::Str);
                }
                _ => {}
            }
        }
        // A function of this file: what it returns (its parameters are unknown inside it), as a
        // config that builds its sidebar with `sidebarGuide()` reads.
        if let Expression::Identifier(id) = &call.callee {
            match self.module.bindings.get(id.name.as_str()) {
                Some(Binding::Function(f)) if !self.visiting.contains(&id.name.as_str()) => {
                    let key = id.name.as_str();
                    self.visiting.push(key);
                    let value = self
                        .nested(|eval| eval.returned(f.body.as_deref().map_or(&[][..], |b| &b.statements)));
                    self.visiting.pop();
                    return value;
                }
                Some(Binding::Expr(e))
                    if matches!(
                        e.without_parentheses(),
                        Expression::ArrowFunctionExpression(_) | Expression::FunctionExpression(_)
                    ) && !self.visiting.contains(&id.name.as_str()) =>
                {
                    let key = id.name.as_str();
                    self.visiting.push(key);
                    let value = self.nested(|eval| eval.config_expr(e));
                    self.visiting.pop();
                    return value;
                }
                _ => {}
            }
        }
        let name = callee.rsplit('.').next().unwrap_or(&callee).to_owned();
        if name.starts_with("define")
            && let Some(first) = first
        {
            return self.config_expr(first);
        }
        if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            return Value::Unknown(format!("a call to `{callee}`"));
        }
        let args = call
            .arguments
            .iter()
            .map(|a| match a.as_expression() {
                Some(e) => self.config_expr(e),
                None => Value::Unknown("a spread argument".to_owned()),
            })
            .collect();
        Value::Call(name, args)
    }
}

fn too_large() -> Value {
    Value::Unknown(format!("a config of more than {MAX_VALUES} values"))
}

fn clone_want(want: &Want) -> Want {
    match want {
        Want::Default => Want::Default,
        Want::Named(n) => Want::Named(n.clone()),
        Want::Namespace => Want::Namespace,
    }
}

/// A number as JavaScript prints it in a string (`2`, not `2.0`).
fn number_text(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 { format!("{}", n as i64) } else { n.to_string() }
}
