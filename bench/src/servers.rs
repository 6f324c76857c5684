//! What game servers answer beside their game traffic: an `A2S_INFO` response
//! (`hopnet_formats::source_query::InfoResponse`, with the game port, SourceTV and keywords) and
//! a DNS query of four questions (`hopnet_formats::dns::Message`), encoded and decoded three
//! ways to the same bytes: hopnet-codec's derive (`cstring`, `computed`, `if`; `count`,
//! `until`, `bit_order = "msb"`), deku 0.20 declaring the same layout, and a codec written by
//! hand with the same checks as the derived decoder.

use std::ffi::CString;

use deku::prelude::*;
use hopnet_codec::layout::Computed;
use hopnet_formats::dns::{Header, Label, Message, Name, Question};
use hopnet_formats::source_query::{CText, InfoResponse, Spectator};

/// The `A2S_INFO` response of a busy community server.
pub fn info() -> InfoResponse {
    InfoResponse {
        protocol: 17,
        name: "Snow Fight | yard | 24/7 snowballs, no rules".into(),
        map: "yard_winter_v3".into(),
        folder: "snow-fight".into(),
        game: "Snow Fight".into(),
        app_id: 0,
        players: 21,
        max_players: 32,
        bots: 3,
        server_type: b'd',
        environment: b'l',
        visibility: 0,
        vac: 1,
        version: "0.1.0.1742".into(),
        extra_data: Computed::new(),
        port: Some(27015),
        steam_id: Some(90_071_992_547_409_920),
        spectator: Some(Spectator {
            port: 27020,
            name: "Snow Fight TV".into(),
        }),
        keywords: Some(CText("snow,casual,friendly,eu".into())),
        game_id: Some(0x0001_0000_0000_0000),
    }
}

/// A query of four questions (A, AAAA, TXT, SRV), with recursion desired.
pub fn query() -> Message {
    let question = |name: &str, qtype| Question {
        name: Name::from_dotted(name),
        qtype,
        qclass: 1,
    };
    Message::new(
        Header {
            id: 0x4a7e,
            recursion_desired: true,
            ..Header::default()
        },
        vec![
            question("play.snow-fight.example", 1),
            question("play.snow-fight.example", 28),
            question("_snowfight._udp.snow-fight.example", 33),
            question("status.snow-fight.example", 16),
        ],
        vec![],
        vec![],
        vec![],
    )
}

/// The same layouts written by hand: bytes appended to a `Vec`, read back with a cursor over
/// the slice, every read checked.
pub mod hand {
    use super::*;

    fn cstr(s: &str, out: &mut Vec<u8>) -> Option<()> {
        if s.as_bytes().contains(&0) {
            return None;
        }
        out.extend_from_slice(s.as_bytes());
        out.push(0);
        Some(())
    }

    /// The `A2S_INFO` response's bytes (`None`: a string holding a zero byte).
    pub fn encode_info(v: &InfoResponse, out: &mut Vec<u8>) -> Option<()> {
        out.extend_from_slice(b"\xff\xff\xff\xffI");
        out.push(v.protocol);
        for s in [&v.name, &v.map, &v.folder, &v.game] {
            cstr(s, out)?;
        }
        out.extend_from_slice(&v.app_id.to_le_bytes());
        out.extend_from_slice(&[
            v.players,
            v.max_players,
            v.bots,
            v.server_type,
            v.environment,
            v.visibility,
            v.vac,
        ]);
        cstr(&v.version, out)?;
        let edf = (u8::from(v.port.is_some()) << 7)
            | (u8::from(v.spectator.is_some()) << 6)
            | (u8::from(v.keywords.is_some()) << 5)
            | (u8::from(v.steam_id.is_some()) << 4)
            | u8::from(v.game_id.is_some());
        out.push(edf);
        if let Some(port) = v.port {
            out.extend_from_slice(&port.to_le_bytes());
        }
        if let Some(id) = v.steam_id {
            out.extend_from_slice(&id.to_le_bytes());
        }
        if let Some(tv) = &v.spectator {
            out.extend_from_slice(&tv.port.to_le_bytes());
            cstr(&tv.name, out)?;
        }
        if let Some(k) = &v.keywords {
            cstr(&k.0, out)?;
        }
        if let Some(id) = v.game_id {
            out.extend_from_slice(&id.to_le_bytes());
        }
        Some(())
    }

