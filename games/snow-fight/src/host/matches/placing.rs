//! Where players go: a newcomer, or the players of a match that ended, to the fullest match
//! with room; a match that ended replaced by a new one in its slot; a connection with nowhere
//! to go, or whose state went with a failed match, closed.

use hopnet::{ConnectionId, ServerDriver};
use tracing::{debug, warn};

use super::MatchHost;
use super::room::{self, ToMatch};
use crate::session::Seat;

impl<D: ServerDriver> MatchHost<D> {
    /// Seats a connection in the fullest match with room, or closes it when there is none.
    pub(super) fn place(&mut self, seat: Seat) {
        let occupancy: Vec<Option<usize>> = self
            .slots
            .iter()
            .map(|s| s.as_ref().filter(|_| !self.draining).map(|s| s.connections))
            .collect();
        let Some(slot) = self.matchmaker.place(&occupancy) else {
            warn!(connection = ?seat.connection, draining = self.draining, "no match has room: connection closed");
            self.close(seat.connection);
            return;
        };
        let Some(s) = &mut self.slots[slot] else {
            return;
        };
        s.connections += 1;
        self.placed.insert(seat.connection, slot);
        s.backlog.push_back(ToMatch::Admit(seat));
    }

    /// A match is over: played (`seats` are its connections) or failed (`None`).
    pub(super) fn end(&mut self, slot: usize, seats: Option<Vec<Seat>>) {
        let Some(mut s) = self.slots[slot].take() else {
            return;
        };
        room::finish(&mut s.room);
        self.rounds_before += u64::from(s.rounds);
        let seats = match seats {
            Some(seats) => {
                self.stats.ended += 1;
                seats
            }
            None => {
                self.stats.failed += 1;
                Vec::new()
            }
        };
        // Connections still placed here and not in `seats` (all of them, when it failed):
        // their state went with the match.
        let lost: Vec<ConnectionId> = self
            .placed
            .iter()
            .filter(|&(c, &at)| at == slot && !seats.iter().any(|seat| seat.connection == *c))
            .map(|(c, _)| *c)
            .collect();
        for connection in lost {
            self.placed.remove(&connection);
            self.close(connection);
        }
        if !self.draining
            && let Err(error) = self.start(slot)
        {
            warn!(slot, %error, "cannot start a match: the slot stays empty");
        }
        for seat in seats {
            // A connection that left after the match's end is no longer placed.
            if self.placed.remove(&seat.connection).is_some() {
                self.tracked.retain(|(c, _), _| *c != seat.connection);
                self.place(seat);
            }
        }
    }

    /// Closes a connection; its `END` leaves with the turn's flush. A connection the machine
    /// no longer has is already closed.
    fn close(&mut self, connection: ConnectionId) {
        self.stats.turned_away += 1;
        self.tracked.retain(|(c, _), _| *c != connection);
        if let Err(error) = self.server.machine().close(connection) {
            debug!(?connection, %error, "close");
        }
    }
}
