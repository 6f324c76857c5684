//! The server's certificate: self-signed for a page that trusts it by hash, or the operator's.
//!
//! A browser opens a WebTransport session only to a server whose certificate it trusts. Either
//! the certificate chains to a root the browser knows (a real one, for a public host), or the
//! page names its SHA-256 hash in `serverCertificateHashes`, which browsers accept only for an
//! X.509v3 certificate with an ECDSA P-256 key (not RSA) valid for at most 14 days. The hash
//! travels to the page with the page itself ([`Site`](crate::Site) serves it), so a fresh
//! certificate at every start costs the player nothing.

use std::path::Path;
use std::time::{Duration, SystemTime};

use wtransport::Identity;
use wtransport::tls::self_signed::time::{Duration as TimeDuration, OffsetDateTime};

use crate::error::Error;

/// The longest validity browsers accept for a certificate trusted by its hash.
pub const MAX_HASH_VALIDITY: Duration = Duration::from_secs(14 * 24 * 3600);

/// How far before now a self-signed certificate starts, so that a browser whose clock runs a
/// little behind the server's already takes it.
const BACKDATE: Duration = Duration::from_secs(3600);

/// How a page comes to trust the certificate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trust {
    /// By its SHA-256 hash, which the page is given (`serverCertificateHashes`): a self-signed
    /// certificate of at most 14 days with an ECDSA P-256 key.
    Hash,
    /// By the browser's roots (Web PKI): a certificate for the host's name from a certificate
    /// authority. The page is given no hash.
    WebPki,
}

/// The certificate and private key a WebTransport server presents, and how a page trusts it.
///
/// A self-signed certificate made here is renewed by the [`Server`](crate::Server) that
/// presents it, with the same names and validity, once three quarters of its validity have
/// passed: a server may run longer than 14 days, and a page loaded after the renewal is given
/// the new hash (sessions open keep theirs).
pub struct Certificate {
    identity: Identity,
    trust: Trust,
    not_after: Option<SystemTime>,
    renewal: Option<Renewal>,
}

/// How to make the next self-signed certificate, and when.
#[derive(Debug, Clone)]
pub(crate) struct Renewal {
    names: Vec<String>,
    validity: Duration,
    /// When the certificate should be replaced.
    pub due: SystemTime,
}

impl Renewal {
    /// The next certificate.
    pub fn renew(&self) -> Result<Certificate, Error> {
        Certificate::self_signed_for(&self.names, self.validity)
    }
}

impl std::fmt::Debug for Certificate {
    // The private key stays out of logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Certificate")
            .field("trust", &self.trust)
            .field("sha256", &self.hash_hex())
            .field("not_after", &self.not_after)
            .finish_non_exhaustive()
    }
}

