//! The generated types: each message's value in the JSON form of `rabbit-msg`.

use super::super::model::{Fields, TypeBody, TypeDef};
use super::super::names::{jsdoc, property, string_literal};

/// The declaration of a type, with its doc comment.
pub(super) fn declaration(t: &TypeDef) -> String {
    let name = &t.name;
    let mut out = jsdoc(&t.doc, "");
    match &t.body {
        TypeBody::Struct(Fields::Named(fields)) => {
            out.push_str(&format!("export interface {name} {{\n"));
            for f in fields {
                out.push_str(&jsdoc(&f.doc, "  "));
                out.push_str(&format!("  {}: {};\n", property(&f.name), f.ts_type()));
            }
            out.push_str("}\n");
        }
        TypeBody::Struct(fields) => {
            out.push_str(&format!("export type {name} = {};\n", shape(fields)));
        }
        TypeBody::Enum { variants, .. } => {
            out.push_str(&format!("export type {name} =\n"));
            let mut members: Vec<String> = variants
                .iter()
                .map(|v| {
                    let member = match &v.fields {
                        Fields::Unit => string_literal(&v.name),
                        fields => format!("{{ {}: {} }}", property(&v.name), shape(fields)),
                    };
                    format!("{}  | {member}", jsdoc(&v.doc, "  "))
                })
                .collect();
            match members.last_mut() {
                Some(last) => last.push(';'),
                None => members.push("  never;".into()),
            }
            out.push_str(&members.join("\n"));
            out.push('\n');
        }
    }
    out
}

/// The type of a struct's or variant's body, inline.
fn shape(fields: &Fields) -> String {
    match fields {
        Fields::Unit => "null".into(),
        Fields::Inline(f) => f.ts_type(),
        Fields::Tuple(fs) => {
            let items: Vec<String> = fs.iter().map(|f| f.ts_type()).collect();
            format!("[{}]", items.join(", "))
        }
        Fields::Named(fs) => {
            let props: Vec<String> = fs
                .iter()
                .map(|f| format!("{}: {}", property(&f.name), f.ts_type()))
                .collect();
            format!("{{ {} }}", props.join("; "))
        }
    }
}
