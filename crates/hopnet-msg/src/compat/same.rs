//! Whether two encodings, or two types, write the same bytes: the same shape, the same
//! widths and bounds, whatever the names of the types, fields and variants. Renaming changes
//! no byte.

use super::types::Cx;
use serde_json::Value;
use std::collections::BTreeSet;

impl Cx<'_> {
    /// The old type `old` and the new type `new` write the same bytes.
    pub(super) fn same_type(&self, old: &str, new: &str) -> bool {
        self.same_value(&type_ref(old), &type_ref(new), &mut BTreeSet::new())
    }

    /// The two encodings (as JSON) write the same bytes.
    pub(super) fn same_json(&self, old: &Value, new: &Value) -> bool {
        self.same_value(old, new, &mut BTreeSet::new())
    }

    /// `assumed` holds the pairs of types being compared further up: a type that contains
    /// itself is taken as the same there (the comparison of the rest decides).
    fn same_value(
        &self,
        old: &Value,
        new: &Value,
        assumed: &mut BTreeSet<(String, String)>,
    ) -> bool {
        if let (Some(a), Some(b)) = (ref_name(old), ref_name(new)) {
            let pair = (a.to_string(), b.to_string());
            if assumed.contains(&pair) {
                return true;
            }
            let (Some(ta), Some(tb)) = (self.old.types.get(a), self.new.types.get(b)) else {
                return false;
            };
            let (Ok(va), Ok(vb)) = (serde_json::to_value(ta), serde_json::to_value(tb)) else {
                return false;
            };
            assumed.insert(pair);
            return self.same_value(&va, &vb, assumed);
        }
        match (old, new) {
            (Value::Object(a), Value::Object(b)) => {
                let keys = |m: &serde_json::Map<String, Value>| {
                    m.keys()
                        .filter(|k| *k != "name")
                        .cloned()
                        .collect::<Vec<_>>()
                };
                keys(a) == keys(b)
                    && a.iter()
                        .filter(|(k, _)| *k != "name")
                        .all(|(k, v)| self.same_value(v, &b[k], assumed))
            }
            (Value::Array(a), Value::Array(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| self.same_value(x, y, assumed))
            }
            _ => old == new,
        }
    }
}

/// An encoding that refers to the type `name`.
fn type_ref(name: &str) -> Value {
    serde_json::json!({"kind": "type", "name": name})
}

/// The type an encoding refers to, if it is a reference.
fn ref_name(v: &Value) -> Option<&str> {
    let m = v.as_object()?;
    if m.get("kind")?.as_str()? == "type" {
        m.get("name")?.as_str()
    } else {
        None
    }
}