impl Certificate {
    /// A fresh self-signed certificate for `names` (host names or IP addresses, which a page
    /// that pins the hash does not check but other clients may), with a new ECDSA P-256 key,
    /// valid from an hour ago for 14 days in all ([`MAX_HASH_VALIDITY`]), trusted by hash.
    pub fn self_signed<I, S>(names: I) -> Result<Certificate, Error>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        Self::self_signed_for(names, MAX_HASH_VALIDITY)
    }

    /// A self-signed certificate like [`self_signed`](Self::self_signed), valid for `validity`
    /// in all (at most [`MAX_HASH_VALIDITY`]; the hour it is backdated counts).
    pub fn self_signed_for<I, S>(names: I, validity: Duration) -> Result<Certificate, Error>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        if validity > MAX_HASH_VALIDITY || validity <= BACKDATE {
            return Err(Error::Certificate(format!(
                "a certificate trusted by hash is valid for more than an hour and at most 14 \
                 days, not {validity:?}"
            )));
        }
        let names: Vec<String> = names.into_iter().map(|n| n.as_ref().to_owned()).collect();
        let not_before = OffsetDateTime::now_utc() - to_time(BACKDATE);
        let not_after = not_before + to_time(validity);
        let identity = Identity::self_signed_builder()
            .subject_alt_names(&names)
            .not_before(not_before)
            .not_after(not_after)
            .build()
            .map_err(|e| Error::Certificate(e.to_string()))?;
        let due = SystemTime::from(not_before) + validity / 4 * 3;
        Ok(Certificate {
            identity,
            trust: Trust::Hash,
            not_after: Some(SystemTime::from(not_after)),
            renewal: Some(Renewal {
                names,
                validity,
                due,
            }),
        })
    }

    /// The operator's certificate chain and private key, from PEM files: a real certificate
    /// ([`Trust::WebPki`]), or one made beforehand for pages that pin it ([`Trust::Hash`], which
    /// browsers take only within its at most 14 days).
    pub fn from_pem_files(
        certificate: impl AsRef<Path>,
        private_key: impl AsRef<Path>,
        trust: Trust,
    ) -> Result<Certificate, Error> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let (certificate, private_key) = (certificate.as_ref(), private_key.as_ref());
        let identity = runtime
            .block_on(Identity::load_pemfiles(certificate, private_key))
            .map_err(|e| {
                Error::Certificate(format!(
                    "cannot load {} and {}: {e}",
                    certificate.display(),
                    private_key.display()
                ))
            })?;
        if identity.certificate_chain().as_slice().is_empty() {
            return Err(Error::Certificate(format!(
                "{} holds no certificate",
                certificate.display()
            )));
        }
        Ok(Certificate {
            identity,
            trust,
            not_after: None,
            renewal: None,
        })
    }

    /// How a page trusts it.
    pub fn trust(&self) -> Trust {
        self.trust
    }

    /// The SHA-256 hash of the leaf certificate's DER encoding, as `serverCertificateHashes`
    /// takes it.
    pub fn hash(&self) -> [u8; 32] {
        *self.leaf().hash().as_ref()
    }

    /// [`hash`](Self::hash) in lowercase hexadecimal.
    pub fn hash_hex(&self) -> String {
        self.hash().iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The hash a page should pin: `Some` for [`Trust::Hash`].
    pub fn page_hash(&self) -> Option<[u8; 32]> {
        (self.trust == Trust::Hash).then(|| self.hash())
    }

    /// The leaf certificate, DER-encoded.
    pub fn der(&self) -> &[u8] {
        self.leaf().der()
    }

    /// When a certificate made here expires (`None` for one loaded from files).
    pub fn not_after(&self) -> Option<SystemTime> {
        self.not_after
    }

    fn leaf(&self) -> &wtransport::tls::Certificate {
        // Both constructors refuse an empty chain.
        &self.identity.certificate_chain().as_slice()[0]
    }

    /// How to renew it, for a self-signed certificate made here.
    pub(crate) fn renewal(&self) -> Option<Renewal> {
        self.renewal.clone()
    }

    pub(crate) fn identity(&self) -> Identity {
        self.identity.clone_identity()
    }
}

fn to_time(d: Duration) -> TimeDuration {
    TimeDuration::seconds(d.as_secs() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_certificate_made_here_is_renewed_after_three_quarters_of_its_validity() {
        let start = SystemTime::now();
        let c = Certificate::self_signed(["localhost"]).unwrap();
        let due = c.renewal().unwrap().due;
        let not_after = c.not_after().unwrap();
        // Backdated an hour, valid 14 days in all: due 3.5 days before it expires.
        let before_expiry = not_after.duration_since(due).unwrap();
        assert!(
            before_expiry.abs_diff(MAX_HASH_VALIDITY / 4) < Duration::from_secs(2),
            "{before_expiry:?}"
        );
        assert!(due > start + Duration::from_secs(10 * 24 * 3600));
        let renewed = c.renewal().unwrap().renew().unwrap();
        assert_ne!(renewed.hash(), c.hash());
        assert!(renewed.renewal().is_some());
    }

    #[test]
    fn a_certificate_from_files_is_not_renewed_here() {
        let dir = std::env::temp_dir().join(format!("hopnet-wt-renew-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let identity = Identity::self_signed(["localhost"]).unwrap();
        let (cert, key) = (dir.join("c.pem"), dir.join("k.pem"));
        std::fs::write(&cert, identity.certificate_chain().as_slice()[0].to_pem()).unwrap();
        std::fs::write(&key, identity.private_key().to_secret_pem()).unwrap();
        let loaded = Certificate::from_pem_files(&cert, &key, Trust::Hash).unwrap();
        assert!(loaded.renewal().is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