    struct Cursor<'a> {
        b: &'a [u8],
        at: usize,
    }

    impl<'a> Cursor<'a> {
        fn take(&mut self, n: usize) -> Option<&'a [u8]> {
            let s = self.b.get(self.at..self.at.checked_add(n)?)?;
            self.at += n;
            Some(s)
        }
        fn u8(&mut self) -> Option<u8> {
            let v = *self.b.get(self.at)?;
            self.at += 1;
            Some(v)
        }
        fn arr<const N: usize>(&mut self) -> Option<[u8; N]> {
            self.take(N)?.try_into().ok()
        }
        fn cstr(&mut self) -> Option<String> {
            let rest = self.b.get(self.at..)?;
            let end = rest.iter().position(|&b| b == 0)?;
            let s = std::str::from_utf8(&rest[..end]).ok()?.to_owned();
            self.at += end + 1;
            Some(s)
        }
        fn done(&self) -> bool {
            self.at == self.b.len()
        }
    }

    /// The `A2S_INFO` response of `bytes` (`None`: anything wrong).
    pub fn decode_info(bytes: &[u8]) -> Option<InfoResponse> {
        let mut c = Cursor { b: bytes, at: 0 };
        if c.take(5)? != b"\xff\xff\xff\xffI" {
            return None;
        }
        let protocol = c.u8()?;
        let (name, map, folder, game) = (c.cstr()?, c.cstr()?, c.cstr()?, c.cstr()?);
        let app_id = u16::from_le_bytes(c.arr()?);
        let [
            players,
            max_players,
            bots,
            server_type,
            environment,
            visibility,
            vac,
        ] = c.arr()?;
        let version = c.cstr()?;
        let edf = c.u8()?;
        let port = match edf & 0x80 {
            0 => None,
            _ => Some(u16::from_le_bytes(c.arr()?)),
        };
        let steam_id = match edf & 0x10 {
            0 => None,
            _ => Some(u64::from_le_bytes(c.arr()?)),
        };
        let spectator = match edf & 0x40 {
            0 => None,
            _ => Some(Spectator {
                port: u16::from_le_bytes(c.arr()?),
                name: c.cstr()?,
            }),
        };
        let keywords = match edf & 0x20 {
            0 => None,
            _ => Some(CText(c.cstr()?)),
        };
        let game_id = match edf & 0x01 {
            0 => None,
            _ => Some(u64::from_le_bytes(c.arr()?)),
        };
        // The flag's other bits name no field: the derived decoder's computed check refuses
        // them too.
        if edf & 0x0e != 0 || !c.done() {
            return None;
        }
        Some(InfoResponse {
            protocol,
            name,
            map,
            folder,
            game,
            app_id,
            players,
            max_players,
            bots,
            server_type,
            environment,
            visibility,
            vac,
            version,
            extra_data: Computed::new(),
            port,
            steam_id,
            spectator,
            keywords,
            game_id,
        })
    }

    fn name(n: &Name, out: &mut Vec<u8>) -> Option<()> {
        if n.labels.len() > 127 {
            return None;
        }
        for l in &n.labels {
            let len = l.text.len();
            if len == 0 || len > 63 {
                return None;
            }
            out.push(len as u8);
            out.extend_from_slice(l.text.as_bytes());
        }
        out.push(0);
        Some(())
    }

    /// A DNS message of questions only (what the benchmark's query holds; `None` for records
    /// or counts that disagree).
    pub fn encode_query(m: &Message, out: &mut Vec<u8>) -> Option<()> {
        let h = &m.header;
        if usize::from(h.questions) != m.questions.len()
            || h.answers != 0
            || h.authorities != 0
            || h.additionals != 0
            || !(m.answers.is_empty() && m.authorities.is_empty() && m.additionals.is_empty())
            || h.opcode > 15
            || h.rcode > 15
        {
            return None;
        }
        let b = |v: bool, at: u16| u16::from(v) << at;
        let flags = b(h.response, 15)
            | u16::from(h.opcode) << 11
            | b(h.authoritative, 10)
            | b(h.truncated, 9)
            | b(h.recursion_desired, 8)
            | b(h.recursion_available, 7)
            | b(h.zero, 6)
            | b(h.authentic_data, 5)
            | b(h.checking_disabled, 4)
            | u16::from(h.rcode);
        for w in [h.id, flags, h.questions, 0, 0, 0] {
            out.extend_from_slice(&w.to_be_bytes());
        }
        for q in &m.questions {
            name(&q.name, out)?;
            out.extend_from_slice(&q.qtype.to_be_bytes());
            out.extend_from_slice(&q.qclass.to_be_bytes());
        }
        Some(())
    }

    fn read_name(c: &mut Cursor<'_>) -> Option<Name> {
        let mut labels = Vec::new();
        loop {
            let len = c.u8()?;
            if len & 0xc0 != 0 {
                // A compression pointer, or an extended label type.
                return None;
            }
            if len == 0 {
                return Some(Name { labels });
            }
            if labels.len() == 127 {
                return None;
            }
            let text = std::str::from_utf8(c.take(len.into())?).ok()?.to_owned();
            labels.push(Label {
                len: Computed::new(),
                text,
            });
        }
    }

    /// A DNS message of questions only (`None`: anything wrong, records included).
    pub fn decode_query(bytes: &[u8]) -> Option<Message> {
        let mut c = Cursor { b: bytes, at: 0 };
        let w: [u8; 12] = c.arr()?;
        let word = |i: usize| u16::from_be_bytes([w[2 * i], w[2 * i + 1]]);
        let flags = word(1);
        let bit = |at: u16| flags >> at & 1 == 1;
        let header = Header {
            id: word(0),
            response: bit(15),
            opcode: (flags >> 11 & 0xf) as u8,
            authoritative: bit(10),
            truncated: bit(9),
            recursion_desired: bit(8),
            recursion_available: bit(7),
            zero: bit(6),
            authentic_data: bit(5),
            checking_disabled: bit(4),
            rcode: (flags & 0xf) as u8,
            questions: word(2),
            answers: word(3),
            authorities: word(4),
            additionals: word(5),
        };
        if header.answers != 0 || header.authorities != 0 || header.additionals != 0 {
            return None;
        }
        // Each question takes at least five bytes: refuse a count the rest cannot hold before
        // reserving for it.
        let count = usize::from(header.questions);
        if count * 5 > bytes.len() - 12 {
            return None;
        }
        let mut questions = Vec::with_capacity(count);
        for _ in 0..count {
            let name = read_name(&mut c)?;
            let qtype = u16::from_be_bytes(c.arr()?);
            let qclass = u16::from_be_bytes(c.arr()?);
            questions.push(Question {
                name,
                qtype,
                qclass,
            });
        }
        if !c.done() {
            return None;
        }
        Some(Message {
            header,
            questions,
            answers: vec![],
            authorities: vec![],
            additionals: vec![],
        })
    }
}

