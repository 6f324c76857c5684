//! The bytes each replicated type sent each client, for the other types' budgets: every type
//! keeps its own replicator (and its own budget), and each is charged what the others sent,
//! so that all of them together stay under the client's budget.

use std::collections::VecDeque;

use bevy_ecs::resource::Resource;
use hopnet::ConnectionId;

/// One update sent: its place in the ledger, the type that sent it, to whom, its bytes.
#[derive(Debug, Clone, Copy)]
struct Entry {
    seq: u64,
    kind: usize,
    client: ConnectionId,
    bytes: usize,
}

/// The updates every replicated type sent, kept until every type has been charged them.
#[derive(Resource, Debug, Default)]
pub(crate) struct Ledger {
    next: u64,
    entries: VecDeque<Entry>,
    /// Per type: the first entry it has not been charged yet.
    cursors: Vec<u64>,
}

impl Ledger {
    /// A new type's place in the ledger.
    pub fn join(&mut self) -> usize {
        self.cursors.push(self.next);
        self.cursors.len() - 1
    }

    /// What the other types sent since `kind` last asked, as (client, bytes); `kind` is then
    /// up to date.
    pub fn others(&mut self, kind: usize) -> Vec<(ConnectionId, usize)> {
        let Some(cursor) = self.cursors.get(kind).copied() else {
            return Vec::new();
        };
        let out = self
            .entries
            .iter()
            .filter(|e| e.seq >= cursor && e.kind != kind)
            .map(|e| (e.client, e.bytes))
            .collect();
        self.cursors[kind] = self.next;
        self.trim();
        out
    }

    /// `kind` sent `client` an update of `bytes` on the wire.
    pub fn record(&mut self, kind: usize, client: ConnectionId, bytes: usize) {
        if self.cursors.len() < 2 {
            // One type alone has nobody to charge.
            return;
        }
        self.entries.push_back(Entry {
            seq: self.next,
            kind,
            client,
            bytes,
        });
        self.next += 1;
    }

    /// Forgets what every other type has been charged.
    fn trim(&mut self) {
        let cursors = &self.cursors;
        let charged = |e: &Entry| {
            cursors
                .iter()
                .enumerate()
                .all(|(k, &c)| k == e.kind || c > e.seq)
        };
        while self.entries.front().is_some_and(charged) {
            self.entries.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_type_is_charged_what_the_others_sent_once() {
        let mut l = Ledger::default();
        let (a, b) = (l.join(), l.join());
        let c = ConnectionId(1);
        l.record(a, c, 100);
        assert_eq!(l.others(b), [(c, 100)]);
        assert!(l.others(b).is_empty(), "charged once");
        l.record(b, c, 30);
        assert_eq!(l.others(a), [(c, 30)], "not its own");
        assert!(l.entries.is_empty(), "every type charged: forgotten");
    }
}
