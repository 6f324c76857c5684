//! Snow Fight's snapshot deltas in a capture (`hopnet_snow_fight::delta`): a delta is written
//! against a snapshot its client was sent earlier, so an observer decodes it only by keeping,
//! per flow (server to one client), the snapshots that flow carried, by tick. The store is
//! bounded both ways (ticks per flow, and flows), so a hostile capture cannot grow it.
//!
//! A scoped update (`hopnet_snow_fight::scoped`) wears a delta's header with its own tick as
//! the baseline, which no delta has: it is told apart and shown as its envelope (channel, tick
//! and the update's length; what the update holds is the game's), needing no baseline.

use hopnet_snow_fight::delta::{self, DeltaHeader};
use hopnet_snow_fight::scoped::{self, ScopedHeader};
use hopnet_snow_fight::{EventKind, ServerMessage, Snapshot};
use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;

/// Ticks kept per flow: a server writes a delta against a snapshot its client acknowledged,
/// which is at most a round trip and a few ticks old.
const TICKS_PER_FLOW: usize = 256;
/// Flows kept at once; the one used longest ago gives way.
const FLOWS: usize = 1024;

/// One flow: server (sender) and client (receiver).
type Flow = (SocketAddr, SocketAddr);

#[derive(Debug, Default)]
struct Kept {
    snapshots: BTreeMap<u32, Snapshot>,
    /// When this flow was last used, on the store's clock: the eviction order.
    used: u64,
}

/// The snapshots each flow of a capture carried, by tick, for decoding the snapshot deltas
/// that follow them.
///
/// Feed it every message the server sent, in capture order: a full snapshot (an
/// `Event { time, kind: Snapshot }`) is kept, and so is every delta it decodes (a decoded
/// delta is a snapshot too).
///
/// ```
/// use hopnet_msg::pcap::SnapshotDeltas;
/// use hopnet_snow_fight::{delta::DeltaHeader, ChannelId, ServerMessage, Snapshot};
///
/// let (server, client) = ("127.0.0.1:7777".parse()?, "127.0.0.1:5000".parse()?);
/// let mut deltas = SnapshotDeltas::default();
/// let full = hopnet_codec::to_bytes(&ServerMessage::snapshot(10, Snapshot::default()))?;
/// assert!(deltas.server_message(server, client, &full).is_none());
///
/// let header = DeltaHeader { channel: ChannelId(1), time: 12, base: 10 };
/// let mut bytes = Vec::new();
/// header.encode(&Snapshot::default(), &Snapshot::default(), &mut bytes)?;
/// let decoded = deltas.server_message(server, client, &bytes).unwrap();
/// assert!(decoded.error.is_none());
/// assert!(decoded.value.contains("\"snapshot\""));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Default)]
pub struct SnapshotDeltas {
    flows: HashMap<Flow, Kept>,
    clock: u64,
}

/// A snapshot delta, or a scoped update, as `rabbit-msg pcap` prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodedDelta {
    /// The line's type: [`SNAPSHOT_DELTA`] or [`SCOPED_UPDATE`].
    pub ty: &'static str,
    /// JSON: `channel`, `time`, `base` (the baseline's tick) and, when it decoded, `snapshot`
    /// in `rabbit-msg decode`'s JSON form of a `Snapshot`; for a scoped update, `channel`,
    /// `time` and `update_bytes` (the update's length).
    pub value: String,
    /// Why the snapshot is not in `value`: its baseline is not in the capture (naming the tick),
    /// or the delta does not decode against it.
    pub error: Option<String>,
}

/// The line type `rabbit-msg pcap` gives a snapshot delta.
pub const SNAPSHOT_DELTA: &str = "SnapshotDelta";

/// The line type `rabbit-msg pcap` gives a scoped update.
pub const SCOPED_UPDATE: &str = "ScopedUpdate";