/// The `A2S_INFO` response declared with deku 0.20: C strings as `CString`, the optional
/// fields under `cond` on the flag byte, which `From` computes. The byte order is on each
/// number (deku's `CString` takes no byte-order context from its container).
#[derive(Debug, Clone, PartialEq, DekuRead, DekuWrite)]
#[deku(magic = b"\xff\xff\xff\xffI")]
pub struct DInfo {
    pub protocol: u8,
    pub name: CString,
    pub map: CString,
    pub folder: CString,
    pub game: CString,
    #[deku(endian = "little")]
    pub app_id: u16,
    pub players: u8,
    pub max_players: u8,
    pub bots: u8,
    pub server_type: u8,
    pub environment: u8,
    pub visibility: u8,
    pub vac: u8,
    pub version: CString,
    pub edf: u8,
    #[deku(cond = "*edf & 0x80 != 0", endian = "little")]
    pub port: Option<u16>,
    #[deku(cond = "*edf & 0x10 != 0", endian = "little")]
    pub steam_id: Option<u64>,
    #[deku(cond = "*edf & 0x40 != 0", endian = "little")]
    pub tv_port: Option<u16>,
    #[deku(cond = "*edf & 0x40 != 0")]
    pub tv_name: Option<CString>,
    #[deku(cond = "*edf & 0x20 != 0")]
    pub keywords: Option<CString>,
    #[deku(cond = "*edf & 0x01 != 0", endian = "little")]
    pub game_id: Option<u64>,
}

impl From<&InfoResponse> for DInfo {
    fn from(v: &InfoResponse) -> Self {
        let c = |s: &str| CString::new(s).expect("no zero byte");
        DInfo {
            protocol: v.protocol,
            name: c(&v.name),
            map: c(&v.map),
            folder: c(&v.folder),
            game: c(&v.game),
            app_id: v.app_id,
            players: v.players,
            max_players: v.max_players,
            bots: v.bots,
            server_type: v.server_type,
            environment: v.environment,
            visibility: v.visibility,
            vac: v.vac,
            version: c(&v.version),
            edf: (u8::from(v.port.is_some()) << 7)
                | (u8::from(v.spectator.is_some()) << 6)
                | (u8::from(v.keywords.is_some()) << 5)
                | (u8::from(v.steam_id.is_some()) << 4)
                | u8::from(v.game_id.is_some()),
            port: v.port,
            steam_id: v.steam_id,
            tv_port: v.spectator.as_ref().map(|s| s.port),
            tv_name: v.spectator.as_ref().map(|s| c(&s.name)),
            keywords: v.keywords.as_ref().map(|k| c(&k.0)),
            game_id: v.game_id,
        }
    }
}

