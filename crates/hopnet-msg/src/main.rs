//! `rabbit-msg`: encodes and decodes game messages between their canonical JSON form and hex,
//! and prints the message definitions in the spec's notation.
//!
//! ```text
//! rabbit-msg encode ServerMessage < msg.json        # prints lowercase hex
//! rabbit-msg decode ServerMessage 9f03...           # prints the JSON
//! rabbit-msg encode ClientMessage --batch < lines   # one JSON document a line in, one hex out
//! rabbit-msg decode ClientMessage --batch < lines   # one hex string a line in, one JSON out
//! rabbit-msg decode ClientMessage --dialect original 0008   # the original implementation's
//! rabbit-msg schema [TYPE]                          # the spec's notation
//! rabbit-msg schema --json [TYPE] > v2.json         # the whole schema as data (all messages)
//! rabbit-msg compat v1.json v2.json [--json]        # what changed; exit 2 if something breaks
//! rabbit-msg codegen typescript [TYPE...] [--out F] # TypeScript codecs (all messages without TYPE)
//! rabbit-msg dissector wireshark [--port P] [--out F] # a Lua dissector for Wireshark and tshark
//! rabbit-msg pcap FILE [--port P]                   # a capture's messages as JSON lines
//! ```
//!
//! Bad input: one line `error: <reason>` on standard error and exit status 1. With `--batch`, a
//! line that fails gives `error: <reason>` as its output line and the tool goes on.
//!
//! Besides the spec's messages, the tool handles the other seeds' formats of the
//! `hopnet-formats` crate, by their module paths: `semi_ordered::Datagram`, `dogfight::State`,
//! `dogfight::Event`, `woke::Packet`, `rtype::Frame`, the Source engine's queries
//! (`source_query::InfoResponse`, ...), `dns::Message`, Minecraft's server list ping
//! (`minecraft::HandshakeFrame`, `minecraft::ServerboundFrame`, `minecraft::ClientboundFrame`)
//! and `raknet::Offline` (their JSON leaves out computed fields, which hold nothing).
//!
//! `--dialect original` encodes and decodes as the spec author's own implementation does: a
//! 1-bit `ClientMessage` tag instead of the spec's `u32`. Every other type is the same in both
//! dialects, so for them the flag changes nothing. The default, `spec`, is the contract of
//! the repository's `vectors/README.md`.

use clap::Parser;
use hopnet_codec::{Decode, Encode};
use hopnet_snow_fight::notation;
use hopnet_snow_fight::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::io::{self, BufRead, Read, Write};
use std::process::ExitCode;

