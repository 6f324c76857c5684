//! Doc comments as the spec's prose: the first paragraph on one line, wrapped to the spec's
//! width.

/// The first paragraph of a doc comment, on one line.
pub(super) fn first_paragraph(doc: &str) -> String {
    let para = doc.trim().split("\n\n").next().unwrap_or("");
    para.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Word-wraps `text` at 100 columns; continuation lines get `indent`.
pub(super) fn wrap(text: &str, first: &str, indent: &str) -> Vec<String> {
    const WIDTH: usize = 100;
    let mut lines = Vec::new();
    let mut current = first.to_string();
    let mut empty = true;
    for word in text.split(' ') {
        if !empty && current.len() + 1 + word.len() > WIDTH {
            lines.push(std::mem::replace(&mut current, indent.to_string()));
            empty = true;
        }
        if !empty {
            current.push(' ');
        }
        current.push_str(word);
        empty = false;
    }
    lines.push(current);
    lines
}
