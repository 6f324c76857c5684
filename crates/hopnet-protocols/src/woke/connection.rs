//! One WOKE connection, either end: the packets it sends each tick, and what a packet from
//! the peer acknowledges and delivers.

use std::time::Instant;

use hopnet::engine::{Delivered, RttEstimator};
use hopnet_formats::woke::{Command, Delivery, Header, Packet};

use super::Config;
use super::acks::{Received, Sent};
use super::config::MAX_PENDING_RELIABLE;
use super::outgoing::{Outgoing, SendError};
use super::split::Reassembly;

/// Why a connection ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CloseReason {
    /// The peer sent ConnectionClosed.
    ByPeer,
    /// This end closed it.
    Local,
    /// More than 32 packets in a row went unacknowledged.
    Unacknowledged,
    /// More than 1,024 reliable commands were pending.
    TooManyPending,
}

/// A command handed up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Incoming {
    /// Its type (below 1024).
    pub kind: u16,
    /// Its data, whole.
    pub data: Vec<u8>,
    /// Whether it was sent reliably.
    pub reliable: bool,
}

#[derive(Debug)]
pub(super) struct Connection {
    pub client_id: u16,
    received: Received,
    sent: Sent,
    outgoing: Outgoing,
    reliable_seen: Delivered,
    reassembly: Reassembly,
    rtt: RttEstimator,
    commands: Vec<Command>,
    acked: Vec<u16>,
}

impl Connection {
    pub fn new(client_id: u16, config: &Config) -> Connection {
        Connection {
            client_id,
            received: Received::default(),
            sent: Sent::new(),
            outgoing: Outgoing::new(config.max_unreliable_queued),
            reliable_seen: Delivered::new(),
            reassembly: Reassembly::new(config.max_reassembly_bytes),
            rtt: config.rto.estimator(),
            commands: Vec::new(),
            acked: Vec::new(),
        }
    }

    /// The connection is established: unacknowledged packets count from now.
    pub fn established(&mut self, client_id: u16) {
        self.client_id = client_id;
        self.sent.start_counting();
    }

    pub fn send(&mut self, kind: u16, data: &[u8], reliable: bool) -> Result<(), SendError> {
        self.outgoing.send(kind, data, reliable)
    }

    /// Reliable commands pending.
    pub fn pending(&self) -> usize {
        self.outgoing.pending()
    }

    /// Whether a limit of the seed ends the connection now.
    pub fn limit_reached(&self) -> Option<CloseReason> {
        if self.outgoing.pending() > MAX_PENDING_RELIABLE {
            Some(CloseReason::TooManyPending)
        } else if self.sent.too_many_unacked() {
            Some(CloseReason::Unacknowledged)
        } else {
            None
        }
    }

    fn header(&self) -> Header {
        let (ack, ack_bitfield) = self.received.ack();
        Header {
            client_id: self.client_id,
            sequence: self.sent.next_sequence(),
            ack,
            ack_bitfield,
        }
    }

    /// This tick's packet: Commands when any are due, else KeepAlive.
    pub fn tick(&mut self, now: Instant) -> Vec<u8> {
        let header = self.header();
        let mut carried = Vec::new();
        self.commands.clear();
        self.outgoing
            .fill(now, &self.rtt, &mut self.commands, &mut carried);
        let packet = if self.commands.is_empty() {
            Packet::KeepAlive { header }
        } else {
            Packet::Commands {
                header,
                commands: std::mem::take(&mut self.commands),
            }
        };
        self.sent.sent(now, carried);
        let bytes = hopnet_codec::to_bytes(&packet).unwrap_or_default();
        if let Packet::Commands { commands, .. } = packet {
            self.commands = commands;
        }
        bytes
    }

    /// A ConnectionRequest (a client not yet answered).
    pub fn request(&mut self, now: Instant) -> Vec<u8> {
        let header = Header {
            client_id: 0,
            ..self.header()
        };
        self.sent.sent(now, Vec::new());
        hopnet_codec::to_bytes(&Packet::ConnectionRequest {
            header,
            payload: Vec::new(),
        })
        .unwrap_or_default()
    }

    /// ConnectionClosed.
    pub fn close_packet(&mut self, now: Instant) -> Vec<u8> {
        let header = self.header();
        self.sent.sent(now, Vec::new());
        hopnet_codec::to_bytes(&Packet::ConnectionClosed { header }).unwrap_or_default()
    }

    /// A KeepAlive or Commands packet from the peer (its client id checked by the caller):
    /// what it acknowledges, then what it delivers, to `out`. A packet is not taken (nor
    /// acknowledged) when it repeats one, or when a new split part in it would exceed the
    /// reassembly budget.
    pub fn handle(
        &mut self,
        now: Instant,
        header: Header,
        commands: Vec<Command>,
        out: &mut Vec<Incoming>,
    ) {
        self.sent.acknowledged(
            now,
            header.ack,
            header.ack_bitfield,
            &mut self.rtt,
            &mut self.acked,
        );
        for id in self.acked.drain(..) {
            self.outgoing.acked(id);
        }
        let fits = commands.iter().all(|c| match c.delivery {
            Delivery::Split {
                reliable_id,
                split_id,
                split_count,
                ..
            } => {
                self.reliable_seen.contains(reliable_id)
                    || self.reassembly.fits(split_id, split_count, c.data.len())
            }
            _ => true,
        });
        if !fits || !self.received.record(header.sequence) {
            return;
        }
        for command in commands {
            match command.delivery {
                Delivery::Unreliable => out.push(Incoming {
                    kind: command.kind,
                    data: command.data,
                    reliable: false,
                }),
                Delivery::Reliable { reliable_id } => {
                    if self.first_time(reliable_id) {
                        out.push(Incoming {
                            kind: command.kind,
                            data: command.data,
                            reliable: true,
                        });
                    }
                }
                Delivery::Split {
                    reliable_id,
                    split_id,
                    split_index,
                    split_count,
                } => {
                    if self.first_time(reliable_id)
                        && let Ok(Some(data)) = self.reassembly.part(
                            command.kind,
                            split_id,
                            split_index,
                            split_count,
                            command.data,
                        )
                    {
                        out.push(Incoming {
                            kind: command.kind,
                            data,
                            reliable: true,
                        });
                    }
                }
            }
        }
    }

    /// A packet without commands (a ConnectionRequest) arrived: it is acknowledged too.
    pub fn heard(&mut self, sequence: u16) {
        self.received.record(sequence);
    }

    /// Whether reliable id `id` is new (and records it).
    fn first_time(&mut self, id: u16) -> bool {
        if self.reliable_seen.contains(id) {
            return false;
        }
        self.reliable_seen.observe(id);
        self.reliable_seen.insert(id);
        true
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        size_of::<Connection>() + 2 * 8192 + 4096 + self.outgoing.bytes() + self.reassembly.bytes()
    }
}
