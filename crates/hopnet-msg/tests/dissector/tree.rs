//! The dissector's tree as tshark shows it (`-T pdml`), checked field by field against the
//! message's JSON: every node is labelled by its field name (`[i]` for an item), shows its value
//! as `rabbit-msg decode` prints it, and is the display-filter field of its type's field.

use roxmltree::Node;
use serde_json::Value;

/// The JSON of every decoded message in a PDML document, each checked against its tree.
pub fn messages(pdml: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(pdml).expect("tshark's PDML");
    let mut out = Vec::new();
    for message in doc
        .descendants()
        .filter(|n| n.attribute("name") == Some("hopnet.message"))
    {
        let Some(root) = message
            .children()
            .find(|n| n.attribute("name") == Some("hopnet.value"))
        else {
            continue;
        };
        let show = &unescape(root.attribute("show").unwrap());
        let value: Value =
            serde_json::from_str(show).unwrap_or_else(|e| panic!("the root's JSON {show:?}: {e}"));
        let ty = message.attribute("show").unwrap();
        check(root, &value, ty, "hopnet.value");
        out.push(show.to_string());
    }
    out
}

/// PDML writes a control character of a string value as `\xNN`, which is not JSON: back to the
/// JSON escape `\u00NN` (a backslash escaped in the JSON, `\\x`, stays as it is).
fn unescape(show: &str) -> String {
    let mut out = String::with_capacity(show.len());
    let mut chars = show.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('x') => {
                    chars.next();
                    out.push_str("\\u00");
                }
                Some(&next) => {
                    out.push(c);
                    out.push(next);
                    chars.next();
                }
                None => out.push(c),
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn elements<'a, 'i>(n: Node<'a, 'i>) -> impl Iterator<Item = Node<'a, 'i>> {
    n.children().filter(|c| c.is_element())
}

/// Checks one node of the tree against the value it must show.
fn check(node: Node<'_, '_>, want: &Value, label: &str, field: &str) {
    let show = &unescape(node.attribute("show").unwrap());
    let shown: Value =
        serde_json::from_str(show).unwrap_or_else(|e| panic!("{label}: {show:?} is not JSON: {e}"));
    assert_eq!(&shown, want, "{label}: the value shown");
    let showname = &unescape(node.attribute("showname").unwrap());
    let name = node.attribute("name").unwrap();
    assert!(
        name == field
            || (field.is_empty()
                && name.starts_with("hopnet.")
                && name.ends_with(&format!(".{label}"))),
        "{label}: shown as field {name}, not {field:?}"
    );
    let children: Vec<_> = elements(node).collect();
    match want {
        Value::Object(members) if !members.is_empty() => {
            assert_eq!(showname, label);
            assert_eq!(children.len(), members.len(), "{label}: its fields");
            for child in &children {
                let text = child.attribute("showname").unwrap();
                let key = text
                    .trim_start_matches(" [truncated]")
                    .split(": ")
                    .next()
                    .unwrap();
                let value = members
                    .get(key)
                    .unwrap_or_else(|| panic!("{label}: a field {key:?} that is not in the JSON"));
                check(*child, value, key, "");
            }
        }
        Value::Array(items) => {
            assert_eq!(showname, label);
            assert_eq!(children.len(), items.len(), "{label}: its items");
            for (i, (child, value)) in children.iter().zip(items).enumerate() {
                check(*child, value, &format!("[{i}]"), "hopnet.item");
            }
        }
        _ => {
            let full = format!("{label}: {show}");
            // Wireshark shortens a label past 240 bytes (the value keeps every byte).
            match showname.strip_prefix(" [truncated]") {
                Some(start) => assert!(
                    full.starts_with(start.trim_end_matches('…')),
                    "{label}: {showname:?} is not the start of {full:?}"
                ),
                None => assert_eq!(*showname, full, "a value's label"),
            }
            assert!(children.is_empty(), "{label}: a value with parts");
        }
    }
}
