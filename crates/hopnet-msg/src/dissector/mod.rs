//! A Wireshark dissector generated from the schema that `#[derive(Rabbit)]` records: one Lua
//! file that Wireshark and tshark load (`tshark -X lua_script:hopnet.lua`), registering the
//! protocol `hopnet` on the game's UDP ports (`rabbit-msg dissector wireshark`).
//!
//! The file reads hopnet's whole wire: the spec's 4-byte header and its flags, the handshake's
//! 4-byte datagrams, the extensions' offer and accept, the extended wire's frames, and netcode
//! 1.02's packets by type (their sealed bodies shown as encrypted). It reassembles messages split
//! over several chunks in capture order, and decodes each message's body with readers generated
//! from the schema: Rabbit's bits, least significant first, its variable-length integers,
//! zig-zag, floats, options, lists and strings, in Lua. Each value shows as `rabbit-msg decode`
//! prints it (the canonical JSON form, integers in decimal, the schema's field names), and the
//! whole message's JSON is the field `hopnet.json`; each named field is the display-filter field
//! `hopnet.Type.field` (or `hopnet.Enum.Variant.field`), holding the field's JSON.
//!
//! Which message a datagram carries is known by its direction: toward one of the ports the
//! dissector is registered on, the client's message type, else the server's.
//!
//! ```
//! use hopnet_msg::dissector::Wireshark;
//! use hopnet_snow_fight::{ClientMessage, ServerMessage};
//!
//! let lua = Wireshark::new::<ClientMessage, ServerMessage>("ClientMessage", "ServerMessage")
//!     .port(7000)
//!     .generate()?;
//! assert!(lua.contains("Proto(\"hopnet\""));
//! # Ok::<(), hopnet_msg::dissector::DissectorError>(())
//! ```
//!
//! What the readers cannot read is refused when the file is generated, naming the field: the
//! encodings the TypeScript codegen refuses (byte layouts, computed and custom fields, quantized
//! floats, quaternions, unit vectors), 128-bit integers, and ranges or signed plain-bit
//! integers wider than 53 bits (but 64).
//! LZ4-compressed messages of the extended wire are reassembled and shown as compressed, not
//! decoded (`rabbit-msg pcap` decodes them). Snow Fight's dissector ([`snow_fight`]) also
//! knows the server's snapshot deltas (`hopnet_snow_fight::delta`, not in the spec): it shows a
//! delta's header, but not yet its snapshot, which needs the baseline `rabbit-msg pcap` keeps.

mod readers;

use crate::codegen::model;
use hopnet_codec::Encode;
use hopnet_codec::schema::Encoding;

/// The UDP port a dissector is registered on when none is given.
pub const DEFAULT_PORT: u16 = 7777;

/// A Wireshark dissector for a game's two message types, generated from their schema.
#[derive(Debug, Clone)]
pub struct Wireshark {
    to_server: (String, Encoding),
    to_client: (String, Encoding),
    ports: Vec<u16>,
    transparent: Vec<String>,
    /// The server's messages may be Snow Fight's snapshot deltas (`hopnet_snow_fight::delta`).
    snapshot_deltas: bool,
}

impl Wireshark {
    /// A dissector whose clients send `C` (named `client_name`) and whose server sends `S`.
    pub fn new<C: Encode + ?Sized, S: Encode + ?Sized>(
        client_name: impl Into<String>,
        server_name: impl Into<String>,
    ) -> Self {
        Self::from_encodings(
            (client_name.into(), C::schema()),
            (server_name.into(), S::schema()),
        )
    }

    /// A dissector from the messages' encodings (`<T as Encode>::schema()`), each with its name.
    pub fn from_encodings(to_server: (String, Encoding), to_client: (String, Encoding)) -> Self {
        Wireshark {
            to_server,
            to_client,
            ports: Vec::new(),
            transparent: Vec::new(),
            snapshot_deltas: false,
        }
    }

    /// Adds a UDP port of the server (repeatable); [`DEFAULT_PORT`] when none is added.
    pub fn port(mut self, port: u16) -> Self {
        if !self.ports.contains(&port) {
            self.ports.push(port);
        }
        self
    }

    /// Marks the struct `type_name` as one whose JSON form is its one field's
    /// (`#[serde(transparent)]`), as [`crate::codegen::TypeScript::transparent`] does.
    pub fn transparent(mut self, type_name: impl Into<String>) -> Self {
        self.transparent.push(type_name.into());
        self
    }

    /// The server's messages may be Snow Fight's snapshot deltas: the dissector shows a delta's
    /// header (`hopnet.delta.channel`, `.time`, `.base`) instead of failing on it.
    fn with_snapshot_deltas(mut self) -> Self {
        self.snapshot_deltas = true;
        self
    }

    /// The Lua file's text.
    pub fn generate(&self) -> Result<String, DissectorError> {
        let roots = [self.to_server.clone(), self.to_client.clone()];
        let model = model::build(&roots, &self.transparent).map_err(|e| {
            DissectorError::new(e.item, e.reason.replace("TypeScript codec", "Lua reader"))
        })?;
        let ports = if self.ports.is_empty() {
            vec![DEFAULT_PORT]
        } else {
            self.ports.clone()
        };
        let list: Vec<String> = ports.iter().map(u16::to_string).collect();
        let set: Vec<String> = ports.iter().map(|p| format!("[{p}] = true")).collect();
        let mut out = String::new();
        out.push_str(&format!(
            "-- hopnet: a Wireshark dissector generated by rabbit-msg from the schema of {} and {}.\n\
             -- Load it with `tshark -X lua_script:FILE` or Wireshark's Lua plugins folder.\n\n",
            self.to_server.0, self.to_client.0
        ));
        out.push_str(&format!(
            "local PORTS = {{ {} }}\nlocal PORT_SET = {{ {} }}\nlocal MESSAGES = {{ to_server = {}, to_client = {} }}\nlocal SNAPSHOT_DELTAS = {}\n\n",
            list.join(", "),
            set.join(", "),
            readers::lua_string(&self.to_server.0),
            readers::lua_string(&self.to_client.0),
            self.snapshot_deltas,
        ));
        out.push_str(include_str!("values.lua"));
        out.push('\n');
        out.push_str(&readers::readers(&model)?);
        out.push_str(include_str!("protocol.lua"));
        Ok(out)
    }
}

/// The dissector of Snow Fight, the spec's game: `ClientMessage` toward the server,
/// `ServerMessage` from it, with the JSON forms `rabbit-msg` prints.
pub fn snow_fight() -> Wireshark {
    use hopnet_snow_fight::{ClientMessage, ServerMessage};
    Wireshark::new::<ClientMessage, ServerMessage>("ClientMessage", "ServerMessage")
        .transparent("ErrorMessage")
        .transparent("Direction")
        .with_snapshot_deltas()
}

/// Something the dissector cannot read, with the message, type or field it is in.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot generate the dissector for `{item}`: {reason}")]
pub struct DissectorError {
    /// The message, type or field, as `Type.field` or `Enum::Variant.field`.
    pub item: String,
    /// Why.
    pub reason: String,
}

impl DissectorError {
    fn new(item: impl Into<String>, reason: impl Into<String>) -> Self {
        DissectorError {
            item: item.into(),
            reason: reason.into(),
        }
    }
}