impl SnapshotDeltas {
    /// Reads one message the server at `server` sent to `client`: `Some` if it is a snapshot
    /// delta (decoded against the snapshot of its baseline's tick, if this flow carried it)
    /// or a scoped update (its envelope), `None` for any other message (a full snapshot is
    /// kept on the way).
    pub fn server_message(
        &mut self,
        server: SocketAddr,
        client: SocketAddr,
        bytes: &[u8],
    ) -> Option<DecodedDelta> {
        let flow = (server, client);
        let Some(header) = DeltaHeader::of(bytes) else {
            if let Ok(ServerMessage::Event(event)) = hopnet_codec::from_bytes(bytes)
                && let EventKind::Snapshot(snapshot) = event.kind
            {
                self.keep(flow, event.time, snapshot);
            }
            return None;
        };
        if let Some(scoped) = ScopedHeader::from_delta(header) {
            return Some(scoped_update(scoped, bytes));
        }
        let head = format!(
            "\"channel\":{},\"time\":{},\"base\":{}",
            header.channel.0, header.time, header.base
        );
        let decoded = match self
            .flows
            .get(&flow)
            .and_then(|k| k.snapshots.get(&header.base))
        {
            None => Err(format!(
                "cannot decode: the baseline, the snapshot of tick {} sent to {client}, is not in the capture",
                header.base
            )),
            Some(base) => delta::decode(bytes, base)
                .map_err(|e| format!("cannot decode: {e}"))
                .and_then(|(_, snapshot)| snapshot_json(&snapshot).map(|json| (snapshot, json))),
        };
        Some(match decoded {
            Ok((snapshot, json)) => {
                self.keep(flow, header.time, snapshot);
                DecodedDelta {
                    ty: SNAPSHOT_DELTA,
                    value: format!("{{{head},\"snapshot\":{json}}}"),
                    error: None,
                }
            }
            Err(e) => DecodedDelta {
                ty: SNAPSHOT_DELTA,
                value: format!("{{{head}}}"),
                error: Some(e),
            },
        })
    }

    /// Whether `bytes`, sent by `server` to `client`, are a whole snapshot delta: one that
    /// decodes, to its end, against the baseline this flow carried, or (the baseline not being
    /// in the capture, so that nothing more can be told) one whose header reads.
    pub fn decodes(&self, server: SocketAddr, client: SocketAddr, bytes: &[u8]) -> bool {
        let Some(header) = DeltaHeader::of(bytes) else {
            return false;
        };
        if ScopedHeader::from_delta(header).is_some() {
            return scoped::decode(bytes).is_ok();
        }
        match self
            .flows
            .get(&(server, client))
            .and_then(|k| k.snapshots.get(&header.base))
        {
            Some(base) => delta::decode(bytes, base).is_ok(),
            None => true,
        }
    }

    fn keep(&mut self, flow: Flow, time: u32, snapshot: Snapshot) {
        self.clock += 1;
        if !self.flows.contains_key(&flow)
            && self.flows.len() >= FLOWS
            && let Some(oldest) = self
                .flows
                .iter()
                .min_by_key(|(_, k)| k.used)
                .map(|(f, _)| *f)
        {
            self.flows.remove(&oldest);
        }
        let kept = self.flows.entry(flow).or_default();
        kept.used = self.clock;
        kept.snapshots.insert(time, snapshot);
        // Ticks wrap: the ones furthest behind `time` (wrapping) give way first.
        while kept.snapshots.len() > TICKS_PER_FLOW {
            let Some(furthest) = kept
                .snapshots
                .keys()
                .copied()
                .max_by_key(|&t| time.wrapping_sub(t))
            else {
                break;
            };
            kept.snapshots.remove(&furthest);
        }
    }
}

/// A snapshot as `rabbit-msg decode` writes it; JSON has no NaN or infinity, so one holding
/// them is an error rather than a `null` that would not read back.
fn snapshot_json(snapshot: &Snapshot) -> Result<String, String> {
    let json = serde_json::to_string(snapshot).map_err(|e| format!("cannot write JSON: {e}"))?;
    if serde_json::from_str::<Snapshot>(&json).is_err() {
        return Err("the snapshot holds a NaN or infinite float, which JSON cannot express".into());
    }
    Ok(json)
}

