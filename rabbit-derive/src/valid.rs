//! Every check that can fail, each reported at the offending token; all of an input's errors are
//! collected in the [`Ctxt`] and shown together. Also resolves what the checks establish: each
//! field's [`Plan`], each variant's index and the enum's tag.

use std::collections::{HashMap, HashSet};

use proc_macro2::{Span, TokenStream, TokenTree};
use syn::visit::Visit;
use syn::{Expr, GenericArgument, Ident, PathArguments, Type};

use crate::ast::{Body, Codec, Condition, Field, Input, Tag, Variant};
use crate::attr::Attrs;
use crate::ctxt::Ctxt;

pub fn check(cx: &Ctxt, input: &mut Input<'_>) {
    let is_enum = matches!(input.body, Body::Enum(_));
    container(cx, &input.attrs, is_enum);
    match &mut input.body {
        Body::Struct(_, fields) => fields_of(cx, fields),
        Body::Enum(e) => {
            if e.variants.is_empty() {
                cx.error(
                    input.ident.span(),
                    "#[derive(Rabbit)] needs at least one variant: an enum without variants has no value to encode",
                );
                return;
            }
            for v in &mut e.variants {
                variant_attrs(cx, &v.attrs);
                fields_of(cx, &mut v.fields);
            }
            e.tag = indices(cx, &input.attrs, &mut e.variants);
        }
    }
}

fn misplaced(cx: &Ctxt, span: Option<Span>, what: &str, belongs: &str) {
    if let Some(span) = span {
        cx.error(
            span,
            format_args!("`{what}` is not allowed here: {belongs}"),
        );
    }
}

fn container(cx: &Ctxt, attrs: &Attrs, is_enum: bool) {
    let field_only = "it is a field attribute";
    misplaced(
        cx,
        attrs.index.as_ref().map(|a| a.span),
        "index",
        "it goes on an enum variant",
    );
    misplaced(
        cx,
        attrs.varint.as_ref().map(|a| a.span),
        "varint",
        field_only,
    );
    misplaced(
        cx,
        attrs.zigzag.as_ref().map(|a| a.span),
        "zigzag",
        field_only,
    );
    misplaced(
        cx,
        attrs.range.as_ref().map(|a| a.span),
        "range",
        field_only,
    );
    misplaced(cx, attrs.with.as_ref().map(|a| a.span), "with", field_only);
    misplaced(cx, attrs.cond.as_ref().map(|a| a.span), "if", field_only);
    misplaced(
        cx,
        attrs.max_len.as_ref().map(|a| a.span),
        "max_len",
        field_only,
    );
    misplaced(cx, attrs.skip.as_ref().map(|a| a.span), "skip", field_only);
    if !is_enum {
        misplaced(
            cx,
            attrs.tag_varint.as_ref().map(|a| a.span),
            "tag",
            "a struct has no variant tag; `tag` goes on an enum",
        );
        misplaced(
            cx,
            attrs.bits.as_ref().map(|a| a.span),
            "bits",
            "a struct has no tag; put `#[bits(N)]` on a field, or on an enum to set its tag width",
        );
    } else if let (Some(_), Some(tag)) = (&attrs.bits, &attrs.tag_varint) {
        cx.error(
            tag.span,
            "`tag = \"varint\"` conflicts with `#[bits(N)]`: the tag is either a fixed width or a varint",
        );
    }
}

