//! One 64-bit fingerprint per type: SipHash-1-3 (the `siphasher` crate, keys zero) of the
//! type's canonical form, which is its entry in the export as compact JSON (serde writes the
//! keys of a type's entry in a fixed order, and the maps sorted). Two builds whose type of one
//! name is laid out alike get the same fingerprint; any change the export shows changes it.
//! A type's fingerprint covers the names of the types it refers to, not their layouts: each of
//! those has its own.

use super::{ExportError, SchemaDoc};
use siphasher::sip::SipHasher13;
use std::hash::Hasher;

/// A type's name and the fingerprint of its layout.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TypeFingerprint {
    /// The type's name, or `message NAME` for a message that is not a derived type.
    pub name: String,
    /// SipHash-1-3 of the canonical form.
    pub hash: u64,
}

impl SchemaDoc {
    /// Every type's fingerprint, and one for each message (`message NAME`, the hash of what
    /// the message is), sorted by name. hopnet checks them at connect time:
    /// `hopnet::SchemaFingerprint::new(prints.into_iter().map(|p| (p.name, p.hash)))`, given
    /// to `ConfigBuilder::schema` on both ends.
    ///
    /// ```
    /// let doc = hopnet_msg::export::snow_fight().document()?;
    /// let prints = doc.fingerprints()?;
    /// assert!(prints.iter().any(|p| p.name == "Point"));
    /// assert_eq!(prints, doc.fingerprints()?);
    /// # Ok::<(), hopnet_msg::export::ExportError>(())
    /// ```
    pub fn fingerprints(&self) -> Result<Vec<TypeFingerprint>, ExportError> {
        let mut out = Vec::with_capacity(self.types.len() + self.messages.len());
        for (name, doc) in &self.types {
            out.push(TypeFingerprint {
                name: name.clone(),
                hash: hash(&canonical(doc)?),
            });
        }
        for (name, doc) in &self.messages {
            out.push(TypeFingerprint {
                name: format!("message {name}"),
                hash: hash(&canonical(doc)?),
            });
        }
        out.sort();
        Ok(out)
    }
}

fn hash(bytes: &[u8]) -> u64 {
    let mut h = SipHasher13::new_with_keys(0, 0);
    h.write(bytes);
    h.finish()
}

/// The canonical form: compact JSON.
fn canonical<T: serde::Serialize>(value: &T) -> Result<Vec<u8>, ExportError> {
    serde_json::to_vec(value).map_err(|e| ExportError::Json(e.to_string()))
}
