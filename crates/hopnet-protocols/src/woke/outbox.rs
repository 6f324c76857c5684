//! Packets written on a tick or an event, waiting for the driver's next `poll_transmit`.

use std::collections::VecDeque;
use std::net::SocketAddr;

use hopnet::Transmit;

#[derive(Debug, Default)]
pub(super) struct Outbox {
    packets: VecDeque<(SocketAddr, Vec<u8>)>,
}

impl Outbox {
    pub fn push(&mut self, to: SocketAddr, packet: Vec<u8>) {
        self.packets.push_back((to, packet));
    }

    /// The next packet into `buf`.
    pub fn pop_into(&mut self, buf: &mut Vec<u8>) -> Option<Transmit> {
        let (to, bytes) = self.packets.pop_front()?;
        buf.clear();
        buf.extend_from_slice(&bytes);
        Some(Transmit::single(to, bytes.len()))
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.packets.iter().map(|(_, b)| b.capacity() + 48).sum()
    }
}
