//! The certificates a page trusts by hash: what browsers require of them, checked on the
//! certificate's own bytes; and the operator's, from files.

use std::time::{Duration, SystemTime};

use hopnet_webtransport::{Certificate, Error, MAX_HASH_VALIDITY, Trust};
use sha2::{Digest, Sha256};
use x509_parser::prelude::*;

/// id-ecPublicKey and the P-256 curve (secp256r1).
const EC_PUBLIC_KEY: &str = "1.2.840.10045.2.1";
const P256: &str = "1.2.840.10045.3.1.7";

#[test]
fn a_self_signed_certificate_is_what_browsers_pin_by_hash() {
    let certificate = Certificate::self_signed(["localhost", "127.0.0.1"]).unwrap();
    assert_eq!(certificate.trust(), Trust::Hash);
    let (rest, x509) = X509Certificate::from_der(certificate.der()).unwrap();
    assert!(rest.is_empty());

    assert_eq!(x509.version(), X509Version::V3);
    let key = x509.public_key();
    assert_eq!(key.algorithm.algorithm.to_id_string(), EC_PUBLIC_KEY);
    let curve = key
        .algorithm
        .parameters
        .as_ref()
        .and_then(|p| p.as_oid().ok())
        .map(|oid| oid.to_id_string());
    assert_eq!(curve.as_deref(), Some(P256), "the key is ECDSA P-256");

    let validity = x509.validity();
    let length = validity.not_after.timestamp() - validity.not_before.timestamp();
    assert!(
        length > 0 && length as u64 <= MAX_HASH_VALIDITY.as_secs(),
        "valid for {length} s"
    );
    let now = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    assert!(validity.not_before.timestamp() < now && now < validity.not_after.timestamp());
    assert_eq!(
        certificate
            .not_after()
            .map(|t| t.duration_since(SystemTime::UNIX_EPOCH).unwrap().as_secs() as i64),
        Some(validity.not_after.timestamp())
    );

    let hash: [u8; 32] = Sha256::digest(certificate.der()).into();
    assert_eq!(certificate.hash(), hash);
    assert_eq!(certificate.page_hash(), Some(hash));
    assert_eq!(
        certificate.hash_hex(),
        hash.iter().map(|b| format!("{b:02x}")).collect::<String>()
    );
}

#[test]
fn every_start_has_a_new_key() {
    let a = Certificate::self_signed(["localhost"]).unwrap();
    let b = Certificate::self_signed(["localhost"]).unwrap();
    assert_ne!(a.hash(), b.hash());
    let key = |c: &Certificate| {
        let (_, x) = X509Certificate::from_der(c.der()).unwrap();
        x.public_key().raw.to_vec()
    };
    assert_ne!(key(&a), key(&b));
}

#[test]
fn browsers_refuse_more_than_14_days_so_it_is_refused_here() {
    for validity in [
        MAX_HASH_VALIDITY + Duration::from_secs(1),
        Duration::from_secs(365 * 24 * 3600),
        Duration::from_secs(60),
    ] {
        match Certificate::self_signed_for(["localhost"], validity) {
            Err(Error::Certificate(_)) => {}
            other => panic!("{validity:?}: {other:?}"),
        }
    }
    let short =
        Certificate::self_signed_for(["localhost"], Duration::from_secs(2 * 24 * 3600)).unwrap();
    let (_, x) = X509Certificate::from_der(short.der()).unwrap();
    let v = x.validity();
    assert_eq!(
        v.not_after.timestamp() - v.not_before.timestamp(),
        2 * 24 * 3600
    );
}

#[test]
fn the_private_key_stays_out_of_debug_output() {
    let certificate = Certificate::self_signed(["localhost"]).unwrap();
    let shown = format!("{certificate:?}");
    assert!(shown.contains(&certificate.hash_hex()), "{shown}");
    assert!(!shown.to_lowercase().contains("private"), "{shown}");
}

#[test]
fn the_operators_certificate_comes_from_pem_files() {
    let dir = std::env::temp_dir().join(format!("hopnet-wt-cert-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (cert_path, key_path) = (dir.join("cert.pem"), dir.join("key.pem"));
    let identity = wtransport::Identity::self_signed(["game.example"]).unwrap();
    let leaf = &identity.certificate_chain().as_slice()[0];
    std::fs::write(&cert_path, leaf.to_pem()).unwrap();
    std::fs::write(&key_path, identity.private_key().to_secret_pem()).unwrap();

    let real = Certificate::from_pem_files(&cert_path, &key_path, Trust::WebPki).unwrap();
    assert_eq!(real.der(), leaf.der());
    assert_eq!(
        real.page_hash(),
        None,
        "a page trusts a real certificate by its roots"
    );
    let pinned = Certificate::from_pem_files(&cert_path, &key_path, Trust::Hash).unwrap();
    assert_eq!(pinned.page_hash(), Some(real.hash()));

    let missing = dir.join("missing.pem");
    match Certificate::from_pem_files(&missing, &key_path, Trust::WebPki) {
        Err(Error::Certificate(message)) => assert!(message.contains("missing.pem"), "{message}"),
        other => panic!("{other:?}"),
    }
    std::fs::write(dir.join("garbage.pem"), "not a certificate").unwrap();
    assert!(matches!(
        Certificate::from_pem_files(dir.join("garbage.pem"), &key_path, Trust::WebPki),
        Err(Error::Certificate(_))
    ));
    assert!(matches!(
        Certificate::from_pem_files(&cert_path, &cert_path, Trust::WebPki),
        Err(Error::Certificate(_))
    ));
    let _ = std::fs::remove_dir_all(&dir);
}
