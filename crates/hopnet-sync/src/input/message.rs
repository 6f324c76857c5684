//! What travels: the client's inputs of the last ticks, and the server's acknowledgement.

use hopnet_codec::Rabbit;
use hopnet_proto::Delivery;

use crate::Tick;

/// The most inputs one message carries (and the most a server decodes from one).
pub const MAX_INPUTS_PER_MESSAGE: usize = 32;

/// Inputs travel unreliably: a lost one is repaired by the copy in the next message, sooner
/// than a retransmission could.
pub const INPUT_DELIVERY: Delivery = Delivery::Unreliable;

/// The inputs of consecutive ticks ending at `newest`: `inputs[i]` is for tick
/// `newest - (inputs.len() - 1 - i)`.
#[derive(Rabbit, Debug, Clone, PartialEq)]
pub struct InputMessage<I> {
    /// The tick of the last input.
    pub newest: Tick,
    /// The inputs, oldest first.
    #[rabbit(max_len = MAX_INPUTS_PER_MESSAGE)]
    pub inputs: Vec<I>,
}

impl<I> InputMessage<I> {
    /// Each input with its tick, oldest first (none whose tick would be below zero).
    pub fn ticks(&self) -> impl Iterator<Item = (Tick, &I)> {
        let len = self.inputs.len() as u64;
        self.inputs
            .iter()
            .enumerate()
            .filter_map(move |(i, input)| {
                let back = len - 1 - i as u64;
                let tick = u64::from(self.newest).checked_sub(back)?;
                Some((tick as Tick, input))
            })
    }
}

/// The server's word on a client's inputs, carried in what the server sends it (a snapshot):
/// the newest tick received, how long the server held that message before writing this (so
/// that the client can measure the round trip), and how many inputs have come late (so that
/// the client can run further ahead).
#[derive(Rabbit, Debug, Clone, Copy, PartialEq, Eq)]
pub struct InputAck {
    /// The newest tick whose input the server has.
    pub newest: Tick,
    /// Microseconds between the arrival of the message that brought `newest` and this ack.
    pub held_us: u32,
    /// Inputs that arrived after their tick, counted since the buffer began (wrapping).
    pub late: u32,
}
