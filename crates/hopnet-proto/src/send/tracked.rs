//! Tracked messages: sent once with `REL`, never again, and reported as acknowledged (every
//! chunk) or lost (not within the tracked timeout). Bounded: beyond `max_tracked` the oldest
//! is reported lost at once.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crate::event::MessageId;

#[derive(Debug)]
struct Entry {
    abs: u64,
    chunks: usize,
    acked: [u64; 4],
    count: usize,
    deadline: Instant,
    /// Reported (acknowledged or lost): the entry is dropped when it reaches the front.
    done: bool,
}

/// The tracked messages awaiting their acknowledgements, oldest first.
#[derive(Debug)]
pub(crate) struct Tracker {
    entries: VecDeque<Entry>,
    live: usize,
    timeout: Duration,
    max: usize,
}

impl Tracker {
    pub fn new(timeout: Duration, max: usize) -> Tracker {
        Tracker {
            entries: VecDeque::new(),
            live: 0,
            timeout,
            max,
        }
    }

    /// Tracks message `abs` of `chunks` chunks, sent now. Returns the message reported lost
    /// to make room, if any.
    pub fn track(&mut self, now: Instant, abs: u64, chunks: usize) -> Option<MessageId> {
        let mut evicted = None;
        if self.live >= self.max {
            while let Some(e) = self.entries.pop_front() {
                if !e.done {
                    self.live -= 1;
                    evicted = Some(MessageId(e.abs));
                    break;
                }
            }
        }
        self.entries.push_back(Entry {
            abs,
            chunks,
            acked: [0; 4],
            count: 0,
            deadline: now + self.timeout,
            done: false,
        });
        self.live += 1;
        evicted
    }

    fn position(&self, abs: u64) -> Result<usize, usize> {
        self.entries.binary_search_by_key(&abs, |e| e.abs)
    }

    /// Chunks `first..=last` of the messages `from..=to` were acknowledged; pushes the
    /// messages now acknowledged whole.
    pub fn on_ack(&mut self, from: u64, to: u64, first: u8, last: u8, out: &mut Vec<MessageId>) {
        let start = match self.position(from) {
            Ok(i) | Err(i) => i,
        };
        for e in self.entries.range_mut(start..) {
            if e.abs > to {
                break;
            }
            if e.done {
                continue;
            }
            let top = usize::from(last).min(e.chunks - 1);
            for chunk in usize::from(first)..=top {
                let (word, bit) = (chunk / 64, 1u64 << (chunk % 64));
                if e.acked[word] & bit == 0 {
                    e.acked[word] |= bit;
                    e.count += 1;
                }
            }
            if e.count == e.chunks {
                e.done = true;
                self.live -= 1;
                out.push(MessageId(e.abs));
            }
        }
        self.trim();
    }

    fn trim(&mut self) {
        while self.entries.front().is_some_and(|e| e.done) {
            self.entries.pop_front();
        }
    }

    /// Reports lost the messages whose timeout has passed.
    pub fn expire(&mut self, now: Instant, out: &mut Vec<MessageId>) {
        if self.entries.is_empty() {
            return;
        }
        for e in self.entries.iter_mut() {
            if e.deadline > now {
                break;
            }
            if !e.done {
                e.done = true;
                self.live -= 1;
                out.push(MessageId(e.abs));
            }
        }
        self.trim();
    }

    /// When the oldest tracked message times out.
    pub fn deadline(&self) -> Option<Instant> {
        if self.live == 0 {
            return None;
        }
        self.entries.iter().find(|e| !e.done).map(|e| e.deadline)
    }

    /// Whether no tracked message awaits its acknowledgement.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    pub fn clear(&mut self) {
        self.entries.clear();
        self.live = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acknowledged_whole_lost_late_or_evicted() {
        let now = Instant::now();
        let mut t = Tracker::new(Duration::from_secs(1), 3);
        assert_eq!(t.track(now, 10, 2), None);
        assert_eq!(t.track(now, 12, 1), None);
        let mut out = Vec::new();
        t.on_ack(10, 10, 0, 0, &mut out);
        assert!(out.is_empty(), "one chunk of two");
        t.on_ack(10, 12, 0, 255, &mut out);
        assert_eq!(out, [MessageId(10), MessageId(12)]);
        out.clear();
        t.on_ack(10, 12, 0, 255, &mut out);
        assert!(out.is_empty(), "reported once");
        t.track(now, 13, 1);
        t.track(now, 14, 1);
        t.track(now, 15, 1);
        assert_eq!(t.track(now, 16, 1), Some(MessageId(13)));
        t.expire(now + Duration::from_millis(999), &mut out);
        assert!(out.is_empty());
        assert_eq!(t.deadline(), Some(now + Duration::from_secs(1)));
        t.expire(now + Duration::from_secs(1), &mut out);
        assert_eq!(out, [MessageId(14), MessageId(15), MessageId(16)]);
        assert_eq!(t.deadline(), None);
    }
}