/// The DNS message declared with deku 0.20: the header's flags as bit fields (deku reads bits
/// most significant first), each section `count`ed by its header field, a name's labels read
/// `until` the empty one (which deku keeps in the list), the records' data by `count` of their
/// length.
#[derive(Debug, Clone, PartialEq, DekuRead, DekuWrite)]
#[deku(endian = "big")]
pub struct DMessage {
    pub id: u16,
    #[deku(bits = 1)]
    pub response: u8,
    #[deku(bits = 4)]
    pub opcode: u8,
    #[deku(bits = 1)]
    pub authoritative: u8,
    #[deku(bits = 1)]
    pub truncated: u8,
    #[deku(bits = 1)]
    pub recursion_desired: u8,
    #[deku(bits = 1)]
    pub recursion_available: u8,
    #[deku(bits = 1)]
    pub zero: u8,
    #[deku(bits = 1)]
    pub authentic_data: u8,
    #[deku(bits = 1)]
    pub checking_disabled: u8,
    #[deku(bits = 4)]
    pub rcode: u8,
    pub qdcount: u16,
    pub ancount: u16,
    pub nscount: u16,
    pub arcount: u16,
    #[deku(count = "qdcount")]
    pub questions: Vec<DQuestion>,
    #[deku(count = "ancount")]
    pub answers: Vec<DRecord>,
    #[deku(count = "nscount")]
    pub authorities: Vec<DRecord>,
    #[deku(count = "arcount")]
    pub additionals: Vec<DRecord>,
}

each_with! {
    [
        #[derive(Debug, Clone, PartialEq, DekuRead, DekuWrite)]
        #[deku(
            endian = "endian",
            ctx = "endian: deku::ctx::Endian",
            ctx_default = "deku::ctx::Endian::Big"
        )]
    ]

    pub struct DQuestion {
        pub name: DName,
        pub qtype: u16,
        pub qclass: u16,
    }

    pub struct DRecord {
        pub name: DName,
        pub rtype: u16,
        pub class: u16,
        pub ttl: u32,
        pub data_len: u16,
        #[deku(count = "data_len")]
        pub data: Vec<u8>,
    }

    pub struct DName {
        #[deku(until = "|l: &DLabel| l.len == 0")]
        pub labels: Vec<DLabel>,
    }

    pub struct DLabel {
        #[deku(bits = 2, assert_eq = "0")]
        pub pointer: u8,
        #[deku(bits = 6)]
        pub len: u8,
        #[deku(count = "len")]
        pub text: Vec<u8>,
    }
}

impl From<&Message> for DMessage {
    fn from(m: &Message) -> Self {
        let h = &m.header;
        let name = |n: &Name| DName {
            labels: n
                .labels
                .iter()
                .map(|l| l.text.as_bytes())
                .chain([&b""[..]])
                .map(|t| DLabel {
                    pointer: 0,
                    len: t.len() as u8,
                    text: t.to_vec(),
                })
                .collect(),
        };
        assert!(m.answers.is_empty() && m.authorities.is_empty() && m.additionals.is_empty());
        DMessage {
            id: h.id,
            response: h.response.into(),
            opcode: h.opcode,
            authoritative: h.authoritative.into(),
            truncated: h.truncated.into(),
            recursion_desired: h.recursion_desired.into(),
            recursion_available: h.recursion_available.into(),
            zero: h.zero.into(),
            authentic_data: h.authentic_data.into(),
            checking_disabled: h.checking_disabled.into(),
            rcode: h.rcode,
            qdcount: h.questions,
            ancount: 0,
            nscount: 0,
            arcount: 0,
            questions: m
                .questions
                .iter()
                .map(|q| DQuestion {
                    name: name(&q.name),
                    qtype: q.qtype,
                    qclass: q.qclass,
                })
                .collect(),
            answers: vec![],
            authorities: vec![],
            additionals: vec![],
        }
    }
}
