//! What a field's type is, as far as its spelling tells: enough to reject attributes on types
//! they cannot apply to at the attribute, before the compiler would at the generated code.

use syn::{GenericArgument, PathArguments, Type};

/// What a field's type is, as far as its spelling tells.
pub enum Kind {
    Int {
        bits: u32,
        signed: bool,
    },
    Bool,
    /// `f32`, `f64`.
    Float {
        bits: u32,
    },
    /// `u128` / `i128`: integers, but wider than the fixed-width codecs take.
    Wide,
    NotInt,
    /// A path we cannot judge (an alias, a user type): left to the trait bounds.
    Unknown,
}

pub fn classify(ty: &Type) -> Kind {
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
                "f32" => Kind::Float { bits: 32 },
                "f64" => Kind::Float { bits: 64 },
                "char" | "str" | "String" | "Vec" | "Option" | "Box" | "Rc" | "Arc" | "Cow"
                | "PhantomData" | "HashMap" | "BTreeMap" | "VecDeque" => Kind::NotInt,
                _ => Kind::Unknown,
            }
        }
        Type::Path(_) => Kind::Unknown,
        _ => Kind::NotInt,
    }
}

pub fn is_list(ty: &Type) -> bool {
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
    wrapped(ty, "Option")
}

/// `T` of `Computed<T>` (also `hopnet_codec::layout::Computed<T>`).
pub fn computed_inner(ty: &Type) -> Option<&Type> {
    wrapped(ty, "Computed")
}

/// `T` of `Name<T>`, a path ending in `Name`.
fn wrapped<'t>(ty: &'t Type, name: &str) -> Option<&'t Type> {
    match ty {
        Type::Group(g) => wrapped(&g.elem, name),
        Type::Paren(p) => wrapped(&p.elem, name),
        Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            if last.ident != name {
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
