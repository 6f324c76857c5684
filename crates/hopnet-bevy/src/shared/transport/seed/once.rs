//! At most once: the ids of one sender's unreliable messages handed up lately, for a protocol
//! whose unreliable messages may arrive twice (Semi-ordered UDP's packages) under hopnet's
//! promise that each is handed up once.

use hopnet::Event;
use hopnet::engine::{SerialIndex, U24};

use super::SeedMessage;

/// How far behind the newest unreliable id of a peer the glue remembers which ids it handed
/// up; an older one is dropped rather than perhaps handed up twice.
pub const UNRELIABLE_WINDOW: i32 = 128;

/// The unreliable ids (24 bits, wrapping) of one sender handed up lately.
#[derive(Debug, Default)]
pub(crate) struct UnreliableOnce {
    newest: Option<U24>,
    /// Bit `k`: the id `newest - k` was handed up.
    seen: u128,
}

impl UnreliableOnce {
    /// Whether the message `id` is handed up (first time seen, within the window).
    pub(crate) fn take(&mut self, id: u32) -> bool {
        let id = U24::new(id);
        let Some(newest) = self.newest else {
            self.newest = Some(id);
            self.seen = 1;
            return true;
        };
        let ahead = id.diff(newest);
        if ahead > 0 {
            self.seen = if ahead >= UNRELIABLE_WINDOW {
                0
            } else {
                self.seen << ahead
            } | 1;
            self.newest = Some(id);
            return true;
        }
        let behind = -ahead;
        if behind >= UNRELIABLE_WINDOW || self.seen >> behind & 1 == 1 {
            return false;
        }
        self.seen |= 1 << behind;
        true
    }
}

/// A message as hopnet's event, or nothing for a repeated unreliable id.
pub(super) fn hand_up(once: &mut UnreliableOnce, message: SeedMessage) -> Option<Event> {
    let SeedMessage {
        bytes,
        reliable,
        repeatable_id,
    } = message;
    let first = match repeatable_id {
        Some(id) if !reliable => once.take(id),
        _ => true,
    };
    first.then_some(Event::Message { bytes, reliable })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unreliable_id_is_handed_up_at_most_once() {
        let mut once = UnreliableOnce::default();
        assert!(once.take(10));
        assert!(!once.take(10));
        assert!(once.take(12));
        assert!(once.take(11), "late but unseen");
        assert!(!once.take(11));
        assert!(!once.take(12));
        // Wrapping past 2^24 - 1 is newer, not older.
        let mut wrap = UnreliableOnce::default();
        assert!(wrap.take((1 << 24) - 1));
        assert!(wrap.take(0));
        assert!(!wrap.take((1 << 24) - 1));
        // Too far behind the newest: dropped rather than perhaps handed up twice.
        let mut far = UnreliableOnce::default();
        assert!(far.take(1000));
        assert!(!far.take(1000 - UNRELIABLE_WINDOW as u32));
        assert!(far.take(1000 - UNRELIABLE_WINDOW as u32 + 1));
        // A jump past the window forgets what was seen before it.
        assert!(far.take(5000));
        assert!(!far.take(1000));
    }
}
