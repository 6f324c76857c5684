//! A client's copy of the scene: the newest state of each cube it was sent, and since which
//! tick that copy has been right (for the staleness measure).

use crate::wire::{CubeState, Update};

pub struct View {
    /// Each cube's state and the tick it is of.
    copy: Vec<(u32, CubeState)>,
    /// The last tick at which the copy of each cube equalled the server's state.
    fresh_at: Vec<u32>,
}

impl View {
    /// A client that loaded the scene as it starts.
    pub fn new(initial: &[CubeState]) -> View {
        View {
            copy: initial.iter().map(|s| (0, *s)).collect(),
            fresh_at: vec![0; initial.len()],
        }
    }

    /// Takes in an update: a cube's state replaces the copy unless the copy is newer.
    pub fn apply(&mut self, update: &Update) {
        for c in &update.cubes {
            if let Some(slot) = self.copy.get_mut(usize::from(c.id))
                && update.tick >= slot.0
            {
                *slot = (update.tick, c.state);
            }
        }
    }

    /// Marks the cubes whose copy equals the server's state at `tick`.
    pub fn note_fresh(&mut self, tick: u32, server: &[CubeState]) {
        for ((copy, fresh), truth) in self.copy.iter().zip(&mut self.fresh_at).zip(server) {
            if copy.1 == *truth {
                *fresh = tick;
            }
        }
    }

    /// How many ticks before `tick` cube `i`'s copy was last right.
    pub fn age(&self, i: usize, tick: u32) -> u32 {
        tick.saturating_sub(self.fresh_at[i])
    }

    /// The states shown, cube by cube.
    pub fn states(&self) -> impl Iterator<Item = &CubeState> {
        self.copy.iter().map(|(_, s)| s)
    }
}