/// Encode and decode game messages: canonical JSON <-> Rabbit hex.
#[derive(Parser, Debug)]
#[command(name = "rabbit-msg", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// Reads a message as JSON and prints its encoding as lowercase hex.
    Encode {
        /// The message type, by its spec name (e.g. ServerMessage, ClientMessage, Snapshot).
        #[arg(value_name = "TYPE")]
        ty: String,
        /// The JSON document; read from standard input when absent.
        #[arg(value_name = "JSON", conflicts_with = "batch")]
        input: Option<String>,
        /// One JSON document a line on standard input, one answer a line on standard output.
        #[arg(long)]
        batch: bool,
        /// `spec`, or `original`: the spec author's implementation (only ClientMessage differs).
        #[arg(long, default_value_t = Dialect::Spec, value_name = "spec|original")]
        dialect: Dialect,
    },
    /// Reads an encoding as hex and prints the message as JSON.
    Decode {
        /// The message type, by its spec name (e.g. ServerMessage, ClientMessage, Snapshot).
        #[arg(value_name = "TYPE")]
        ty: String,
        /// The hex string; read from standard input when absent.
        #[arg(value_name = "HEX", conflicts_with = "batch")]
        input: Option<String>,
        /// One hex string a line on standard input, one answer a line on standard output.
        #[arg(long)]
        batch: bool,
        /// `spec`, or `original`: the spec author's implementation (only ClientMessage differs).
        #[arg(long, default_value_t = Dialect::Spec, value_name = "spec|original")]
        dialect: Dialect,
    },
    /// Prints message definitions in the spec's notation (all of them without TYPE).
    Schema {
        /// The message type, by its spec name.
        #[arg(value_name = "TYPE")]
        ty: Option<String>,
        /// The whole schema as one JSON document (hopnet_msg::export), for `compat`.
        #[arg(long)]
        json: bool,
    },
    /// Lists the changes between two `schema --json` exports and whether each breaks old or
    /// new peers. Exit status 0: nothing breaks; 2: something breaks; 1: an input is unreadable.
    Compat {
        /// The export of the released schema.
        old: std::path::PathBuf,
        /// The export of the schema to release.
        new: std::path::PathBuf,
        /// One JSON document instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Lists the message types that encode, decode and schema accept.
    Types,
    /// Prints the messages of a pcap or pcapng capture as JSON lines (hopnet_msg::pcap).
    Pcap {
        /// The capture file.
        #[arg(value_name = "FILE")]
        file: std::path::PathBuf,
        /// The game server's UDP port (repeatable; 7777 when absent).
        #[arg(long = "port", value_name = "P")]
        ports: Vec<u16>,
    },
    /// Writes a dissector of hopnet's wire and the game's messages (hopnet_msg::dissector).
    Dissector {
        /// `wireshark`: one Lua file for Wireshark and tshark (`-X lua_script:FILE`).
        #[arg(value_enum, value_name = "TOOL")]
        tool: DissectorTool,
        /// The game server's UDP port (repeatable; 7777 when absent).
        #[arg(long = "port", value_name = "P")]
        ports: Vec<u16>,
        /// The file to write; standard output when absent.
        #[arg(long, value_name = "FILE")]
        out: Option<std::path::PathBuf>,
    },
    /// Generates codecs of the messages in another language (hopnet_msg::codegen).
    Codegen {
        /// `typescript`: a module with a type, an encoder and a decoder per message.
        #[arg(value_enum, value_name = "LANGUAGE")]
        language: Language,
        /// The message types, by name (all of the spec's messages when absent).
        #[arg(value_name = "TYPE")]
        types: Vec<String>,
        /// The file to write; standard output when absent.
        #[arg(long, value_name = "FILE")]
        out: Option<std::path::PathBuf>,
    },
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum Language {
    Typescript,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum DissectorTool {
    Wireshark,
}

/// Turns one input into one output line, or a one-line reason.
type Convert = fn(&str) -> Result<String, String>;

/// How to encode and decode one message type.
struct Codec {
    name: &'static str,
    encode: Convert,
    decode: Convert,
    schema: fn() -> hopnet_codec::schema::Encoding,
}

macro_rules! codecs {
    ($($name:literal => $ty:ty),* $(,)?) => {
        &[$(Codec {
            name: $name,
            encode: encode_json::<$ty>,
            decode: decode_hex::<$ty>,
            schema: <$ty as Encode>::schema,
        }),*]
    };
}

/// Every type, by the spec's name. `Dead` and `Pong` are empty: `null` in JSON, no bits.
const CODECS: &[Codec] = codecs![
    "ServerMessage" => ServerMessage,
    "Event" => Event,
    "EventKind" => EventKind,
    "GameOver" => GameOver,
    "Snapshot" => Snapshot,
    "Entity" => Entity,
    "EntityKind" => EntityKind,
    "Object" => Object,
    "ObjectKind" => ObjectKind,
    "Player" => Player,
    "Dead" => (),
    "Direction" => Direction,
    "Point" => Point,
    "Response" => Response,
    "ResponseKind" => ResponseKind,
    "Error" => ErrorMessage,
    "ErrorMessage" => ErrorMessage,
    "Pong" => (),
    "Connect" => Connect,
    "ClientMessage" => ClientMessage,
    "Request" => Request,
    "RequestKind" => RequestKind,
    "Action" => Action,
    "Break" => Break,
    "Throw" => Throw,
    "Move" => Move,
];

/// The other seeds' top-level types (`hopnet-formats`), by module path.
const SEED_CODECS: &[Codec] = codecs![
    "semi_ordered::Datagram" => hopnet_formats::semi_ordered::Datagram,
    "dogfight::State" => hopnet_formats::dogfight::State,
    "dogfight::Event" => hopnet_formats::dogfight::Event,
    "woke::Packet" => hopnet_formats::woke::Packet,
    "rtype::Frame" => hopnet_formats::rtype::Frame,
    "source_query::InfoRequest" => hopnet_formats::source_query::InfoRequest,
    "source_query::InfoResponse" => hopnet_formats::source_query::InfoResponse,
    "source_query::Challenge" => hopnet_formats::source_query::Challenge,
    "source_query::PlayerRequest" => hopnet_formats::source_query::PlayerRequest,
    "source_query::PlayerResponse" => hopnet_formats::source_query::PlayerResponse,
    "source_query::RulesRequest" => hopnet_formats::source_query::RulesRequest,
    "source_query::RulesResponse" => hopnet_formats::source_query::RulesResponse,
    "source_query::SplitHeader" => hopnet_formats::source_query::SplitHeader,
    "dns::Message" => hopnet_formats::dns::Message,
    "dns::Header" => hopnet_formats::dns::Header,
    "dns::Question" => hopnet_formats::dns::Question,
    "dns::Record" => hopnet_formats::dns::Record,
    "dns::Name" => hopnet_formats::dns::Name,
    "minecraft::HandshakeFrame" => hopnet_formats::minecraft::HandshakeFrame,
    "minecraft::ServerboundFrame" => hopnet_formats::minecraft::ServerboundFrame,
    "minecraft::ClientboundFrame" => hopnet_formats::minecraft::ClientboundFrame,
    "raknet::Offline" => hopnet_formats::raknet::Offline,
];

/// The schema of a seed type, in the spec's notation.
fn seed_definition(name: &str) -> Option<notation::Definition> {
    use hopnet_codec::schema::Describe;
    use hopnet_formats::*;
    let schema = match name {
        "semi_ordered::Datagram" => semi_ordered::Datagram::type_schema(),
        "dogfight::State" => dogfight::State::type_schema(),
        "dogfight::Event" => dogfight::Event::type_schema(),
        "woke::Packet" => woke::Packet::type_schema(),
        "rtype::Frame" => rtype::Frame::type_schema(),
        "source_query::InfoRequest" => source_query::InfoRequest::type_schema(),
        "source_query::InfoResponse" => source_query::InfoResponse::type_schema(),
        "source_query::Challenge" => source_query::Challenge::type_schema(),
        "source_query::PlayerRequest" => source_query::PlayerRequest::type_schema(),
        "source_query::PlayerResponse" => source_query::PlayerResponse::type_schema(),
        "source_query::RulesRequest" => source_query::RulesRequest::type_schema(),
        "source_query::RulesResponse" => source_query::RulesResponse::type_schema(),
        "source_query::SplitHeader" => source_query::SplitHeader::type_schema(),
        "dns::Message" => dns::Message::type_schema(),
        "dns::Header" => dns::Header::type_schema(),
        "dns::Question" => dns::Question::type_schema(),
        "dns::Record" => dns::Record::type_schema(),
        "dns::Name" => dns::Name::type_schema(),
        "minecraft::HandshakeFrame" => minecraft::HandshakeFrame::type_schema(),
        "minecraft::ServerboundFrame" => minecraft::ServerboundFrame::type_schema(),
        "minecraft::ClientboundFrame" => minecraft::ClientboundFrame::type_schema(),
        "raknet::Offline" => raknet::Offline::type_schema(),
        _ => return None,
    };
    let mut def = notation::Definition::of(&schema);
    def.name = name.to_string();
    Some(def)
}

/// The types whose encoding differs in the original dialect, with their codecs there. Any
/// other type uses its entry in [`CODECS`] in both dialects.
const ORIGINAL_CODECS: &[Codec] = &[Codec {
    name: "ClientMessage",
    encode: encode_original_client,
    decode: decode_original_client,
    schema: <ClientMessage as Encode>::schema,
}];

fn encode_json<T: DeserializeOwned + Encode>(json: &str) -> Result<String, String> {
    let value: T = serde_json::from_str(json).map_err(|e| format!("invalid JSON: {e}"))?;
    let bytes = hopnet_codec::to_bytes(&value).map_err(|e| format!("cannot encode: {e}"))?;
    Ok(to_hex(&bytes))
}

fn encode_original_client(json: &str) -> Result<String, String> {
    let value: ClientMessage =
        serde_json::from_str(json).map_err(|e| format!("invalid JSON: {e}"))?;
    let bytes = Dialect::Original
        .to_bytes(&value)
        .map_err(|e| format!("cannot encode: {e}"))?;
    Ok(to_hex(&bytes))
}

fn decode_hex<T: Decode + Serialize + DeserializeOwned>(hex: &str) -> Result<String, String> {
    let bytes = from_hex(hex)?;
    let value: T = hopnet_codec::from_bytes(&bytes).map_err(|e| format!("cannot decode: {e}"))?;
    to_json(&value)
}

fn decode_original_client(hex: &str) -> Result<String, String> {
    let bytes = from_hex(hex)?;
    let value = Dialect::Original
        .from_bytes(&bytes)
        .map_err(|e| format!("cannot decode: {e}"))?;
    to_json(&value)
}

fn to_json<T: Serialize + DeserializeOwned>(value: &T) -> Result<String, String> {
    let json = serde_json::to_string(value).map_err(|e| format!("cannot write JSON: {e}"))?;
    // JSON has no NaN or infinity: serde_json writes them as `null`, which would not read back.
    if serde_json::from_str::<T>(&json).is_err() {
        return Err("the message holds a NaN or infinite float, which JSON cannot express".into());
    }
    Ok(json)
}

fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 15)] as char);
    }
    out
}

