//! `if` conditions: which fields a condition names, and that they are earlier fields on the
//! wire, so that the decoder has read them when it evaluates the condition.

use std::collections::HashSet;

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;
use syn::{Expr, Ident};

use crate::ctxt::Ctxt;

/// Finds the fields a condition names, checking that they are earlier fields.
///
/// A lowercase single-segment path (`kind`, `_0`) is taken for a field; paths with several
/// segments, uppercase names (constants, `None`), method names, function names in calls and
/// names bound inside the expression (closure parameters, `let`, match arms) are not. Names in
/// macro invocations (`matches!(kind, ...)`) are bound if they are earlier fields.
pub fn condition_uses(
    cx: &Ctxt,
    expr: &Expr,
    earlier: &[Ident],
    later: &[Ident],
    skipped: &HashSet<String>,
    field: &str,
    what: &str,
) -> Vec<Ident> {
    let mut finder = Names::default();
    finder.visit_expr(expr);
    let mut uses: Vec<Ident> = Vec::new();
    let mut push = |ident: &Ident| {
        if !uses.iter().any(|u| u == ident) {
            // Bind with the expression's span so the name resolves where the user wrote it.
            uses.push(Ident::new(&ident.to_string(), ident.span()));
        }
    };
    let earlier_list = if earlier.is_empty() {
        format!("none: a {what} can only use fields declared before its field")
    } else {
        earlier
            .iter()
            .map(|i| format!("`{i}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let paths = finder.paths.iter().map(|i| (i, true));
    let in_macros = finder.macro_idents.iter().map(|i| (i, false));
    for (ident, is_path) in paths.chain(in_macros) {
        let name = ident.to_string();
        if is_path && finder.locals.contains(&name) {
            continue;
        }
        if earlier.iter().any(|e| *e == name) {
            if skipped.contains(&name) {
                cx.error(
                    ident.span(),
                    format_args!(
                        "the {what} of `{field}` uses `{name}`, a skipped field: it is not on the wire, so the decoder cannot know it"
                    ),
                );
            } else {
                push(ident);
            }
        } else if later.first().is_some_and(|l| *l == name) {
            cx.error(
                ident.span(),
                format_args!("the {what} of `{field}` cannot use the field itself"),
            );
        } else if later.iter().any(|l| *l == name) {
            cx.error(
                ident.span(),
                format_args!(
                    "the {what} of `{field}` uses `{name}`, which comes after it: a {what} can only use earlier fields, since the decoder reads them first"
                ),
            );
        } else if !is_path {
            // Other names inside a macro call are the macro's business.
        } else if name == "self" {
            cx.error(
                ident.span(),
                format_args!(
                    "`self` is not available in a {what}: name the earlier fields directly, e.g. {}",
                    if what == "condition" {
                        "`if = \"*flag\"`"
                    } else {
                        "`count = \"len\"`"
                    }
                ),
            );
        } else if looks_like_field(&name) {
            cx.error(
                ident.span(),
                format_args!(
                    "unknown field `{name}` in the {what} of `{field}`; earlier fields: {earlier_list}"
                ),
            );
        }
    }
    uses
}

/// The names an expression may mean as fields: single-segment paths not bound inside it
/// (`true`), then identifiers inside macro calls (`false`), as [`condition_uses`] reads them.
pub fn mentioned(expr: &Expr) -> Vec<(Ident, bool)> {
    let mut finder = Names::default();
    finder.visit_expr(expr);
    let paths = finder
        .paths
        .iter()
        .filter(|i| !finder.locals.contains(&i.to_string()))
        .map(|i| (i.clone(), true));
    let in_macros = finder.macro_idents.iter().map(|i| (i.clone(), false));
    paths.chain(in_macros).collect()
}

pub fn looks_like_field(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_lowercase() || c == '_')
}

#[derive(Default)]
struct Names {
    paths: Vec<Ident>,
    locals: HashSet<String>,
    macro_idents: Vec<Ident>,
}

impl<'ast> Visit<'ast> for Names {
    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if p.qself.is_none()
            && p.path.leading_colon.is_none()
            && p.path.segments.len() == 1
            && p.path.segments[0].arguments.is_none()
        {
            self.paths.push(p.path.segments[0].ident.clone());
        }
        syn::visit::visit_expr_path(self, p);
    }

    fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
        // `f(x)`: `f` is a function, not a field.
        if !matches!(&*call.func, Expr::Path(_)) {
            self.visit_expr(&call.func);
        }
        for arg in &call.args {
            self.visit_expr(arg);
        }
    }

    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.locals.insert(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        fn walk(tokens: TokenStream, out: &mut Vec<Ident>) {
            for tt in tokens {
                match tt {
                    TokenTree::Ident(i) => out.push(i),
                    TokenTree::Group(g) => walk(g.stream(), out),
                    _ => {}
                }
            }
        }
        walk(m.tokens.clone(), &mut self.macro_idents);
    }
}
