//! The library behind `rabbit-msg`: code generated from the schema that `#[derive(Rabbit)]`
//! records, for programs that speak the messages in another language.
//!
//! The tool itself (`cargo install hopnet-msg`, then `rabbit-msg --help`) decodes and encodes
//! Snow Fight's messages and the formats of `hopnet-formats` between hex and JSON, prints their
//! schema and generates TypeScript codecs; see the crate's README. Use this library from a build
//! script to generate the same codecs for your own messages ([`codegen::TypeScript`]), a
//! Wireshark dissector of hopnet's wire and your messages ([`dissector::Wireshark`], `rabbit-msg
//! dissector wireshark`), or to read the messages of a capture ([`pcap::Capture`], `rabbit-msg
//! pcap`).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod codegen;
pub mod compat;
pub mod dissector;
pub mod export;
pub mod pcap;
