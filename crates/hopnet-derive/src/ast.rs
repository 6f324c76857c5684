//! The derive input as our own types: a container with its fields or variants, each carrying
//! its parsed attributes, as written. `valid/` checks it and resolves it into a
//! [`Plan`](crate::plan::Plan).

use proc_macro2::Span;
use quote::format_ident;
use syn::ext::IdentExt as _;
use syn::{Data, DeriveInput, Fields, Generics, Ident, Member, Type};

use crate::attr::{self, Attrs};
use crate::ctxt::Ctxt;

pub struct Input<'a> {
    pub ident: &'a Ident,
    pub generics: &'a Generics,
    pub attrs: Attrs,
    pub body: Body<'a>,
}

pub enum Body<'a> {
    Struct(Style, Vec<Field<'a>>),
    Enum(Vec<Variant<'a>>),
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
}

pub struct Field<'a> {
    /// `a` or `0`.
    pub member: Member,
    /// The local the field is bound to in generated code: its name, or `_0`, `_1`, ….
    pub binding: Ident,
    /// The type as written.
    pub ty: &'a Type,
    pub attrs: Attrs,
    /// The field's number among all of the input's fields.
    pub uid: usize,
}

impl<'a> Input<'a> {
    /// Builds the model; `None` for a union (already reported).
    pub fn from_syn(cx: &Ctxt, input: &'a DeriveInput) -> Option<Self> {
        let attrs = attr::parse(cx, &input.attrs);
        let mut uid = 0;
        let body = match &input.data {
            Data::Struct(data) => {
                let (style, fields) = fields_from_syn(cx, &data.fields, &mut uid);
                Body::Struct(style, fields)
            }
            Data::Enum(data) => Body::Enum(
                data.variants
                    .iter()
                    .map(|v| {
                        let (style, fields) = fields_from_syn(cx, &v.fields, &mut uid);
                        Variant {
                            ident: &v.ident,
                            attrs: attr::parse(cx, &v.attrs),
                            style,
                            fields,
                        }
                    })
                    .collect(),
            ),
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
        })
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
            *uid += 1;
            Field {
                member,
                binding,
                ty: &f.ty,
                attrs: attr::parse(cx, &f.attrs),
                uid: *uid - 1,
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