fn variant_attrs(cx: &Ctxt, attrs: &Attrs) {
    let field_only = "it is a field attribute";
    let container_only = "it is a container attribute";
    misplaced(
        cx,
        attrs.krate.as_ref().map(|a| a.span),
        "crate",
        container_only,
    );
    misplaced(
        cx,
        attrs.bound.as_ref().map(|a| a.span),
        "bound",
        container_only,
    );
    misplaced(
        cx,
        attrs.tag_varint.as_ref().map(|a| a.span),
        "tag",
        "it goes on the enum",
    );
    misplaced(
        cx,
        attrs.bits.as_ref().map(|a| a.span),
        "bits",
        "`#[bits(N)]` goes on the enum to set its tag width, or on a field",
    );
    misplaced(
        cx,
        attrs.varint.as_ref().map(|a| a.span),
        "varint",
        field_only,
    );
    misplaced(
        cx,
        attrs.zigzag.as_ref().map(|a| a.span),
        "zigzag",
        field_only,
    );
    misplaced(
        cx,
        attrs.range.as_ref().map(|a| a.span),
        "range",
        field_only,
    );
    misplaced(cx, attrs.with.as_ref().map(|a| a.span), "with", field_only);
    misplaced(cx, attrs.cond.as_ref().map(|a| a.span), "if", field_only);
    misplaced(
        cx,
        attrs.max_len.as_ref().map(|a| a.span),
        "max_len",
        field_only,
    );
    misplaced(cx, attrs.skip.as_ref().map(|a| a.span), "skip", field_only);
}

