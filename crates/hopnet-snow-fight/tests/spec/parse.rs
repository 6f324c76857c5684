//! The spec's notation, read from two places: the "Messages" section of the spec's Markdown, and
//! `messages.md` beside this file, our checked-in table of the same facts. Both come out as the
//! same [`Message`]s, so the two can be compared exactly and the table stands in for the spec
//! in a clone that has no `../shared` beside it.
//!
//! The table's format, kept to what the comparison uses: free prose up to the first `## Name`
//! heading; then per message its heading and either its components as the spec's bullets
//! without their descriptions (`` - `name` (type) `` or `` - `name` (if cond then type) ``,
//! with `1-bit integer` written `u1`) or the one word `Empty`. Nothing else, so that a typo is
//! an error rather than a silently dropped component.

use hopnet_snow_fight::notation::Line;

/// One message of the spec: its name and components in wire order.
#[derive(Debug, PartialEq, Eq)]
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

/// The messages of our table (`messages.md`), strictly: see the module's doc for the format.
pub fn table(text: &str) -> Result<Vec<Message>, String> {
    let mut messages: Vec<Message> = Vec::new();
    // Whether the current message said `Empty`.
    let mut empty = false;
    let close = |message: Option<&Message>, empty: bool| match message {
        Some(m) if m.lines.is_empty() && !empty => {
            Err(format!("{}: neither components nor Empty", m.name))
        }
        _ => Ok(()),
    };
    for (i, line) in text.lines().enumerate() {
        let at = |e: &str| format!("line {}: {e}: {line:?}", i + 1);
        if let Some(name) = line.strip_prefix("## ") {
            close(messages.last(), empty)?;
            empty = false;
            let name = name.trim();
            if name.is_empty() || name.contains(char::is_whitespace) {
                return Err(at("a message's name is one word"));
            }
            messages.push(Message {
                name: name.to_string(),
                lines: Vec::new(),
            });
            continue;
        }
        let Some(current) = messages.last_mut() else {
            continue; // the prose before the first message
        };
        if line.trim().is_empty() {
            continue;
        }
        if line == "Empty" {
            if empty || !current.lines.is_empty() {
                return Err(at("Empty in a message that has components"));
            }
            empty = true;
        } else if line.starts_with("- `") {
            if empty {
                return Err(at("a component in a message that is Empty"));
            }
            let parsed = parse_bullet(line).map_err(|e| at(&e))?;
            if parsed.to_string() != line {
                return Err(at(&format!("not in the normal form `{parsed}`")));
            }
            current.lines.push(parsed);
        } else {
            return Err(at("neither a heading, a component, Empty nor blank"));
        }
    }
    close(messages.last(), empty)?;
    Ok(messages)
}

/// The table's text for these messages (without its prose): what `messages.md` must hold.
pub fn render(messages: &[Message]) -> String {
    let mut out = String::new();
    for m in messages {
        out.push_str(&format!("\n## {}\n\n", m.name));
        if m.lines.is_empty() {
            out.push_str("Empty\n");
        }
        for line in &m.lines {
            out.push_str(&format!("{line}\n"));
        }
    }
    out
}
