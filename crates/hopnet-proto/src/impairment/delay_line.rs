//! Datagrams held back until they are due, in order of due time, first come first served among
//! equals.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use std::time::Instant;

#[derive(Debug)]
struct Held<T> {
    at: Instant,
    order: u64,
    item: T,
}

impl<T> PartialEq for Held<T> {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.order) == (other.at, other.order)
    }
}

impl<T> Eq for Held<T> {}

impl<T> PartialOrd for Held<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<T> Ord for Held<T> {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.at, self.order).cmp(&(other.at, other.order))
    }
}

/// Items due at given instants.
#[derive(Debug)]
pub(crate) struct DelayLine<T> {
    heap: BinaryHeap<Reverse<Held<T>>>,
    order: u64,
}

impl<T> Default for DelayLine<T> {
    fn default() -> Self {
        DelayLine {
            heap: BinaryHeap::new(),
            order: 0,
        }
    }
}

impl<T> DelayLine<T> {
    pub fn push(&mut self, at: Instant, item: T) {
        self.order += 1;
        self.heap.push(Reverse(Held {
            at,
            order: self.order,
            item,
        }));
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// When the next item is due.
    pub fn next_due(&self) -> Option<Instant> {
        self.heap.peek().map(|Reverse(h)| h.at)
    }

    /// The next item due at `now`, if any.
    pub fn pop_due(&mut self, now: Instant) -> Option<T> {
        if self.next_due()? > now {
            return None;
        }
        self.heap.pop().map(|Reverse(h)| h.item)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn items_leave_by_due_time_then_arrival() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let mut line = DelayLine::default();
        line.push(t0 + ms(5), 'c');
        line.push(t0 + ms(1), 'a');
        line.push(t0 + ms(5), 'd');
        line.push(t0 + ms(1), 'b');
        assert_eq!(line.next_due(), Some(t0 + ms(1)));
        assert_eq!(line.pop_due(t0), None);
        let due: Vec<char> = std::iter::from_fn(|| line.pop_due(t0 + ms(5))).collect();
        assert_eq!(due, ['a', 'b', 'c', 'd']);
        assert_eq!(line.len(), 0);
    }
}
