//! The direction the player walks is the one its client sent last.
//!
//! Actions travel reliable but unordered (PROTOCOL.md "The game"): a `Move` lost and resent
//! can reach the server after a newer one, and the server then walks the player in a direction
//! its client already left, until the next key. Ordering the `Move`s instead would make each
//! wait for the previous one's acknowledgement, a round trip or a backed-off retransmission
//! on the spec's wire, which a predicting client pays for in corrections. So the client
//! watches: when its snapshots show the player walking another way than the direction sent
//! last, for longer than a `Move` takes to show, it sends that direction again. A `Move` is a
//! state, not a step, so a copy that was not needed changes nothing.

use std::time::{Duration, Instant};

use crate::world::Dir;

/// How long a `Move` is given to show in the snapshots before it is sent again, without a
/// measured round trip; with one, two round trips, but never less than this floor.
const WITHOUT_RTT: Duration = Duration::from_millis(500);
const FLOOR: Duration = Duration::from_millis(100);

/// The direction sent last, and when it was sent (or sent again).
#[derive(Debug, Default)]
pub(super) struct MoveRepair {
    last: Option<(Dir, Option<Instant>)>,
}

impl MoveRepair {
    /// A `Move` in `dir` was sent; its time is taken at the next [`MoveRepair::due`].
    pub(super) fn sent(&mut self, dir: Dir) {
        self.last = Some((Dir(dir.bits() & 0x0F), None));
    }

    /// The round ended: the server starts the next one with everyone standing, and ignores
    /// `Move`s until then.
    pub(super) fn forget(&mut self) {
        self.last = None;
    }

    /// The direction to send again at `now`, if the snapshots show the player walking
    /// `walking` (`None`: not alive) for longer than a `Move` takes to show after `rtt`.
    pub(super) fn due(
        &mut self,
        walking: Option<Dir>,
        rtt: Option<Duration>,
        now: Instant,
    ) -> Option<Dir> {
        let (dir, at) = self.last.as_mut()?;
        let at = at.get_or_insert(now);
        let wait = rtt.map_or(WITHOUT_RTT, |r| (r * 2).max(FLOOR));
        if walking.is_none_or(|w| w == *dir) || now.saturating_duration_since(*at) < wait {
            return None;
        }
        *at = now;
        Some(*dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sends_again_only_what_the_server_has_not_shown_after_two_round_trips() {
        let t0 = Instant::now();
        let rtt = Some(Duration::from_millis(100));
        let ms = |n| t0 + Duration::from_millis(n);
        let mut r = MoveRepair::default();
        assert_eq!(r.due(Some(Dir::NONE), rtt, t0), None, "nothing sent yet");
        r.sent(Dir::WEST);
        assert_eq!(r.due(Some(Dir::NONE), rtt, t0), None, "just sent");
        assert_eq!(
            r.due(Some(Dir::NONE), rtt, ms(150)),
            None,
            "still on its way"
        );
        assert_eq!(r.due(Some(Dir::NONE), rtt, ms(200)), Some(Dir::WEST));
        assert_eq!(
            r.due(Some(Dir::NONE), rtt, ms(300)),
            None,
            "sent again at 200"
        );
        assert_eq!(r.due(Some(Dir::NONE), rtt, ms(400)), Some(Dir::WEST));
        assert_eq!(
            r.due(Some(Dir::WEST), rtt, ms(900)),
            None,
            "the server agrees"
        );
        assert_eq!(r.due(None, rtt, ms(2000)), None, "dead: nothing to walk");
        r.sent(Dir::NONE);
        assert_eq!(r.due(Some(Dir::WEST), None, ms(2000)), None);
        assert_eq!(r.due(Some(Dir::WEST), None, ms(2499)), None);
        assert_eq!(r.due(Some(Dir::WEST), None, ms(2500)), Some(Dir::NONE));
        r.forget();
        assert_eq!(
            r.due(Some(Dir::WEST), None, ms(9000)),
            None,
            "a round ended"
        );
    }
}
