//! Chunks into messages, in capture order: a message is complete when its last chunk and every
//! chunk before it have been seen, and is handed on once (a retransmitted chunk of a message
//! already complete is not a second message).

use super::wire::Chunk;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::net::SocketAddr;

/// One direction of one conversation, and a sequence id in it.
type Key = (SocketAddr, SocketAddr, u16);

/// A message whose chunks are not all in.
#[derive(Debug, Default)]
struct Partial {
    chunks: BTreeMap<u8, Vec<u8>>,
    last: Option<u8>,
    delivery: &'static str,
    compressed: bool,
}

/// A complete message's bytes (as sent: still compressed if it was).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Assembled {
    pub sequence: u16,
    pub delivery: &'static str,
    pub compressed: bool,
    pub bytes: Vec<u8>,
}

/// Partial messages are kept this long (in sequence ids) behind the newest one of their
/// direction, as a receiver's window keeps them, so that a capture of lost chunks cannot grow
/// without bound.
const WINDOW: u16 = 16_384;

#[derive(Debug, Default)]
pub(crate) struct Reassembly {
    partial: HashMap<Key, Partial>,
    delivered: HashSet<Key>,
}

impl Reassembly {
    /// Takes one chunk from `src` to `dst`; the message, if this chunk completes it.
    pub(crate) fn chunk(
        &mut self,
        src: SocketAddr,
        dst: SocketAddr,
        chunk: &Chunk<'_>,
    ) -> Option<Assembled> {
        let key = (src, dst, chunk.sequence);
        if self.delivered.contains(&key) {
            return None;
        }
        if chunk.last && chunk.index == 0 && !self.partial.contains_key(&key) {
            return Some(self.deliver(key, chunk, chunk.data.to_vec()));
        }
        let p = self.partial.entry(key).or_default();
        p.chunks
            .entry(chunk.index)
            .or_insert_with(|| chunk.data.to_vec());
        if chunk.last {
            p.last = Some(chunk.index);
        }
        p.delivery = chunk.delivery;
        p.compressed |= chunk.compressed;
        let last = p.last?;
        if p.chunks.len() != usize::from(last) + 1 {
            return None;
        }
        let p = self.partial.remove(&key)?;
        let bytes = p.chunks.into_values().flatten().collect();
        Some(self.deliver(key, chunk, bytes))
    }

    fn deliver(&mut self, key: Key, chunk: &Chunk<'_>, bytes: Vec<u8>) -> Assembled {
        let (src, dst, sequence) = key;
        self.delivered.insert(key);
        // Sequence ids wrap: the one half the space away is a new message when it comes.
        self.delivered
            .remove(&(src, dst, sequence.wrapping_add(32_768)));
        self.partial.retain(|&(s, d, q), _| {
            (s, d) != (src, dst)
                || sequence.wrapping_sub(q) < WINDOW
                || q.wrapping_sub(sequence) < WINDOW
        });
        Assembled {
            sequence,
            delivery: chunk.delivery,
            compressed: chunk.compressed,
            bytes,
        }
    }
}