fn from_hex(text: &str) -> Result<Vec<u8>, String> {
    let text = text.trim();
    if !text.len().is_multiple_of(2) {
        return Err(format!(
            "invalid hex: odd number of digits ({})",
            text.len()
        ));
    }
    let digit = |c: u8, at: usize| match c {
        b'0'..=b'9' => Ok(c - b'0'),
        b'a'..=b'f' => Ok(c - b'a' + 10),
        b'A'..=b'F' => Ok(c - b'A' + 10),
        _ => Err(format!(
            "invalid hex: unexpected character {:?} at position {at}",
            text[at..].chars().next().unwrap_or('?')
        )),
    };
    text.as_bytes()
        .chunks_exact(2)
        .enumerate()
        .map(|(i, pair)| Ok(digit(pair[0], 2 * i)? << 4 | digit(pair[1], 2 * i + 1)?))
        .collect()
}

/// The codec of a type in a dialect.
fn codec(name: &str, dialect: Dialect) -> Result<&'static Codec, String> {
    let differs = match dialect {
        Dialect::Spec => None,
        Dialect::Original => ORIGINAL_CODECS.iter().find(|c| c.name == name),
    };
    let same = || CODECS.iter().chain(SEED_CODECS).find(|c| c.name == name);
    differs.or_else(same).ok_or_else(|| {
        let known: Vec<&str> = CODECS.iter().chain(SEED_CODECS).map(|c| c.name).collect();
        format!(
            "unknown message type `{name}` (known: {})",
            known.join(", ")
        )
    })
}

