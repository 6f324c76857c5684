//! The socket's side of the matches: each transport event to its connection's match (the
//! transport's tracked ids turned into the match's own), and what each match sends out to the
//! transport, to its own connections only. The socket's thread never waits for a match.

use std::sync::mpsc::TryRecvError;

use hopnet::{ConnectionId, Event, MessageId, ServerDriver, ServerEvent};

use super::room::{self, FromMatch, ToMatch};
use super::{MESSAGES_PER_TURN, MatchHost};
use crate::session::Seat;

impl<D: ServerDriver> MatchHost<D> {
    /// Hands a transport event to its connection's match.
    pub(super) fn route(&mut self, event: ServerEvent) {
        let connection = event.connection;
        match event.event {
            Event::Connected => {
                let player = self.next_player;
                self.next_player = self.next_player.wrapping_add(1).max(1);
                self.place(Seat::arriving(connection, player));
            }
            Event::Disconnected { .. } => {
                self.tracked.retain(|(c, _), _| *c != connection);
                let Some(slot) = self.placed.remove(&connection) else {
                    return;
                };
                if let Some(s) = &mut self.slots[slot] {
                    s.connections = s.connections.saturating_sub(1);
                    s.backlog.push_back(ToMatch::Event(event));
                }
            }
            Event::Acknowledged { id } | Event::Lost { id } => {
                let Some(local) = self.tracked.remove(&(connection, id.0)) else {
                    return;
                };
                let event = ServerEvent {
                    event: match event.event {
                        Event::Acknowledged { .. } => Event::Acknowledged {
                            id: MessageId(local),
                        },
                        _ => Event::Lost {
                            id: MessageId(local),
                        },
                    },
                    ..event
                };
                self.hand(connection, event);
            }
            Event::Message { .. } => self.hand(connection, event),
        }
    }

    /// Hands a message or an acknowledgement to the connection's match, unless the match is
    /// far behind.
    fn hand(&mut self, connection: ConnectionId, event: ServerEvent) {
        let Some(slot) = self.placed.get(&connection) else {
            return;
        };
        let Some(s) = &mut self.slots[*slot] else {
            return;
        };
        if s.backlog.is_empty() {
            if let Err(event) = s.room.offer(ToMatch::Event(event)) {
                s.backlog.push_back(event);
            }
        } else if s.backlog.len() < room::INBOX {
            s.backlog.push_back(ToMatch::Event(event));
        } else {
            self.stats.dropped += 1;
        }
    }

    /// A match's turn: its backlog in, its messages out, and its end.
    pub(super) fn serve(&mut self, slot: usize) {
        let Some(s) = &mut self.slots[slot] else {
            return;
        };
        while let Some(message) = s.backlog.pop_front() {
            if let Err(message) = s.room.offer(message) {
                s.backlog.push_front(message);
                break;
            }
        }
        let mut ended = None;
        for _ in 0..MESSAGES_PER_TURN {
            let message = match s.room.outbox.try_recv() {
                Ok(message) => message,
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    ended = Some(None);
                    break;
                }
            };
            match message {
                FromMatch::Send {
                    connection,
                    payload,
                    delivery,
                } => {
                    // A match speaks to its own connections only.
                    if self.placed.get(&connection) == Some(&slot) {
                        let _ = self
                            .server
                            .machine()
                            .send_payload(connection, &payload, delivery);
                    }
                }
                FromMatch::SendTracked {
                    connection,
                    payload,
                    local,
                } => {
                    if self.placed.get(&connection) == Some(&slot)
                        && let Ok(id) = self
                            .server
                            .machine()
                            .send_payload_tracked(connection, &payload)
                    {
                        self.tracked.insert((connection, id.0), local);
                    }
                }
                FromMatch::Standing { roster, rounds } => {
                    s.roster = roster;
                    s.rounds = rounds;
                }
                FromMatch::Ended(seats) => {
                    ended = Some(Some(seats));
                    break;
                }
            }
        }
        if let Some(seats) = ended {
            self.end(slot, seats);
        }
    }
}