/// Assigns variant indices (pinned ones, the rest counting on from the previous) and checks
/// them against the tag.
fn indices(cx: &Ctxt, attrs: &Attrs, variants: &mut [Variant<'_>]) -> Tag {
    let mut seen: HashMap<u64, String> = HashMap::new();
    let mut next: Option<u64> = Some(0);
    for v in variants.iter_mut() {
        let (index, span) = match &v.attrs.index {
            Some(a) => (a.value.0, a.value.1),
            None => match next {
                Some(n) => (n, v.ident.span()),
                None => {
                    cx.error(v.ident.span(), "variant index overflows u64");
                    continue;
                }
            },
        };
        if let Some(other) = seen.get(&index) {
            cx.error(
                span,
                format_args!("variant index {index} is already used by `{other}`"),
            );
        }
        seen.insert(index, v.ident.to_string());
        v.index = index;
        next = index.checked_add(1);
    }
    let max_index = variants.iter().map(|v| v.index).max().unwrap_or(0);
    if attrs.tag_varint.is_some() {
        for v in variants.iter() {
            if v.index > u32::MAX as u64 {
                let span = v.attrs.index.as_ref().map_or(v.ident.span(), |a| a.value.1);
                cx.error(
                    span,
                    format_args!(
                        "variant index {} does not fit the `u32` varint tag",
                        v.index
                    ),
                );
            }
        }
        return Tag::Varint;
    }
    match &attrs.bits {
        Some(bits) => {
            let (n, lit_span) = bits.value;
            let limit = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
            let mut reported = false;
            for v in variants.iter() {
                if v.index > limit {
                    let msg = format!(
                        "variant `{}` has index {}, which does not fit the {n}-bit tag (indices 0..={limit})",
                        v.ident, v.index
                    );
                    match &v.attrs.index {
                        Some(a) => cx.error(a.value.1, msg),
                        None if !reported => {
                            reported = true;
                            cx.error(
                                lit_span,
                                format_args!(
                                    "a {n}-bit tag holds indices 0..={limit}, but `{}` has index {} ({} variants need at least {} bits)",
                                    v.ident,
                                    v.index,
                                    variants.len(),
                                    64 - max_index.leading_zeros()
                                ),
                            );
                        }
                        None => {}
                    }
                }
            }
            Tag::Bits(n)
        }
        None => Tag::Bits(64 - max_index.leading_zeros()),
    }
}

fn fields_of(cx: &Ctxt, fields: &mut [Field<'_>]) {
    let names: Vec<Ident> = fields.iter().map(|f| f.binding.clone()).collect();
    let skipped: HashSet<String> = fields
        .iter()
        .filter(|f| f.attrs.skip.is_some())
        .map(|f| f.binding.to_string())
        .collect();
    for (i, field) in fields.iter_mut().enumerate() {
        field_plan(cx, field);
        if let Some(cond) = &field.attrs.cond {
            let uses = condition_uses(
                cx,
                &cond.value.expr,
                &names[..i],
                &names[i..],
                &skipped,
                &field.name(),
            );
            field.plan.cond = Some(Condition {
                expr: cond.value.expr.clone(),
                text: cond.value.lit.value(),
                uses,
            });
        }
    }
}

fn field_plan(cx: &Ctxt, field: &mut Field<'_>) {
    let a = &field.attrs;
    let container_only = "it is a container attribute";
    misplaced(
        cx,
        a.krate.as_ref().map(|x| x.span),
        "crate",
        container_only,
    );
    misplaced(
        cx,
        a.bound.as_ref().map(|x| x.span),
        "bound",
        container_only,
    );
    misplaced(
        cx,
        a.tag_varint.as_ref().map(|x| x.span),
        "tag",
        "it goes on an enum",
    );
    misplaced(
        cx,
        a.index.as_ref().map(|x| x.span),
        "index",
        "it goes on an enum variant",
    );

    if a.skip.is_some() {
        let others = [
            ("bits", a.bits.as_ref().map(|x| x.span)),
            ("varint", a.varint.as_ref().map(|x| x.span)),
            ("zigzag", a.zigzag.as_ref().map(|x| x.span)),
            ("range", a.range.as_ref().map(|x| x.span)),
            ("with", a.with.as_ref().map(|x| x.span)),
            ("if", a.cond.as_ref().map(|x| x.span)),
            ("max_len", a.max_len.as_ref().map(|x| x.span)),
        ];
        for (name, span) in others {
            if let Some(span) = span {
                cx.error(
                    span,
                    format_args!(
                        "`{name}` has no effect on a skipped field: `skip` keeps it off the wire"
                    ),
                );
            }
        }
        field.plan.skip = true;
        return;
    }

    // The codec applies to `T` of an `if` field's `Option<T>`.
    if a.cond.is_some() {
        match option_inner(field.ty) {
            Some(inner) => field.plan.wire_ty = inner,
            None => cx.error_spanned(
                field.ty,
                format_args!(
                    "`if` needs an `Option<T>` field: the value is `Some` exactly when the condition is true (`{}` is not an Option)",
                    ty_string(field.ty)
                ),
            ),
        }
    }
    let ty = field.plan.wire_ty;

    // At most one encoding.
    let mut chosen: Option<&str> = None;
    let mut pick = |name: &'static str, span: Option<Span>| -> bool {
        let Some(span) = span else { return false };
        if let Some(first) = chosen {
            cx.error(
                span,
                format_args!("`{name}` conflicts with `{first}`: a field has one encoding"),
            );
            false
        } else {
            chosen = Some(name);
            true
        }
    };
    let mut codec = Codec::Default;
    if pick("bits", a.bits.as_ref().map(|x| x.span)) {
        let (n, lit_span) = a.bits.as_ref().unwrap().value;
        match classify(ty) {
            Kind::Int { bits, .. } if n > bits => cx.error(
                lit_span,
                format_args!(
                    "`{}` has only {bits} bits; `#[bits({n})]` is wider than the type",
                    ty_string(ty)
                ),
            ),
            Kind::Int { .. } | Kind::Unknown => {}
            Kind::Bool if n != 1 => cx.error(
                lit_span,
                format_args!("a `bool` takes one bit; `#[bits({n})]` must be `#[bits(1)]`"),
            ),
            Kind::Bool => {}
            Kind::Wide | Kind::NotInt => cx.error(
                a.bits.as_ref().unwrap().span,
                format_args!(
                    "`#[bits(N)]` applies to integer (u8..u64, i8..i64, usize, isize) and bool fields, not `{}`",
                    ty_string(ty)
                ),
            ),
        }
        codec = Codec::Bits(n);
    }
    if pick("varint", a.varint.as_ref().map(|x| x.span)) {
        if let Kind::Bool | Kind::Wide | Kind::NotInt = classify(ty) {
            cx.error(
                a.varint.as_ref().unwrap().span,
                format_args!(
                    "`varint` applies to integer fields (u8..u64, i8..i64, usize), not `{}`",
                    ty_string(ty)
                ),
            );
        }
        codec = Codec::Varint;
    }
    if pick("zigzag", a.zigzag.as_ref().map(|x| x.span)) {
        match classify(ty) {
            Kind::Int { signed: true, .. } | Kind::Unknown => {}
            Kind::Int { signed: false, .. } => cx.error(
                a.zigzag.as_ref().unwrap().span,
                format_args!(
                    "`zigzag` is for signed integers; `{}` is unsigned (use `varint`)",
                    ty_string(ty)
                ),
            ),
            _ => cx.error(
                a.zigzag.as_ref().unwrap().span,
                format_args!(
                    "`zigzag` applies to signed integer fields (i8..i64, isize), not `{}`",
                    ty_string(ty)
                ),
            ),
        }
        codec = Codec::ZigZag;
    }
    if pick("range", a.range.as_ref().map(|x| x.span)) {
        let (min, max, lit) = &a.range.as_ref().unwrap().value;
        match classify(ty) {
            Kind::Int { bits, signed } => {
                let (lo, hi) = if signed {
                    (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
                } else {
                    (0, (1i128 << bits) - 1)
                };
                if *min < lo || *max > hi {
                    cx.error(
                        lit.span(),
                        format_args!(
                            "the range {min}..={max} does not fit `{}` ({lo}..={hi})",
                            ty_string(ty)
                        ),
                    );
                }
            }
            Kind::Unknown => {}
            _ => cx.error(
                a.range.as_ref().unwrap().span,
                format_args!("`range` applies to integer fields, not `{}`", ty_string(ty)),
            ),
        }
        codec = Codec::Range {
            min: *min,
            max: *max,
        };
    }
    if pick("with", a.with.as_ref().map(|x| x.span)) {
        codec = Codec::With(a.with.as_ref().unwrap().value.0.clone());
    }
    if pick("max_len", a.max_len.as_ref().map(|x| x.span)) {
        if !is_list(ty) {
            cx.error(
                a.max_len.as_ref().unwrap().span,
                format_args!(
                    "`max_len` applies to `Vec<T>`, `String`, `str` and slices (also behind `&`, `Box`, `Rc`, `Arc`), not `{}`",
                    ty_string(ty)
                ),
            );
        }
        codec = Codec::MaxLen(a.max_len.as_ref().unwrap().value.clone());
    }
    field.plan.codec = codec;
}

/// What a field's type is, as far as its spelling tells.
enum Kind {
    Int {
        bits: u32,
        signed: bool,
    },
    Bool,
    /// `u128` / `i128`: integers, but wider than the fixed-width codecs take.
    Wide,
    NotInt,
    /// A path we cannot judge (an alias, a user type): left to the trait bounds.
    Unknown,
}

fn classify(ty: &Type) -> Kind {
    match ty {
        Type::Group(g) => classify(&g.elem),
        Type::Paren(p) => classify(&p.elem),
        Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return Kind::Unknown;
            };
            let name = last.ident.to_string();
            let int = |bits, signed| Kind::Int { bits, signed };
            match name.as_str() {
                "u8" => int(8, false),
                "u16" => int(16, false),
                "u32" => int(32, false),
                "u64" | "usize" => int(64, false),
                "i8" => int(8, true),
                "i16" => int(16, true),
                "i32" => int(32, true),
                "i64" | "isize" => int(64, true),
                "u128" | "i128" => Kind::Wide,
                "bool" => Kind::Bool,
                "f32" | "f64" | "char" | "str" | "String" | "Vec" | "Option" | "Box" | "Rc"
                | "Arc" | "Cow" | "PhantomData" | "HashMap" | "BTreeMap" | "VecDeque" => {
                    Kind::NotInt
                }
                _ => Kind::Unknown,
            }
        }
        Type::Path(_) => Kind::Unknown,
        _ => Kind::NotInt,
    }
}

