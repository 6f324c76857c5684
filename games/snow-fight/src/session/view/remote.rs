//! The world drawn between snapshots, through `hopnet_sync`'s interpolation: a whole snapshot
//! is one value ([`Frame`]), each entity moved between where two snapshots had it (or, past
//! the newest, on along its last velocity for a bounded time). And the render clock: the
//! server's tick whose snapshots arrive now, less a delay, followed at a bounded rate so that
//! a better estimate of the server's clock never makes the view jump.

use hopnet_sync::interpolate::Interpolate;

use crate::world::{Entity, EntityKind, Vec2};

/// A snapshot's entities, sorted by id (as [`from_snapshot`](crate::snapshot::from_snapshot)
/// gives them).
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Frame(pub(super) Vec<Entity>);

impl Interpolate for Frame {
    /// `self`'s entities, each moved `t` of the way to where it is in `to` (for `t` above 1, on
    /// along the same line: dead reckoning); an entity `to` no longer has stays where it was.
    fn lerp(&self, to: &Frame, t: f32) -> Frame {
        let to = &to.0;
        Frame(
            self.0
                .iter()
                .map(|e| {
                    let mut e = *e;
                    let target = to
                        .binary_search_by_key(&e.id, |o| o.id)
                        .ok()
                        .and_then(|i| to[i].pos());
                    if let Some(target) = target {
                        let lerp = |from: Vec2| from + (target - from) * t;
                        match &mut e.kind {
                            EntityKind::Object(o) => o.pos = lerp(o.pos),
                            EntityKind::Player(p) => p.pos = lerp(p.pos),
                            EntityKind::Dead => {}
                        }
                    }
                    e
                })
                .collect(),
        )
    }
}

/// How far (in ticks) the render clock may be from its target before it jumps there.
const SNAP_TICKS: f64 = 10.0;

/// The tick the view shows, moved on with real time and steered toward its target by at most
/// a tenth of the time elapsed.
#[derive(Debug, Default)]
pub(super) struct RenderClock {
    /// The last tick shown, and the client's time (in ticks) it was shown at.
    shown: Option<(f64, f64)>,
}

impl RenderClock {
    /// The tick to show at local time `local` (in ticks), aiming at `target`.
    pub(super) fn at(&mut self, local: f64, target: f64) -> f64 {
        let shown = match self.shown {
            Some((then, shown)) => {
                let elapsed = (local - then).max(0.0);
                let natural = shown + elapsed;
                let error = target - natural;
                if error.abs() > SNAP_TICKS {
                    target
                } else {
                    natural + error.clamp(-elapsed / 10.0, elapsed / 10.0)
                }
            }
            None => target,
        };
        self.shown = Some((local, shown));
        shown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(x: f32) -> Frame {
        Frame(crate::session::view::tests::world(x))
    }

    #[test]
    fn a_frame_moves_each_entity_between_and_beyond() {
        assert_eq!(at(0.0).lerp(&at(2.0), 0.25), at(0.5));
        assert_eq!(at(0.0).lerp(&at(2.0), 1.5), at(3.0));
        // An entity gone from the newer frame stays where it was.
        assert_eq!(at(1.0).lerp(&Frame::default(), 0.5), at(1.0));
    }

    #[test]
    fn the_render_clock_steers_at_a_tenth_and_snaps_only_far() {
        let mut clock = RenderClock::default();
        assert_eq!(clock.at(0.0, 100.0), 100.0);
        // Its target moved a tick ahead: one tick of time moves it 1.1, not 2.
        assert!((clock.at(1.0, 102.0) - 101.1).abs() < 1e-9);
        // Far off: taken at once.
        assert_eq!(clock.at(2.0, 500.0), 500.0);
    }
}
