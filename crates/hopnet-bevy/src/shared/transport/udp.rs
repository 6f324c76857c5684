//! Real UDP: hopnet's blocking drivers, polled without blocking once a frame.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use hopnet::{Client, Server};
use hopnet::{ConnectionId, Delivery, Error, Event, MessageId, ServerEvent};

use super::{ClientTransport, ConnectionStats, ServerTransport};

impl ServerTransport for Server {
    fn update(&mut self, _now: Instant) -> Result<(), Error> {
        // Never waits: a frame must not block on the network.
        self.poll(Duration::ZERO)
    }

    fn poll_event(&mut self) -> Option<ServerEvent> {
        Server::poll_event(self)
    }

    fn send(
        &mut self,
        client: ConnectionId,
        bytes: &[u8],
        delivery: Delivery,
    ) -> Result<(), Error> {
        // Queued, not sent: the frame's messages leave together at `flush`, in fewer system
        // calls.
        self.queue(client, bytes, delivery)
    }

    fn send_tracked(&mut self, client: ConnectionId, bytes: &[u8]) -> Result<MessageId, Error> {
        self.machine().send_tracked(client, bytes)
    }

    fn close(&mut self, client: ConnectionId) -> Result<(), Error> {
        self.machine().close(client)
    }

    fn recycle(&mut self, bytes: Vec<u8>) {
        Server::recycle(self, bytes)
    }

    fn flush(&mut self, _now: Instant) -> Result<(), Error> {
        Server::flush(self)
    }

    fn stats(&mut self, client: ConnectionId) -> Option<ConnectionStats> {
        self.machine().stats(client).map(ConnectionStats::from)
    }

    fn local_addr(&self) -> Option<SocketAddr> {
        Server::local_addr(self).ok()
    }
}

impl ClientTransport for Client {
    fn update(&mut self, _now: Instant) -> Result<(), Error> {
        self.poll(Duration::ZERO)
    }

    fn poll_event(&mut self) -> Option<Event> {
        Client::poll_event(self)
    }

    fn send(&mut self, bytes: &[u8], delivery: Delivery) -> Result<(), Error> {
        self.queue(bytes, delivery)
    }

    fn send_tracked(&mut self, bytes: &[u8]) -> Result<MessageId, Error> {
        self.machine().send_tracked(bytes)
    }

    fn close(&mut self, _now: Instant) {
        self.machine().close();
    }

    fn recycle(&mut self, bytes: Vec<u8>) {
        Client::recycle(self, bytes)
    }

    fn flush(&mut self, _now: Instant) -> Result<(), Error> {
        Client::flush(self)
    }

    fn stats(&mut self) -> ConnectionStats {
        Client::stats(self).into()
    }

    fn local_addr(&self) -> Option<SocketAddr> {
        Client::local_addr(self).ok()
    }
}