fn is_list(ty: &Type) -> bool {
    match ty {
        Type::Group(g) => is_list(&g.elem),
        Type::Paren(p) => is_list(&p.elem),
        Type::Slice(_) => true,
        Type::Reference(r) => is_list(&r.elem),
        Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return false;
            };
            match last.ident.to_string().as_str() {
                "Vec" | "String" | "str" => true,
                "Box" | "Rc" | "Arc" => single_type_arg(&last.arguments).is_some_and(is_list),
                _ => false,
            }
        }
        _ => false,
    }
}

/// `T` of `Option<T>` (also `std::option::Option<T>`).
pub fn option_inner(ty: &Type) -> Option<&Type> {
    match ty {
        Type::Group(g) => option_inner(&g.elem),
        Type::Paren(p) => option_inner(&p.elem),
        Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            if last.ident != "Option" {
                return None;
            }
            single_type_arg(&last.arguments)
        }
        _ => None,
    }
}

fn single_type_arg(args: &PathArguments) -> Option<&Type> {
    match args {
        PathArguments::AngleBracketed(a) if a.args.len() == 1 => match a.args.first()? {
            GenericArgument::Type(t) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

/// A type as a compact string: `Vec<u8>`, `Option<&'a str>`, `[u8; 4]`.
pub fn ty_string(ty: &Type) -> String {
    let raw = quote::quote!(#ty).to_string();
    let chars: Vec<char> = raw.chars().collect();
    let mut out = String::with_capacity(raw.len());
    for (i, &c) in chars.iter().enumerate() {
        if c == ' ' {
            let prev = if i > 0 { chars[i - 1] } else { ' ' };
            let next = chars.get(i + 1).copied().unwrap_or(' ');
            if matches!(prev, '<' | '&' | ':' | '(' | '[')
                || matches!(next, '<' | '>' | ',' | ':' | ')' | ']' | ';')
            {
                continue;
            }
        }
        out.push(c);
    }
    out
}

/// Finds the fields a condition names, checking that they are earlier fields.
///
/// A lowercase single-segment path (`kind`, `_0`) is taken for a field; paths with several
/// segments, uppercase names (constants, `None`), method names, function names in calls and
/// names bound inside the expression (closure parameters, `let`, match arms) are not. Names in
/// macro invocations (`matches!(kind, ...)`) are bound if they are earlier fields.
fn condition_uses(
    cx: &Ctxt,
    expr: &Expr,
    earlier: &[Ident],
    later: &[Ident],
    skipped: &HashSet<String>,
    field: &str,
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
        "none: a condition can only use fields declared before its field".to_owned()
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
                        "the condition of `{field}` uses `{name}`, a skipped field: it is not on the wire, so the decoder cannot know it"
                    ),
                );
            } else {
                push(ident);
            }
        } else if later.first().is_some_and(|l| *l == name) {
            cx.error(
                ident.span(),
                format_args!("the condition of `{field}` cannot use the field itself"),
            );
        } else if later.iter().any(|l| *l == name) {
            cx.error(
                ident.span(),
                format_args!(
                    "the condition of `{field}` uses `{name}`, which comes after it: a condition can only use earlier fields, since the decoder reads them first"
                ),
            );
        } else if !is_path {
            // Other names inside a macro call are the macro's business.
        } else if name == "self" {
            cx.error(
                ident.span(),
                "`self` is not available in a condition: name the earlier fields directly, e.g. `if = \"*flag\"`",
            );
        } else if looks_like_field(&name) {
            cx.error(
                ident.span(),
                format_args!(
                    "unknown field `{name}` in the condition of `{field}`; earlier fields: {earlier_list}"
                ),
            );
        }
    }
    uses
}

fn looks_like_field(name: &str) -> bool {
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
