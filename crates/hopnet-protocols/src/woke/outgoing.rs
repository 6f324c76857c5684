//! Commands to send: reliable ones (split when larger than a packet) carried in packets until
//! a packet that carried them is acknowledged, again whenever the engine's retransmission
//! timeout passes without that; unreliable ones once, in the next packet.

use std::collections::{HashMap, VecDeque};
use std::time::Instant;

use hopnet::engine::RttEstimator;
use hopnet_codec::layout::Computed;
use hopnet_formats::woke::{Command, Delivery};

use super::config::{HEADER_LEN, MAX_PACKET, MAX_PENDING_RELIABLE};

/// The largest data of a reliable command that fits one packet.
pub const MAX_RELIABLE_DATA: usize = MAX_PACKET - HEADER_LEN - 6;
/// The data one part of a split command carries at most.
pub const MAX_SPLIT_DATA: usize = MAX_PACKET - HEADER_LEN - 12;
/// The largest data of an unreliable command (it is never split).
pub const MAX_UNRELIABLE_DATA: usize = MAX_PACKET - HEADER_LEN - 4;

/// Why a command was not queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SendError {
    /// The type does not fit its 10 bits.
    #[error("command type {0} is not below 1024")]
    BadType(u16),
    /// Unreliable and larger than a packet, or reliable and split into more parts than may be
    /// pending.
    #[error("command too large")]
    TooLarge,
    /// Too many unreliable commands are queued.
    #[error("too many unreliable commands queued")]
    WouldBlock,
    /// The connection is closed.
    #[error("connection closed")]
    Closed,
}

/// The bytes a command takes in a packet.
pub fn command_len(command: &Command) -> usize {
    let extra = match command.delivery {
        Delivery::Unreliable => 0,
        Delivery::Reliable { .. } => 2,
        Delivery::Split { .. } => 8,
    };
    4 + extra + command.data.len()
}

#[derive(Debug)]
struct Pending {
    command: Command,
    last_sent: Option<Instant>,
}

/// The sending side's commands.
#[derive(Debug)]
pub(super) struct Outgoing {
    next_reliable_id: u16,
    next_split_id: u16,
    pending: HashMap<u16, Pending>,
    /// Reliable ids in the order queued; acknowledged ones leave lazily.
    order: VecDeque<u16>,
    unreliable: VecDeque<Command>,
    max_unreliable: usize,
    bytes: usize,
}

impl Outgoing {
    pub fn new(max_unreliable: usize) -> Outgoing {
        Outgoing {
            next_reliable_id: 0,
            next_split_id: 0,
            pending: HashMap::new(),
            order: VecDeque::new(),
            unreliable: VecDeque::new(),
            max_unreliable,
            bytes: 0,
        }
    }

    fn push_reliable(&mut self, kind: u16, delivery: impl FnOnce(u16) -> Delivery, data: Vec<u8>) {
        let id = self.next_reliable_id;
        self.next_reliable_id = id.wrapping_add(1);
        self.bytes += data.capacity() + 64;
        let command = Command {
            kind,
            delivery: delivery(id),
            data_size: Computed::new(),
            data,
        };
        self.pending.insert(
            id,
            Pending {
                command,
                last_sent: None,
            },
        );
        self.order.push_back(id);
    }

    /// Queues a command.
    pub fn send(&mut self, kind: u16, data: &[u8], reliable: bool) -> Result<(), SendError> {
        if kind >= 1024 {
            return Err(SendError::BadType(kind));
        }
        if !reliable {
            if data.len() > MAX_UNRELIABLE_DATA {
                return Err(SendError::TooLarge);
            }
            if self.unreliable.len() >= self.max_unreliable {
                return Err(SendError::WouldBlock);
            }
            self.bytes += data.len() + 64;
            self.unreliable.push_back(Command {
                kind,
                delivery: Delivery::Unreliable,
                data_size: Computed::new(),
                data: data.to_vec(),
            });
            return Ok(());
        }
        if data.len() <= MAX_RELIABLE_DATA {
            self.push_reliable(
                kind,
                |reliable_id| Delivery::Reliable { reliable_id },
                data.to_vec(),
            );
            return Ok(());
        }
        let count = data.len().div_ceil(MAX_SPLIT_DATA);
        if count > MAX_PENDING_RELIABLE {
            return Err(SendError::TooLarge);
        }
        let split_id = self.next_split_id;
        self.next_split_id = split_id.wrapping_add(1);
        for (index, part) in data.chunks(MAX_SPLIT_DATA).enumerate() {
            self.push_reliable(
                kind,
                |reliable_id| Delivery::Split {
                    reliable_id,
                    split_id,
                    split_index: index as u16,
                    split_count: count as u16,
                },
                part.to_vec(),
            );
        }
        Ok(())
    }

    /// A packet that carried reliable command `id` was acknowledged.
    pub fn acked(&mut self, id: u16) {
        if let Some(p) = self.pending.remove(&id) {
            self.bytes -= p.command.data.capacity() + 64;
        }
    }

    /// Reliable commands pending.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// The commands of the next packet, as many as fit: reliable ones never sent or not
    /// acknowledged within the timeout (oldest first), then unreliable ones. The reliable ids
    /// carried go to `carried`.
    pub fn fill(
        &mut self,
        now: Instant,
        rtt: &RttEstimator,
        commands: &mut Vec<Command>,
        carried: &mut Vec<u16>,
    ) {
        let mut room = MAX_PACKET - HEADER_LEN;
        while self
            .order
            .front()
            .is_some_and(|id| !self.pending.contains_key(id))
        {
            self.order.pop_front();
        }
        let rto = rtt.rto();
        for id in &self.order {
            let Some(p) = self.pending.get_mut(id) else {
                continue;
            };
            let due = p.last_sent.is_none_or(|t| now >= t + rto);
            let len = command_len(&p.command);
            if due && len <= room {
                room -= len;
                p.last_sent = Some(now);
                commands.push(p.command.clone());
                carried.push(*id);
            }
            if room < 6 {
                break;
            }
        }
        while let Some(c) = self.unreliable.front() {
            let len = command_len(c);
            if len > room {
                break;
            }
            room -= len;
            let c = self.unreliable.pop_front().expect("a front");
            self.bytes -= c.data.len() + 64;
            commands.push(c);
        }
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.bytes + self.order.capacity() * 2 + self.pending.capacity() * 16
    }
}
