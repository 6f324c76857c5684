//! The schema check at connect time: two hopnet peers built from different message schemas
//! learn it when they negotiate, with the name of a type that differs, instead of failing to
//! decode a message later.
//!
//! Each end that is given a schema ([`ConfigBuilder::schema`](crate::ConfigBuilder::schema))
//! appends a *schema field* to its offer or accept, between `Max datagram size` and the CRC,
//! where the negotiation's later fields go:
//!
//! ```text
//! +---------------+---------------+----------------------------------------------+
//! |   'S' (0x53)  |  Count n      |  n entries of 8 bytes, by name hash ascending |
//! +---------------+---------------+----------------------------------------------+
//! entry: | name hash (u32, big-endian) | layout fingerprint (u32, big-endian) |
//! ```
//!
//! The name hash is SipHash-1-3 (keys zero) of the type's name in UTF-8, its low 32 bits; the
//! layout fingerprint is the low 32 bits of the fingerprint the game computed for the type
//! (`hopnet_msg::export`: SipHash-1-3 of the type's canonical JSON). A receiver that finds a
//! type of the same name hash with another layout, or a type on one side only, names it: its
//! own name for the hash, which is why names travel only as hashes, bounded to
//! [`MAX_SCHEMA_TYPES`] entries so that the offer stays within the spec's 508-byte datagram.
//! An end without a schema writes no field, and ignores one (so it connects as before).

use crate::error::Error;
use siphasher::sip::SipHasher13;
use std::hash::Hasher;

/// The first byte of the schema field.
pub const SCHEMA_MARK: u8 = b'S';
/// The most types a schema field carries: 16 + 2 + 56 × 8 = 466 bytes, within 508.
pub const MAX_SCHEMA_TYPES: usize = 56;
/// The longest type name a [`SchemaMismatch`] holds; a longer one is cut at a character
/// boundary.
pub const MAX_TYPE_NAME: usize = 62;

/// The fingerprints of a game's types, as the handshake exchanges them.
///
/// ```
/// use hopnet_proto::SchemaFingerprint;
/// let schema = SchemaFingerprint::new([("Point", 0x1234_5678_9abc_def0u64), ("Snapshot", 42)])?;
/// assert_eq!(schema.len(), 2);
/// let config = hopnet_proto::Config::builder().extensions(true).schema(schema).build()?;
/// # Ok::<(), hopnet_proto::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaFingerprint {
    /// (name, name hash, layout fingerprint), sorted by name hash.
    types: Vec<(String, u32, u32)>,
}

impl SchemaFingerprint {
    /// The schema of these types, each a name and the fingerprint of its layout. At least one,
    /// at most [`MAX_SCHEMA_TYPES`], names unique.
    pub fn new<S: Into<String>>(
        types: impl IntoIterator<Item = (S, u64)>,
    ) -> Result<SchemaFingerprint, Error> {
        let mut types: Vec<(String, u32, u32)> = types
            .into_iter()
            .map(|(name, layout)| {
                let name = name.into();
                let hash = name_hash(&name);
                (name, hash, layout as u32)
            })
            .collect();
        if types.is_empty() || types.len() > MAX_SCHEMA_TYPES {
            return Err(Error::InvalidConfig(
                "a schema fingerprint has from 1 to 56 types (MAX_SCHEMA_TYPES)",
            ));
        }
        types.sort_by(|a, b| (a.1, &a.0).cmp(&(b.1, &b.0)));
        if types.windows(2).any(|w| w[0].1 == w[1].1) {
            return Err(Error::InvalidConfig(
                "two types of a schema fingerprint have the same name (or name hash)",
            ));
        }
        Ok(SchemaFingerprint { types })
    }

    /// How many types.
    pub fn len(&self) -> usize {
        self.types.len()
    }

    /// Never: a fingerprint has at least one type.
    pub fn is_empty(&self) -> bool {
        self.types.is_empty()
    }

    /// The schema field (see the module doc).
    pub(crate) fn field(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(2 + 8 * self.types.len());
        out.push(SCHEMA_MARK);
        out.push(self.types.len() as u8);
        for (_, name, layout) in &self.types {
            out.extend_from_slice(&name.to_be_bytes());
            out.extend_from_slice(&layout.to_be_bytes());
        }
        out
    }

    /// Compares with the peer's field (the bytes after `Max datagram size`, before the CRC).
    /// `Ok(None)`: no schema field (the peer has no schema), or the same schema.
    /// `Err(())`: a schema field that does not parse.
    pub(crate) fn check(&self, extra: &[u8]) -> Result<Option<SchemaMismatch>, ()> {
        let Some(peer) = parse(extra)? else {
            return Ok(None);
        };
        let layout_of = |hash: u32| peer.iter().find(|(h, _)| *h == hash).map(|(_, l)| *l);
        let mut by_name: Vec<&(String, u32, u32)> = self.types.iter().collect();
        by_name.sort_by(|a, b| a.0.cmp(&b.0));
        if let Some((name, ..)) = by_name
            .iter()
            .find(|(_, h, l)| layout_of(*h).is_some_and(|peer| peer != *l))
        {
            return Ok(Some(SchemaMismatch::new(MismatchKind::Differs, name)));
        }
        if let Some((name, ..)) = by_name.iter().find(|(_, h, _)| layout_of(*h).is_none()) {
            return Ok(Some(SchemaMismatch::new(MismatchKind::PeerLacks, name)));
        }
        if peer.len() != self.types.len() {
            return Ok(Some(SchemaMismatch::new(MismatchKind::PeerHasMore, "")));
        }
        Ok(None)
    }
}

