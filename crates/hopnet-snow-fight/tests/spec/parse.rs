//! The spec's notation read from the "Messages" section of its Markdown: per message its name
//! and its components (`` - `name` (type) `` or `` - `name` (if cond then type) ``) in wire
//! order, with `1-bit integer` written `u1` and the descriptions left out, so that they compare
//! with the definitions `hopnet_snow_fight::notation` prints from the schema.

use hopnet_snow_fight::notation::Line;

/// One message of the spec: its name and components in wire order.
#[derive(Debug)]
pub struct Message {
    pub name: String,
    pub lines: Vec<Line>,
}

/// The components of `` - `name` (if cond then type): doc ``, without the doc.
fn parse_bullet(text: &str) -> Result<Line, String> {
    let rest = text.strip_prefix("- `").ok_or("a bullet starts with - `")?;
    let (name, rest) = rest.split_once('`').ok_or("no closing backtick")?;
    let rest = rest
        .trim_start()
        .strip_prefix('(')
        .ok_or("no type in parentheses")?;
    let mut depth = 1;
    let end = rest
        .char_indices()
        .find(|&(_, c)| {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ => {}
            }
            depth == 0
        })
        .map(|(i, _)| i)
        .ok_or("no closing parenthesis")?;
    let inside = rest[..end].trim();
    let (condition, ty) = match inside.strip_prefix("if ") {
        Some(cond) => {
            let (cond, ty) = cond.split_once(" then ").ok_or("if without then")?;
            (Some(cond.trim().to_string()), ty.trim())
        }
        None => (None, inside),
    };
    let ty = match ty {
        "1-bit integer" => "u1".to_string(),
        other => other.split_whitespace().collect::<Vec<_>>().join(" "),
    };
    Ok(Line {
        name: name.to_string(),
        condition,
        ty,
        doc: String::new(),
    })
}

/// The messages of the spec's "Messages" section, in the spec's order; the descriptions and
/// the section's "Conventions" examples are left out.
pub fn spec(text: &str) -> Vec<Message> {
    let start = text.find("\n# Messages\n").expect("a Messages section");
    let section = &text[start + 1..];
    let end = section[1..]
        .find("\n# ")
        .map(|i| i + 1)
        .unwrap_or(section.len());
    let section = &section[..end];

    let mut messages: Vec<Message> = Vec::new();
    for (i, line) in section.lines().enumerate() {
        if let Some(name) = line.strip_prefix("## ") {
            messages.push(Message {
                name: name.trim().to_string(),
                lines: Vec::new(),
            });
        } else if line.starts_with("- `")
            && let Some(current) = messages.last_mut()
        {
            let parsed = parse_bullet(line)
                .unwrap_or_else(|e| panic!("spec, Messages section line {}: {e}", i + 1));
            current.lines.push(parsed);
        }
    }
    // The conventions' examples are not messages.
    messages.retain(|m| m.name != "Conventions");
    messages
}