/// A scoped update's envelope, as `rabbit-msg pcap` prints it.
fn scoped_update(header: ScopedHeader, bytes: &[u8]) -> DecodedDelta {
    let head = format!("\"channel\":{},\"time\":{}", header.channel.0, header.time);
    match scoped::decode(bytes) {
        Ok((_, update)) => DecodedDelta {
            ty: SCOPED_UPDATE,
            value: format!("{{{head},\"update_bytes\":{}}}", update.len()),
            error: None,
        },
        Err(e) => DecodedDelta {
            ty: SCOPED_UPDATE,
            value: format!("{{{head}}}"),
            error: Some(format!("cannot decode: {e}")),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hopnet_snow_fight::ChannelId;
    use hopnet_snow_fight::sample::{DEFAULT_SEED, sample_snapshot};

    fn addr(port: u16) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], port))
    }

    fn delta(time: u32, base: u32, now: &Snapshot, was: &Snapshot) -> Vec<u8> {
        let header = DeltaHeader {
            channel: ChannelId(3),
            time,
            base,
        };
        let mut bytes = Vec::new();
        header.encode(now, was, &mut bytes).unwrap();
        bytes
    }

    #[test]
    fn a_delta_decodes_against_its_flows_snapshot_and_then_serves_as_a_baseline() {
        let (server, one, two) = (addr(7777), addr(5001), addr(5002));
        let a = sample_snapshot(5, DEFAULT_SEED);
        let b = sample_snapshot(6, DEFAULT_SEED + 1);
        let c = sample_snapshot(7, DEFAULT_SEED + 2);
        let mut deltas = SnapshotDeltas::default();
        let full = hopnet_codec::to_bytes(&ServerMessage::snapshot(10, a.clone())).unwrap();
        assert_eq!(deltas.server_message(server, one, &full), None);

        let got = deltas
            .server_message(server, one, &delta(11, 10, &b, &a))
            .unwrap();
        assert_eq!(got.error, None);
        let value: serde_json::Value = serde_json::from_str(&got.value).unwrap();
        assert_eq!(value["channel"], 3);
        assert_eq!(value["time"], 11);
        assert_eq!(value["base"], 10);
        let snapshot: Snapshot = serde_json::from_value(value["snapshot"].clone()).unwrap();
        assert_eq!(snapshot, b);

        // The decoded delta is tick 11's snapshot for the next one.
        let got = deltas
            .server_message(server, one, &delta(12, 11, &c, &b))
            .unwrap();
        assert_eq!(got.error, None, "{got:?}");

        // Another client's flow never lends its snapshots.
        let got = deltas
            .server_message(server, two, &delta(11, 10, &b, &a))
            .unwrap();
        assert_eq!(got.value, r#"{"channel":3,"time":11,"base":10}"#);
        assert!(got.error.unwrap().contains("tick 10"));
    }

    #[test]
    fn the_store_stays_bounded_and_keeps_the_newest_ticks() {
        let (server, client) = (addr(7777), addr(5001));
        let mut deltas = SnapshotDeltas::default();
        for t in 0..(TICKS_PER_FLOW as u32 + 50) {
            let full = hopnet_codec::to_bytes(&ServerMessage::snapshot(
                t.wrapping_sub(20),
                Snapshot::default(),
            ))
            .unwrap();
            deltas.server_message(server, client, &full);
        }
        let kept = &deltas.flows[&(server, client)].snapshots;
        assert_eq!(kept.len(), TICKS_PER_FLOW);
        let newest = (TICKS_PER_FLOW as u32 + 49).wrapping_sub(20);
        assert!(kept.contains_key(&newest));
        assert!(!kept.contains_key(&newest.wrapping_sub(TICKS_PER_FLOW as u32)));

        for port in 0..(FLOWS as u16 + 10) {
            let full =
                hopnet_codec::to_bytes(&ServerMessage::snapshot(1, Snapshot::default())).unwrap();
            deltas.server_message(server, addr(10_000 + port), &full);
        }
        assert_eq!(deltas.flows.len(), FLOWS);
    }

    #[test]
    fn a_delta_that_does_not_decode_against_its_baseline_says_so() {
        let (server, client) = (addr(7777), addr(5001));
        let mut deltas = SnapshotDeltas::default();
        let full =
            hopnet_codec::to_bytes(&ServerMessage::snapshot(10, Snapshot::default())).unwrap();
        deltas.server_message(server, client, &full);
        let mut bytes = delta(
            11,
            10,
            &sample_snapshot(5, DEFAULT_SEED),
            &Snapshot::default(),
        );
        assert!(deltas.decodes(server, client, &bytes));
        // Two datagrams' messages read as one (a GSO batch read whole) do not decode.
        let mut two = bytes.clone();
        two.extend_from_slice(&bytes);
        assert!(!deltas.decodes(server, client, &two));
        assert!(!deltas.decodes(server, client, &full));
        bytes.truncate(bytes.len() / 2);
        let got = deltas.server_message(server, client, &bytes).unwrap();
        assert!(got.error.unwrap().starts_with("cannot decode"));
    }
}