/// The peer's entries, `None` without a schema field.
fn parse(extra: &[u8]) -> Result<Option<Vec<(u32, u32)>>, ()> {
    let Some((&SCHEMA_MARK, rest)) = extra.split_first() else {
        return Ok(None);
    };
    let (&n, rest) = rest.split_first().ok_or(())?;
    let n = usize::from(n);
    if n == 0 || n > MAX_SCHEMA_TYPES || rest.len() < 8 * n {
        return Err(());
    }
    Ok(Some(
        rest[..8 * n]
            .chunks_exact(8)
            .map(|e| {
                let word = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
                (word(&e[..4]), word(&e[4..]))
            })
            .collect(),
    ))
}

fn name_hash(name: &str) -> u32 {
    let mut h = SipHasher13::new_with_keys(0, 0);
    h.write(name.as_bytes());
    h.finish() as u32
}

/// What differs between the two ends' schemas.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MismatchKind {
    /// Both have the type, laid out differently.
    Differs,
    /// This end has the type, the peer does not.
    PeerLacks,
    /// The peer has a type this end does not (whose name only the peer knows).
    PeerHasMore,
}

/// Why a connection was refused at its negotiation: the two ends' schemas differ, with the
/// name of a type that differs ([`DisconnectReason::SchemaMismatch`](crate::DisconnectReason)).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct SchemaMismatch {
    kind: MismatchKind,
    name: [u8; MAX_TYPE_NAME],
    len: u8,
}

impl SchemaMismatch {
    fn new(kind: MismatchKind, name: &str) -> SchemaMismatch {
        let mut end = name.len().min(MAX_TYPE_NAME);
        while !name.is_char_boundary(end) {
            end -= 1;
        }
        let mut buf = [0u8; MAX_TYPE_NAME];
        buf[..end].copy_from_slice(&name.as_bytes()[..end]);
        SchemaMismatch {
            kind,
            name: buf,
            len: end as u8,
        }
    }

    /// What differs.
    pub fn kind(&self) -> MismatchKind {
        self.kind
    }

    /// The type's name on this end (cut to [`MAX_TYPE_NAME`] bytes); `None` for a type only
    /// the peer has.
    pub fn type_name(&self) -> Option<&str> {
        let name = std::str::from_utf8(&self.name[..usize::from(self.len)]).ok()?;
        (!name.is_empty()).then_some(name)
    }
}

impl std::fmt::Display for SchemaMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = self.type_name().unwrap_or("");
        match self.kind {
            MismatchKind::Differs => write!(
                f,
                "the peer was built from another schema: type `{name}` is laid out differently"
            ),
            MismatchKind::PeerLacks => write!(
                f,
                "the peer was built from another schema: it has no type `{name}`"
            ),
            MismatchKind::PeerHasMore => write!(
                f,
                "the peer was built from another schema: it has a type this end does not"
            ),
        }
    }
}

impl std::fmt::Debug for SchemaMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SchemaMismatch")
            .field("kind", &self.kind)
            .field("type_name", &self.type_name())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema(types: &[(&str, u64)]) -> SchemaFingerprint {
        SchemaFingerprint::new(types.iter().copied()).unwrap()
    }

    #[test]
    fn the_field_is_byte_for_byte_as_documented() {
        let s = schema(&[("Point", 0xaaaa_bbbb_0102_0304)]);
        let field = s.field();
        let name = name_hash("Point").to_be_bytes();
        assert_eq!(field[..2], [b'S', 1]);
        assert_eq!(field[2..6], name);
        assert_eq!(field[6..], [1, 2, 3, 4]);
    }

    #[test]
    fn the_same_schema_matches_and_a_difference_is_named() {
        let a = schema(&[("Point", 1), ("Snapshot", 2), ("Event", 3)]);
        assert_eq!(a.check(&a.field()), Ok(None));
        assert_eq!(a.check(&[]), Ok(None), "no schema field: no check");
        let b = schema(&[("Point", 1), ("Snapshot", 9), ("Event", 3)]);
        let m = a.check(&b.field()).unwrap().unwrap();
        assert_eq!(
            (m.kind(), m.type_name()),
            (MismatchKind::Differs, Some("Snapshot"))
        );
        assert!(m.to_string().contains("`Snapshot`"));
        let fewer = schema(&[("Point", 1), ("Snapshot", 2)]);
        let m = a.check(&fewer.field()).unwrap().unwrap();
        assert_eq!(
            (m.kind(), m.type_name()),
            (MismatchKind::PeerLacks, Some("Event"))
        );
        let m = fewer.check(&a.field()).unwrap().unwrap();
        assert_eq!((m.kind(), m.type_name()), (MismatchKind::PeerHasMore, None));
    }

    #[test]
    fn a_bad_field_is_refused_and_bounds_hold() {
        let a = schema(&[("Point", 1)]);
        assert_eq!(a.check(b"S"), Err(()));
        assert_eq!(a.check(&[b'S', 2, 0, 0, 0, 0, 0, 0, 0, 0]), Err(()));
        assert_eq!(a.check(&[b'S', 0]), Err(()));
        let many: Vec<(String, u64)> = (0..57).map(|i| (format!("T{i}"), i)).collect();
        assert!(SchemaFingerprint::new(many).is_err());
        let most: Vec<(String, u64)> = (0..56).map(|i| (format!("T{i}"), i)).collect();
        assert_eq!(
            SchemaFingerprint::new(most).unwrap().field().len(),
            2 + 56 * 8
        );
        assert!(SchemaFingerprint::new([("A", 1), ("A", 2)]).is_err());
        let long = "é".repeat(40);
        let m = SchemaMismatch::new(MismatchKind::Differs, &long);
        assert_eq!(m.type_name().unwrap().len(), 62);
    }
}
