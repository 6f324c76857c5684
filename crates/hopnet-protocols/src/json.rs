//! The contract's one-line JSON summaries: flat objects of whole numbers.

/// `{"name":value,...}` in the order given.
pub(crate) fn object(fields: &[(&str, u64)]) -> String {
    let body: Vec<String> = fields
        .iter()
        .map(|(name, value)| format!("\"{name}\":{value}"))
        .collect();
    format!("{{{}}}", body.join(","))
}
