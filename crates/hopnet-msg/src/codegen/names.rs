//! Which names the generated TypeScript may use: identifiers, reserved words, and the names the
//! generated module already takes for itself.

/// Words TypeScript reserves (or gives meaning to) that cannot name a local variable.
const RESERVED: &[&str] = &[
    "any",
    "arguments",
    "as",
    "async",
    "await",
    "boolean",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "constructor",
    "continue",
    "debugger",
    "declare",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "eval",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "from",
    "function",
    "get",
    "if",
    "implements",
    "import",
    "in",
    "infer",
    "instanceof",
    "interface",
    "is",
    "keyof",
    "let",
    "module",
    "namespace",
    "never",
    "new",
    "null",
    "number",
    "object",
    "of",
    "package",
    "private",
    "protected",
    "public",
    "readonly",
    "require",
    "return",
    "set",
    "static",
    "string",
    "super",
    "switch",
    "symbol",
    "this",
    "throw",
    "true",
    "try",
    "type",
    "typeof",
    "undefined",
    "unique",
    "unknown",
    "var",
    "void",
    "while",
    "with",
    "yield",
    "bigint",
];

/// Names a message type cannot take: the runtime's own, and the standard ones that the
/// generated code refers to, which a type of that name would shadow.
const TAKEN: &[&str] = &[
    "BitReader",
    "BitWriter",
    "RabbitError",
    "Messages",
    "Array",
    "ArrayBuffer",
    "BigInt",
    "DataView",
    "Error",
    "Map",
    "Math",
    "Number",
    "Record",
    "String",
    "Uint8Array",
    "ReadonlyArray",
    "Expect",
    "JSON",
    "Codec",
];

/// Names the generated code gives its own local variables.
const LOCALS: &[&str] = &[
    "r", "w", "value", "fields", "body", "bare", "index", "variant", "item",
];

/// Whether `name` is an ASCII identifier (the names Rust types and fields have).
pub(crate) fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// Why a type cannot have `name` in TypeScript, if it cannot.
pub(crate) fn type_name_problem(name: &str) -> Option<String> {
    if !is_identifier(name) {
        return Some(format!("`{name}` is not a TypeScript identifier"));
    }
    if RESERVED.contains(&name) || TAKEN.contains(&name) {
        return Some(format!(
            "a type named `{name}` would shadow a name the generated module uses"
        ));
    }
    None
}

/// The local variable that holds field `name` in a reader: the name itself where it can be
/// one, `_0`, `_1`, … for tuple fields (the names conditions use for them), else the name
/// with a trailing underscore.
pub(crate) fn local(name: &str) -> String {
    if name.bytes().all(|b| b.is_ascii_digit()) {
        return format!("_{name}");
    }
    if !is_identifier(name) || RESERVED.contains(&name) || LOCALS.contains(&name) {
        return format!("{name}_");
    }
    name.to_string()
}

/// A property name as written in an object type or literal: quoted unless an identifier.
pub(crate) fn property(name: &str) -> String {
    if is_identifier(name) {
        name.to_string()
    } else {
        string_literal(name)
    }
}

/// `text` as a TypeScript string literal.
pub(crate) fn string_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{2028}' || c == '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A doc comment as JSDoc lines at `indent`, or nothing for an empty doc.
pub(crate) fn jsdoc(doc: &str, indent: &str) -> String {
    let doc = doc.trim();
    if doc.is_empty() {
        return String::new();
    }
    // `*/` would end the comment early.
    let doc = doc.replace("*/", "*\\/");
    let lines: Vec<&str> = doc.lines().map(str::trim_end).collect();
    if lines.len() == 1 {
        return format!("{indent}/** {} */\n", lines[0]);
    }
    let mut out = format!("{indent}/**\n");
    for line in lines {
        if line.is_empty() {
            out.push_str(&format!("{indent} *\n"));
        } else {
            out.push_str(&format!("{indent} * {line}\n"));
        }
    }
    out.push_str(&format!("{indent} */\n"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locals_avoid_reserved_words_and_the_generators_own_names() {
        assert_eq!(local("health"), "health");
        assert_eq!(local("0"), "_0");
        assert_eq!(local("type"), "type_");
        assert_eq!(local("r"), "r_");
    }

    #[test]
    fn type_names_that_would_shadow_are_refused() {
        assert!(type_name_problem("Snapshot").is_none());
        assert!(type_name_problem("Uint8Array").is_some());
        assert!(type_name_problem("BitReader").is_some());
    }

    #[test]
    fn string_literals_escape_what_they_must() {
        assert_eq!(string_literal("a\"b\\c\n"), r#""a\"b\\c\n""#);
        assert_eq!(jsdoc("one */ two", ""), "/** one *\\/ two */\n");
    }
}
