//! The conditions of `#[rabbit(if = "...")]` fields, from Rust into TypeScript.
//!
//! A condition is a Rust expression over the earlier fields, kept in the schema as written. The
//! generator translates the part of Rust that such conditions are made of and refuses the rest
//! by name: fields (`*breakable`, `_0` in tuples), `is_some()` / `is_none()` on optional
//! fields, integer, float and boolean literals, `!`, unary `-`, the comparisons, `&&`, `||` and
//! parentheses. A constant, a function or a macro (`matches!`) lives in the Rust crate only,
//! so a condition naming one is an error.

/// What an earlier field holds, as far as a condition can use it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Operand {
    /// A boolean.
    Bool,
    /// A number; `wide` when it may be a bigint.
    Number { wide: bool },
    /// An optional value: only `is_some()` and `is_none()` apply.
    Optional,
    /// Anything else (a message, a list, a string): not usable in a condition.
    Other,
}

/// A field a condition can name: its name as the condition writes it, and what it holds.
pub(crate) struct Scope<'a> {
    pub name: &'a str,
    pub operand: Operand,
}

/// A parsed condition.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Cond {
    /// The field at this index of the scope.
    Field(usize),
    /// `field.is_some()` (`true`) or `field.is_none()` (`false`).
    IsSome(usize, bool),
    Int(i128),
    Float(String),
    Bool(bool),
    Not(Box<Cond>),
    Neg(Box<Cond>),
    Binary(Box<Cond>, Op, Box<Cond>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    And,
    Or,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Op {
    fn ts(self) -> &'static str {
        match self {
            Op::And => "&&",
            Op::Or => "||",
            Op::Eq => "===",
            Op::Ne => "!==",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
        }
    }
}

/// The type of a sub-expression, for the checks that keep the TypeScript meaning the Rust one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ty {
    Bool,
    /// An integer or float; `wide` when it may be a bigint, `float` when it is not an integer.
    Number {
        wide: bool,
        float: bool,
    },
    /// An integer literal, which takes the type of what it is compared with.
    Literal,
}