/// Reads all of standard input as text.
fn read_stdin() -> Result<String, String> {
    let mut input = String::new();
    io::stdin()
        .read_to_string(&mut input)
        .map_err(|e| format!("cannot read standard input: {e}"))?;
    Ok(input)
}

/// Converts each line of standard input, writing one answer a line.
fn batch(convert: Convert) -> Result<(), String> {
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = input
            .read_until(b'\n', &mut line)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        if n == 0 {
            break;
        }
        let answer = match std::str::from_utf8(&line) {
            Ok(text) => convert(text.trim()),
            Err(_) => Err("the line is not UTF-8".to_string()),
        };
        match answer {
            Ok(text) => writeln!(out, "{text}"),
            Err(reason) => writeln!(out, "error: {reason}"),
        }
        .and_then(|()| out.flush())
        .map_err(write_error)?;
    }
    Ok(())
}

/// A failed write to standard output. A reader that went away (`rabbit-msg schema | head`)
/// is not an error: the tool stops quietly, as `cat` would.
fn write_error(e: io::Error) -> String {
    if e.kind() == io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    format!("cannot write standard output: {e}")
}

fn print(text: &str) -> Result<(), String> {
    let mut out = io::stdout().lock();
    writeln!(out, "{text}")
        .and_then(|()| out.flush())
        .map_err(write_error)
}

/// `encode` or `decode`: every line of standard input with `--batch`, else the argument (or all
/// of standard input) as one document.
fn convert_one_or_batch(
    convert: Convert,
    input: Option<String>,
    batch_mode: bool,
) -> Result<(), String> {
    if batch_mode {
        return batch(convert);
    }
    let text = match input {
        Some(text) => text,
        None => read_stdin()?,
    };
    print(&convert(text.trim())?)
}

fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Command::Encode {
            ty,
            input,
            batch: b,
            ..
        }
        | Command::Decode {
            ty,
            input,
            batch: b,
            ..
        } if b && input.is_some() => Err(format!(
            "--batch reads standard input; {ty} takes no input argument with it"
        )),
        Command::Encode {
            ty,
            input,
            batch: b,
            dialect,
        } => convert_one_or_batch(codec(&ty, dialect)?.encode, input, b),
        Command::Decode {
            ty,
            input,
            batch: b,
            dialect,
        } => convert_one_or_batch(codec(&ty, dialect)?.decode, input, b),
        Command::Schema { ty, json: true } => {
            let schema = match ty {
                None => hopnet_msg::export::snow_fight(),
                Some(name) => hopnet_msg::export::Schema::new()
                    .message_encoding(&name, (codec(&name, Dialect::Spec)?.schema)()),
            };
            print(schema.to_json().map_err(|e| e.to_string())?.trim_end())
        }
        Command::Compat { old, new, json } => {
            let report = hopnet_msg::compat::compare_files(&old, &new)?;
            print(
                if json {
                    report.to_json()
                } else {
                    report.to_text()
                }
                .trim_end(),
            )?;
            if report.breaking() {
                std::process::exit(hopnet_msg::compat::EXIT_BREAKING.into());
            }
            Ok(())
        }
        Command::Schema { ty: None, .. } => {
            print(notation::render(&notation::definitions()).trim_end())
        }
        Command::Schema { ty: Some(name), .. } => {
            let def = notation::definition(&name).or_else(|| seed_definition(&name));
            let def = def.ok_or_else(|| {
                let seeds = SEED_CODECS.iter().map(|c| c.name);
                let known: Vec<&str> = notation::MESSAGES.iter().copied().chain(seeds).collect();
                format!(
                    "unknown message type `{name}` (known: {})",
                    known.join(", ")
                )
            })?;
            print(def.to_string().trim_end())
        }
        Command::Codegen {
            language: Language::Typescript,
            types,
            out,
        } => {
            let module = hopnet_msg::codegen::typescript_for(&types)?
                .generate()
                .map_err(|e| e.to_string())?;
            write_out(out, &module)
        }
        Command::Dissector {
            tool: DissectorTool::Wireshark,
            ports,
            out,
        } => {
            let lua = ports
                .into_iter()
                .fold(hopnet_msg::dissector::snow_fight(), |d, p| d.port(p))
                .generate()
                .map_err(|e| e.to_string())?;
            write_out(out, &lua)
        }
        Command::Pcap { file, ports } => pcap(&file, &ports),
        Command::Types => {
            let seeds = SEED_CODECS.iter().map(|c| c.name);
            let all: Vec<&str> = notation::MESSAGES.iter().copied().chain(seeds).collect();
            print(&all.join("\n"))
        }
    }
}

/// `rabbit-msg pcap`: one JSON line per message, `ClientMessage` toward the server's ports,
/// `ServerMessage` from them (hopnet_msg::pcap::json_lines).
fn pcap(file: &std::path::Path, ports: &[u16]) -> Result<(), String> {
    use hopnet_msg::pcap::{JsonLinesError, json_lines};
    let default = [hopnet_msg::dissector::DEFAULT_PORT];
    let ports = if ports.is_empty() { &default } else { ports };
    let decode = |to_server: bool, bytes: &[u8]| {
        let ty = if to_server {
            "ClientMessage"
        } else {
            "ServerMessage"
        };
        (
            ty,
            codec(ty, Dialect::Spec).and_then(|c| (c.decode)(&to_hex(bytes))),
        )
    };
    let mut deltas = hopnet_msg::pcap::SnapshotDeltas::default();
    let out = &mut io::stdout().lock();
    let counts = match json_lines(file, ports, &decode, Some(&mut deltas), out) {
        Ok(counts) => counts,
        Err(JsonLinesError::Write(e)) => return Err(write_error(e)),
        Err(e) => return Err(e.to_string()),
    };
    if counts.netcode > 0 {
        let n = counts.netcode;
        eprintln!(
            "note: {n} netcode packets are sealed: their messages cannot be read without the keys"
        );
    }
    if counts.malformed > 0 {
        eprintln!(
            "note: {} datagrams on the ports are not hopnet's wire",
            counts.malformed
        );
    }
    Ok(())
}

/// Writes generated text to `out`, or standard output.
fn write_out(out: Option<std::path::PathBuf>, text: &str) -> Result<(), String> {
    match out {
        Some(path) => {
            std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
        }
        None => print(text.trim_end()),
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                eprintln!("error: missing command: encode, decode, schema or types (see --help)");
                return ExitCode::FAILURE;
            }
            let rendered = e.render().to_string();
            let first = rendered.lines().next().unwrap_or("invalid arguments");
            let reason = first.strip_prefix("error: ").unwrap_or(first);
            eprintln!("error: {reason} (see rabbit-msg --help)");
            return ExitCode::FAILURE;
        }
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(reason) => {
            eprintln!("error: {reason}");
            ExitCode::FAILURE
        }
    }
}
