//! The `--protocol-id` flag's number, which the server and the client both take: netcode
//! protocol ids are usually written in hexadecimal, so `0x` is accepted beside decimal.

/// Parses decimal, or hexadecimal after `0x`; the error names the text, for clap to show.
pub fn parse_u64(text: &str) -> Result<u64, String> {
    let parsed = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    };
    parsed.map_err(|e| format!("{text:?}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::parse_u64;

    #[test]
    fn decimal_and_hexadecimal() {
        assert_eq!(parse_u64("4660"), Ok(0x1234));
        assert_eq!(parse_u64("0x1234"), Ok(0x1234));
        assert_eq!(parse_u64("0XfFfF"), Ok(0xffff));
        assert!(parse_u64("0x").unwrap_err().contains("\"0x\""));
        assert!(parse_u64("12g").is_err());
        assert!(parse_u64("0x1_0000_0000_0000_0000").is_err());
    }
}
