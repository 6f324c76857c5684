//! The derive input as our own types: a container with its fields or variants, each carrying
//! its parsed attributes. Built by [`Input::from_syn`]; `valid.rs` then fills in what needs
//! checking across items (encodings, variant indices, the tag, conditions).

use proc_macro2::Span;
use quote::format_ident;
use syn::{Data, DeriveInput, Expr, Fields, Generics, Ident, Member, Type};

use crate::attr::{self, Attrs};
use crate::ctxt::Ctxt;

pub struct Input<'a> {
    pub ident: &'a Ident,
    pub generics: &'a Generics,
    pub attrs: Attrs,
    pub body: Body<'a>,
    /// The crate path used in generated code (`::rabbit` unless `crate = "..."`).
    pub krate: syn::Path,
}

pub enum Body<'a> {
    Struct(Style, Vec<Field<'a>>),
    Enum(Enum<'a>),
}

pub struct Enum<'a> {
    pub variants: Vec<Variant<'a>>,
    /// Filled in by `valid.rs`.
    pub tag: Tag,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Tag {
    Bits(u32),
    Varint,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Named,
    Tuple,
    Unit,
}

pub struct Variant<'a> {
    pub ident: &'a Ident,
    pub attrs: Attrs,
    pub style: Style,
    pub fields: Vec<Field<'a>>,
    /// The index written in the tag; filled in by `valid.rs`.
    pub index: u64,
}

pub struct Field<'a> {
    /// `a` or `0`.
    pub member: Member,
    /// The local the field is bound to in generated code: its name, or `_0`, `_1`, ….
    pub binding: Ident,
    /// The type as written.
    pub ty: &'a Type,
    pub attrs: Attrs,
    /// The field's number among all of the input's fields, for names of helper items.
    pub uid: usize,
    /// Filled in by `valid.rs`.
    pub plan: Plan<'a>,
}

/// How a field goes on the wire, once its attributes are checked.
pub struct Plan<'a> {
    pub skip: bool,
    pub codec: Codec,
    /// For `if` fields: the condition and the earlier fields it reads.
    pub cond: Option<Condition>,
    /// The type the codec applies to: `T` for an `if` field of type `Option<T>`.
    pub wire_ty: &'a Type,
}

pub enum Codec {
    Default,
    Bits(u32),
    Varint,
    ZigZag,
    Range { min: i128, max: i128 },
    With(syn::Path),
    MaxLen(Expr),
}

pub struct Condition {
    pub expr: Expr,
    pub text: String,
    /// Earlier fields the expression names, bound as references before it is evaluated.
    pub uses: Vec<Ident>,
}

impl<'a> Input<'a> {
    /// Builds the model; `None` for a union (already reported).
    pub fn from_syn(cx: &Ctxt, input: &'a DeriveInput) -> Option<Self> {
        let attrs = attr::parse(cx, &input.attrs);
        let krate = attrs
            .krate
            .as_ref()
            .map(|k| k.value.clone())
            .unwrap_or_else(|| syn::parse_quote!(::rabbit));
        let mut uid = 0;
        let body = match &input.data {
            Data::Struct(data) => {
                let (style, fields) = fields_from_syn(cx, &data.fields, &mut uid);
                Body::Struct(style, fields)
            }
            Data::Enum(data) => Body::Enum(Enum {
                variants: data
                    .variants
                    .iter()
                    .map(|v| {
                        let (style, fields) = fields_from_syn(cx, &v.fields, &mut uid);
                        Variant {
                            ident: &v.ident,
                            attrs: attr::parse(cx, &v.attrs),
                            style,
                            fields,
                            index: 0,
                        }
                    })
                    .collect(),
                tag: Tag::Bits(0),
            }),
            Data::Union(data) => {
                cx.error(
                    data.union_token.span,
                    "#[derive(Rabbit)] does not support unions: the wire cannot tell which field is set; use an enum",
                );
                return None;
            }
        };
        Some(Input {
            ident: &input.ident,
            generics: &input.generics,
            attrs,
            body,
            krate,
        })
    }

    /// Every field of the input, in every variant.
    pub fn all_fields(&self) -> Box<dyn Iterator<Item = &Field<'a>> + '_> {
        match &self.body {
            Body::Struct(_, fields) => Box::new(fields.iter()),
            Body::Enum(e) => Box::new(e.variants.iter().flat_map(|v| v.fields.iter())),
        }
    }
}

fn fields_from_syn<'a>(cx: &Ctxt, fields: &'a Fields, uid: &mut usize) -> (Style, Vec<Field<'a>>) {
    let style = match fields {
        Fields::Named(_) => Style::Named,
        Fields::Unnamed(_) => Style::Tuple,
        Fields::Unit => Style::Unit,
    };
    let fields = fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let (member, binding) = match &f.ident {
                Some(ident) => (Member::Named(ident.clone()), ident.clone()),
                None => (
                    Member::Unnamed(syn::Index {
                        index: i as u32,
                        span: Span::call_site(),
                    }),
                    format_ident!("_{}", i),
                ),
            };
            Field {
                member,
                binding,
                ty: &f.ty,
                attrs: attr::parse(cx, &f.attrs),
                uid: {
                    *uid += 1;
                    *uid - 1
                },
                plan: Plan {
                    skip: false,
                    codec: Codec::Default,
                    cond: None,
                    wire_ty: &f.ty,
                },
            }
        })
        .collect();
    (style, fields)
}

impl Field<'_> {
    /// The name shown in errors and the schema: `a`, or `0` for a tuple field.
    pub fn name(&self) -> String {
        match &self.member {
            Member::Named(ident) => ident.unraw().to_string(),
            Member::Unnamed(index) => index.index.to_string(),
        }
    }
}

use syn::ext::IdentExt as _;