impl Cond {
    /// Parses `text` over the fields of `scope`, and checks that it is a boolean.
    pub(crate) fn parse(text: &str, scope: &[Scope<'_>]) -> Result<Cond, String> {
        let tokens = tokenize(text)?;
        let mut parser = Parser {
            tokens,
            at: 0,
            scope,
        };
        let cond = parser.or()?;
        if let Some(t) = parser.tokens.get(parser.at) {
            return Err(format!("unexpected `{}`", t.text()));
        }
        match cond.ty(scope)? {
            Ty::Bool => Ok(cond),
            _ => Err("the condition is not a boolean".into()),
        }
    }

    fn ty(&self, scope: &[Scope<'_>]) -> Result<Ty, String> {
        Ok(match self {
            Cond::Field(i) => match scope[*i].operand {
                Operand::Bool => Ty::Bool,
                Operand::Number { wide } => Ty::Number { wide, float: false },
                Operand::Optional => {
                    return Err(format!(
                        "`{}` is optional: a condition can only ask `is_some()` or `is_none()` of it",
                        scope[*i].name
                    ));
                }
                Operand::Other => {
                    return Err(format!(
                        "`{}` is neither a boolean nor a number nor optional",
                        scope[*i].name
                    ));
                }
            },
            Cond::IsSome(..) | Cond::Bool(_) => Ty::Bool,
            Cond::Int(_) => Ty::Literal,
            Cond::Float(_) => Ty::Number {
                wide: false,
                float: true,
            },
            Cond::Not(inner) => match inner.ty(scope)? {
                Ty::Bool => Ty::Bool,
                _ => return Err("`!` of something that is not a boolean".into()),
            },
            Cond::Neg(inner) => match inner.ty(scope)? {
                Ty::Bool => return Err("`-` of a boolean".into()),
                ty => ty,
            },
            Cond::Binary(a, op, b) => {
                let (ta, tb) = (a.ty(scope)?, b.ty(scope)?);
                match op {
                    Op::And | Op::Or => {
                        if ta != Ty::Bool || tb != Ty::Bool {
                            return Err(format!(
                                "`{}` of something that is not a boolean",
                                op.ts()
                            ));
                        }
                    }
                    _ => compare(ta, tb)?,
                }
                Ty::Bool
            }
        })
    }

    /// The condition in TypeScript, each field written as `field(index)` says.
    pub(crate) fn to_ts(&self, scope: &[Scope<'_>], field: &dyn Fn(usize) -> String) -> String {
        self.emit(scope, field, false)
    }

    /// `big`: a bigint is wanted here (the other side of a comparison may be a bigint).
    fn emit(&self, scope: &[Scope<'_>], field: &dyn Fn(usize) -> String, big: bool) -> String {
        match self {
            Cond::Field(i) => {
                let name = field(*i);
                if big { format!("BigInt({name})") } else { name }
            }
            Cond::IsSome(i, some) => {
                let name = field(*i);
                if *some {
                    format!("({name} !== null && {name} !== undefined)")
                } else {
                    format!("({name} === null || {name} === undefined)")
                }
            }
            Cond::Int(v) if big => format!("{v}n"),
            Cond::Int(v) => v.to_string(),
            Cond::Float(text) => text.clone(),
            Cond::Bool(b) => b.to_string(),
            Cond::Not(inner) => format!("!{}", inner.emit_operand(scope, field, big)),
            Cond::Neg(inner) => format!("-{}", inner.emit_operand(scope, field, big)),
            Cond::Binary(a, op, b) => {
                // A comparison with a bigint on one side compares bigints: `BigInt(x) > 10n`.
                let big = match op {
                    Op::And | Op::Or => false,
                    _ => a.may_be_big(scope) || b.may_be_big(scope),
                };
                format!(
                    "{} {} {}",
                    a.emit_operand(scope, field, big),
                    op.ts(),
                    b.emit_operand(scope, field, big)
                )
            }
        }
    }

    /// The condition in Lua (the Wireshark dissector), each field's value written as `value(i)`
    /// says and its presence as `present(i)`. Lua numbers are doubles, which hold the integers
    /// conditions compare (a field of 64 bits compares exactly below 2^53).
    pub(crate) fn to_lua(
        &self,
        value: &dyn Fn(usize) -> String,
        present: &dyn Fn(usize) -> String,
    ) -> String {
        let operand = |c: &Cond| {
            let text = c.to_lua(value, present);
            if matches!(c, Cond::Binary(..)) {
                format!("({text})")
            } else {
                text
            }
        };
        match self {
            Cond::Field(i) => value(*i),
            Cond::IsSome(i, true) => present(*i),
            Cond::IsSome(i, false) => format!("not {}", present(*i)),
            Cond::Int(v) => v.to_string(),
            Cond::Float(text) => text.clone(),
            Cond::Bool(b) => b.to_string(),
            Cond::Not(inner) => format!("not {}", operand(inner)),
            Cond::Neg(inner) => format!("-{}", operand(inner)),
            Cond::Binary(a, op, b) => {
                let op = match op {
                    Op::And => "and",
                    Op::Or => "or",
                    Op::Eq => "==",
                    Op::Ne => "~=",
                    Op::Lt => "<",
                    Op::Le => "<=",
                    Op::Gt => ">",
                    Op::Ge => ">=",
                };
                format!("{} {op} {}", operand(a), operand(b))
            }
        }
    }

    /// As an operand of another operator: parenthesized when it is itself a binary expression.
    fn emit_operand(
        &self,
        scope: &[Scope<'_>],
        field: &dyn Fn(usize) -> String,
        big: bool,
    ) -> String {
        let text = self.emit(scope, field, big);
        if matches!(self, Cond::Binary(..)) {
            format!("({text})")
        } else {
            text
        }
    }

    fn may_be_big(&self, scope: &[Scope<'_>]) -> bool {
        match self {
            Cond::Field(i) => scope[*i].operand == Operand::Number { wide: true },
            Cond::Neg(inner) => inner.may_be_big(scope),
            _ => false,
        }
    }
}

/// Checks that two operands can be compared with the same meaning as in Rust.
fn compare(a: Ty, b: Ty) -> Result<(), String> {
    let float_with_wide = |x: Ty, y: Ty| {
        matches!(x, Ty::Number { float: true, .. }) && matches!(y, Ty::Number { wide: true, .. })
    };
    match (a, b) {
        (Ty::Bool, Ty::Bool) => Ok(()),
        (Ty::Bool, _) | (_, Ty::Bool) => Err("a comparison of a boolean with a number".into()),
        (x, y) if float_with_wide(x, y) || float_with_wide(y, x) => {
            Err("a comparison of a float with a 64-bit integer".into())
        }
        _ => Ok(()),
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Ident(String),
    Int(i128),
    Float(String),
    Punct(&'static str),
}

impl Token {
    fn text(&self) -> String {
        match self {
            Token::Ident(s) | Token::Float(s) => s.clone(),
            Token::Int(v) => v.to_string(),
            Token::Punct(p) => p.to_string(),
        }
    }
}

/// The punctuation conditions are made of (`,` only so that a macro's or a function's arguments
/// reach the parser, which says what they are).
const PUNCTS: &[&str] = &[
    "&&", "||", "==", "!=", "<=", ">=", "<", ">", "!", "*", "-", "(", ")", ".", ",",
];

const INT_SUFFIXES: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
];

fn tokenize(text: &str) -> Result<Vec<Token>, String> {
    let mut tokens = Vec::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c.is_whitespace() {
            rest = &rest[c.len_utf8()..];
        } else if c.is_ascii_digit() {
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
                .unwrap_or(rest.len());
            // `1.is_some()` is not a thing, but `x.0` is: a number ends at a `.` not followed by
            // a digit.
            let mut end = end;
            if let Some(dot) = rest[..end].find('.')
                && !rest[dot + 1..].starts_with(|c: char| c.is_ascii_digit())
            {
                end = dot;
            }
            tokens.push(number(&rest[..end])?);
            rest = &rest[end..];
        } else if c.is_ascii_alphabetic() || c == '_' {
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            tokens.push(Token::Ident(rest[..end].to_string()));
            rest = &rest[end..];
        } else if let Some(p) = PUNCTS.iter().find(|p| rest.starts_with(**p)) {
            tokens.push(Token::Punct(p));
            rest = &rest[p.len()..];
        } else {
            return Err(format!(
                "`{c}` is not part of what TypeScript conditions are made of"
            ));
        }
    }
    Ok(tokens)
}

/// A Rust number literal: digits with `_`, an optional type suffix.
fn number(text: &str) -> Result<Token, String> {
    let clean: String = text.chars().filter(|&c| c != '_').collect();
    let bad = || format!("`{text}` is not a number TypeScript conditions can use");
    if let Some(digits) = ["f32", "f64"].iter().find_map(|s| clean.strip_suffix(s)) {
        return float(digits).ok_or_else(bad);
    }
    let radix = |digits: &str| {
        if let Some(hex) = digits.strip_prefix("0x") {
            i128::from_str_radix(hex, 16).ok()
        } else if let Some(bin) = digits.strip_prefix("0b") {
            i128::from_str_radix(bin, 2).ok()
        } else {
            digits.parse().ok()
        }
    };
    if let Some(digits) = INT_SUFFIXES.iter().find_map(|s| clean.strip_suffix(s)) {
        return radix(digits).map(Token::Int).ok_or_else(bad);
    }
    if let Some(v) = radix(&clean) {
        return Ok(Token::Int(v));
    }
    float(&clean).ok_or_else(bad)
}

/// A float literal, kept as written (without `_` and suffix).
fn float(digits: &str) -> Option<Token> {
    match digits.parse::<f64>() {
        Ok(v) if v.is_finite() && !digits.starts_with("0x") => Some(Token::Float(digits.into())),
        _ => None,
    }
}

struct Parser<'s, 'a> {
    tokens: Vec<Token>,
    at: usize,
    scope: &'s [Scope<'a>],
}

impl Parser<'_, '_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn eat(&mut self, punct: &str) -> bool {
        if matches!(self.peek(), Some(Token::Punct(p)) if *p == punct) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn or(&mut self) -> Result<Cond, String> {
        let mut left = self.and()?;
        while self.eat("||") {
            left = Cond::Binary(Box::new(left), Op::Or, Box::new(self.and()?));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Cond, String> {
        let mut left = self.comparison()?;
        while self.eat("&&") {
            left = Cond::Binary(Box::new(left), Op::And, Box::new(self.comparison()?));
        }
        Ok(left)
    }

    fn comparison(&mut self) -> Result<Cond, String> {
        let left = self.unary()?;
        let ops = [
            ("==", Op::Eq),
            ("!=", Op::Ne),
            ("<=", Op::Le),
            (">=", Op::Ge),
            ("<", Op::Lt),
            (">", Op::Gt),
        ];
        for (punct, op) in ops {
            if self.eat(punct) {
                let right = self.unary()?;
                return Ok(Cond::Binary(Box::new(left), op, Box::new(right)));
            }
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Cond, String> {
        if self.eat("!") {
            return Ok(Cond::Not(Box::new(self.unary()?)));
        }
        if self.eat("-") {
            return Ok(Cond::Neg(Box::new(self.unary()?)));
        }
        if self.eat("*") {
            // A field is a reference in Rust; its value is the same thing in TypeScript.
            return self.unary();
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<Cond, String> {
        let token = self.peek().cloned();
        self.at += 1;
        match token {
            Some(Token::Int(v)) => Ok(Cond::Int(v)),
            Some(Token::Float(text)) => Ok(Cond::Float(text)),
            Some(Token::Ident(name)) if name == "true" || name == "false" => {
                Ok(Cond::Bool(name == "true"))
            }
            Some(Token::Ident(name)) => {
                if matches!(self.peek(), Some(Token::Punct("!" | "("))) {
                    return Err(format!(
                        "`{name}` is a Rust macro or function, which TypeScript does not have"
                    ));
                }
                let Some(index) = self.scope.iter().position(|f| f.name == name) else {
                    return Err(format!(
                        "`{name}` is not an earlier field: constants and other Rust items are \
                         not in the TypeScript module"
                    ));
                };
                if self.eat(".") {
                    let method = match self.peek() {
                        Some(Token::Ident(m)) => m.clone(),
                        _ => return Err(format!("`{name}.` is not a method call")),
                    };
                    self.at += 1;
                    let some = match method.as_str() {
                        "is_some" => true,
                        "is_none" => false,
                        _ => {
                            return Err(format!(
                                "`{name}.{method}` is not `is_some()` or `is_none()`"
                            ));
                        }
                    };
                    if !(self.eat("(") && self.eat(")")) {
                        return Err(format!("`{name}.{method}` must be called: `{method}()`"));
                    }
                    if self.scope[index].operand != Operand::Optional {
                        return Err(format!("`{name}` is not optional"));
                    }
                    return Ok(Cond::IsSome(index, some));
                }
                Ok(Cond::Field(index))
            }
            Some(Token::Punct("(")) => {
                let inner = self.or()?;
                if !self.eat(")") {
                    return Err("a `(` without its `)`".into());
                }
                Ok(inner)
            }
            Some(other) => Err(format!("unexpected `{}`", other.text())),
            None => Err("the condition ends too early".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope() -> Vec<Scope<'static>> {
        vec![
            Scope {
                name: "breakable",
                operand: Operand::Bool,
            },
            Scope {
                name: "count",
                operand: Operand::Number { wide: false },
            },
            Scope {
                name: "health",
                operand: Operand::Optional,
            },
            Scope {
                name: "big",
                operand: Operand::Number { wide: true },
            },
            Scope {
                name: "kind",
                operand: Operand::Other,
            },
        ]
    }

    fn ts(text: &str) -> Result<String, String> {
        let scope = scope();
        let cond = Cond::parse(text, &scope)?;
        Ok(cond.to_ts(&scope, &|i| scope[i].name.to_string()))
    }

    #[test]
    fn the_spec_kind_of_condition_translates() {
        assert_eq!(ts("*breakable").unwrap(), "breakable");
        assert_eq!(
            ts("*count >= 3 && !*breakable || health.is_some()").unwrap(),
            "((count >= 3) && !breakable) || (health !== null && health !== undefined)"
        );
        assert_eq!(ts("*count == 1_000u32").unwrap(), "count === 1000");
        assert_eq!(ts("*count != 10usize").unwrap(), "count !== 10");
        assert_eq!(
            ts("*count > 0x1f && *count < 2.5e3").unwrap(),
            "(count > 31) && (count < 2.5e3)"
        );
        assert_eq!(ts("(*count < -2)").unwrap(), "count < -2");
    }

    #[test]
    fn wide_integers_compare_as_bigints() {
        assert_eq!(ts("*big > 10").unwrap(), "BigInt(big) > 10n");
        assert!(ts("*big > 1.5").is_err());
    }

    #[test]
    fn what_only_rust_has_is_refused_by_name() {
        let err = ts("*count > FAR").unwrap_err();
        assert!(err.contains("`FAR`"), "{err}");
        let err = ts("matches!(kind, Some(1))").unwrap_err();
        assert!(err.contains("macro"), "{err}");
        assert!(ts("health.unwrap()").is_err());
        assert!(ts("*kind").is_err());
        assert!(ts("*count").is_err(), "not a boolean");
        assert!(ts("*health > 1").is_err(), "an option compared");
    }
}
