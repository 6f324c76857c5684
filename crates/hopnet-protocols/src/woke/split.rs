//! Split commands reassembled: each part is a reliable command of its own (delivered once by
//! its reliable id); the command is handed up once, whole, when every part came. What the
//! parts hold is charged to the engine's [`Budget`]; a packet whose new part would exceed it
//! is not taken (not acknowledged), so its sender carries it again later.

use std::collections::HashMap;

use hopnet::engine::{Budget, PARTIAL_OVERHEAD};

use super::config::MAX_PENDING_RELIABLE;

#[derive(Debug)]
struct Partial {
    kind: u16,
    parts: Vec<Option<Vec<u8>>>,
    missing: usize,
    bytes: usize,
}

/// Why a part was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Malformed {
    /// Index beyond the count, a count of 0 or more parts than may be pending, or a count or
    /// type other than the earlier parts'.
    Inconsistent,
}

/// The split commands being reassembled.
#[derive(Debug)]
pub(super) struct Reassembly {
    partials: HashMap<u16, Partial>,
    used: usize,
    limit: usize,
}

impl Reassembly {
    pub fn new(limit: usize) -> Reassembly {
        Reassembly {
            partials: HashMap::new(),
            used: 0,
            limit,
        }
    }

    /// What a part adds to the memory held.
    fn cost(&self, split_id: u16, count: u16, len: usize) -> usize {
        let start = if self.partials.contains_key(&split_id) {
            0
        } else {
            PARTIAL_OVERHEAD + usize::from(count) * size_of::<Option<Vec<u8>>>()
        };
        start + len
    }

    /// Whether a part fits the budget.
    pub fn fits(&self, split_id: u16, count: u16, len: usize) -> bool {
        Budget {
            used: self.used,
            limit: self.limit,
        }
        .fits(self.cost(split_id, count, len))
    }

    /// Takes a part (its reliable id new); the whole command when it was the last one.
    pub fn part(
        &mut self,
        kind: u16,
        split_id: u16,
        index: u16,
        count: u16,
        data: Vec<u8>,
    ) -> Result<Option<Vec<u8>>, Malformed> {
        if count == 0 || usize::from(count) > MAX_PENDING_RELIABLE || index >= count {
            return Err(Malformed::Inconsistent);
        }
        let cost = self.cost(split_id, count, data.len());
        let partial = self.partials.entry(split_id).or_insert_with(|| Partial {
            kind,
            parts: vec![None; usize::from(count)],
            missing: usize::from(count),
            bytes: 0,
        });
        if partial.kind != kind || partial.parts.len() != usize::from(count) {
            return Err(Malformed::Inconsistent);
        }
        let slot = &mut partial.parts[usize::from(index)];
        if slot.is_some() {
            return Ok(None);
        }
        *slot = Some(data);
        partial.missing -= 1;
        partial.bytes += cost;
        self.used += cost;
        if partial.missing > 0 {
            return Ok(None);
        }
        let partial = self.partials.remove(&split_id).expect("present");
        self.used -= partial.bytes;
        Ok(Some(
            partial.parts.into_iter().flatten().flatten().collect(),
        ))
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.used
    }
}
