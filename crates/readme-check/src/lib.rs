//! The READMEs' Rust examples, compiled and run as doctests (`cargo test -p readme-check`).
//!
//! A crate of its own so that no published crate carries the repository's README and no game
//! test suite compiles the toolkit's tour.

/// The repository's README: the tour.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct RepositoryReadme;

/// hopnet's README.
#[doc = include_str!("../../hopnet/README.md")]
#[cfg(doctest)]
pub struct HopnetReadme;

/// hopnet-proto's README.
#[doc = include_str!("../../hopnet-proto/README.md")]
#[cfg(doctest)]
pub struct HopnetProtoReadme;

/// hopnet-codec's README.
#[doc = include_str!("../../hopnet-codec/README.md")]
#[cfg(doctest)]
pub struct CodecReadme;

/// hopnet-snow-fight's README.
#[doc = include_str!("../../hopnet-snow-fight/README.md")]
#[cfg(doctest)]
pub struct SnowFightReadme;

/// hopnet-formats' README.
#[doc = include_str!("../../hopnet-formats/README.md")]
#[cfg(doctest)]
pub struct FormatsReadme;

/// hopnet-netcode's README.
#[doc = include_str!("../../hopnet-netcode/README.md")]
#[cfg(doctest)]
pub struct NetcodeReadme;

/// hopnet-bevy's README.
#[doc = include_str!("../../hopnet-bevy/README.md")]
#[cfg(doctest)]
pub struct BevyReadme;
/// hopnet-webtransport's README.
#[doc = include_str!("../../hopnet-webtransport/README.md")]
#[cfg(doctest)]
pub struct WebTransportReadme;
