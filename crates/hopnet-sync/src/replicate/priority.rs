//! The priority accumulator: each entity a client still needs grows in priority every tick
//! by a rate the game gives; the update is filled from the highest; what is sent drops back to
//! zero, what did not fit keeps what it had and goes on growing, so it is sent in time
//! however full the budget is (Glenn Fiedler, "State Synchronization", 2015).

use super::scope::Position;

/// What the game's rate sees of one entity for one client.
#[derive(Debug, Clone, Copy)]
pub struct Candidate<'a, E, S> {
    /// The entity.
    pub entity: &'a E,
    /// Its state now.
    pub state: &'a S,
    /// Where it is.
    pub position: Position,
    /// The client's point of view.
    pub viewer: Position,
    /// The distance between the two.
    pub distance: f32,
    /// Ticks since the client last acknowledged a state of it; `None` if it never did (the
    /// entity is yet to arrive).
    pub ticks_behind: Option<u32>,
}

/// How fast an entity's priority grows for a client, per tick, while the client needs an
/// update of it. Distance, recent change and interaction are the usual reasons to grow fast.
///
/// A rate below [`MIN_RATE`] (zero, negative, NaN) counts as [`MIN_RATE`]: every entity a
/// client needs is sent eventually.
///
/// A closure `Fn(&C, &Candidate<E, S>) -> f32` is a rate:
///
/// ```
/// use hopnet_sync::replicate::{Candidate, Priority};
///
/// // The player's own team first, then by distance.
/// let rate = |team: &u8, c: &Candidate<'_, u32, (u8, f32)>| {
///     let mine = if c.state.0 == *team { 4.0 } else { 1.0 };
///     mine / (1.0 + c.distance / 10.0)
/// };
/// let me = 1u8;
/// let c = Candidate { entity: &7, state: &(1, 0.0), position: [10.0, 0.0, 0.0],
///                     viewer: [0.0; 3], distance: 10.0, ticks_behind: None };
/// assert_eq!(rate.rate(&me, &c), 2.0);
/// ```
pub trait Priority<C, E, S>: Send + Sync {
    /// The growth of this entity's priority for this client this tick.
    fn rate(&self, client: &C, candidate: &Candidate<'_, E, S>) -> f32;
}

impl<C, E, S, F> Priority<C, E, S> for F
where
    F: Fn(&C, &Candidate<'_, E, S>) -> f32 + Send + Sync,
{
    fn rate(&self, client: &C, candidate: &Candidate<'_, E, S>) -> f32 {
        self(client, candidate)
    }
}

/// The smallest rate an entity's priority grows by.
pub const MIN_RATE: f32 = 1e-3;

/// The usual rate: near entities first, falling with distance, `1 / (1 + distance / near)`
/// (1 at the viewer, ½ at `near`).
///
/// ```
/// use hopnet_sync::replicate::{ByDistance, Candidate, Priority};
///
/// let c = Candidate { entity: &1u32, state: &(), position: [5.0, 0.0, 0.0],
///                     viewer: [0.0; 3], distance: 5.0, ticks_behind: Some(3) };
/// assert_eq!(ByDistance { near: 5.0 }.rate(&(), &c), 0.5);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct ByDistance {
    /// The distance at which the rate is half the viewer's.
    pub near: f32,
}

impl<C, E, S> Priority<C, E, S> for ByDistance {
    fn rate(&self, _client: &C, c: &Candidate<'_, E, S>) -> f32 {
        1.0 / (1.0 + c.distance / self.near.max(f32::MIN_POSITIVE))
    }
}

/// A rate as the accumulator adds it: never below [`MIN_RATE`], never NaN or infinite.
pub(crate) fn clamp_rate(rate: f32) -> f32 {
    if rate.is_finite() {
        rate.clamp(MIN_RATE, 1e6)
    } else if rate == f32::INFINITY {
        1e6
    } else {
        MIN_RATE
    }
}
