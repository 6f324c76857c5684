//! What the app reads and writes: typed network messages, connection changes and errors, all
//! as Bevy [`Message`]s (read with `MessageReader`, written with `MessageWriter`).
//!
//! A type registered to travel to the server is written on a client as [`ToServer<T>`] and read
//! on the server as [`FromClient<T>`], which names the client; one registered to travel to the
//! clients is written on the server as [`ToClients<T>`] and read on a client as
//! [`FromServer<T>`].

use std::net::SocketAddr;

use bevy_ecs::message::Message;
use hopnet::{ConnectionId, Delivery, DisconnectReason};

/// A message from a client, on the server.
#[derive(Debug, Clone, PartialEq)]
pub struct FromClient<T> {
    /// Who sent it: the id the server's connection events name.
    pub client: ConnectionId,
    /// The message, as decoded: as far as the codec allows, and no further, it is what a
    /// well-behaved client would send (its values checked by the type's own encoding, its
    /// sizes bounded); anything else about it is the client's word.
    pub message: T,
}

impl<T: Send + Sync + 'static> Message for FromClient<T> {}

/// A message from the server, on a client.
#[derive(Debug, Clone, PartialEq)]
pub struct FromServer<T> {
    /// The message.
    pub message: T,
}

impl<T: Send + Sync + 'static> Message for FromServer<T> {}

/// A message for the server, written on a client; it leaves in the frame's `PostUpdate`.
#[derive(Debug, Clone, PartialEq)]
pub struct ToServer<T> {
    /// The message.
    pub message: T,
    /// Its delivery, if not the one it was registered with.
    pub delivery: Option<Delivery>,
}

impl<T> ToServer<T> {
    /// `message`, with its type's registered delivery.
    pub fn new(message: T) -> ToServer<T> {
        ToServer {
            message,
            delivery: None,
        }
    }

    /// The same message, sent with `delivery` instead.
    pub fn with_delivery(mut self, delivery: Delivery) -> ToServer<T> {
        self.delivery = Some(delivery);
        self
    }
}

impl<T: Send + Sync + 'static> Message for ToServer<T> {}

/// Which clients a message from the server goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SendTo {
    /// Every connected client.
    All,
    /// One client.
    One(ConnectionId),
    /// Every connected client but one (the one whose message is being passed on).
    AllExcept(ConnectionId),
}

impl SendTo {
    /// Whether `client` is one of them.
    pub fn includes(self, client: ConnectionId) -> bool {
        match self {
            SendTo::All => true,
            SendTo::One(one) => one == client,
            SendTo::AllExcept(other) => other != client,
        }
    }
}

/// A message for clients, written on the server; it leaves in the frame's `PostUpdate`.
#[derive(Debug, Clone, PartialEq)]
pub struct ToClients<T> {
    /// To whom.
    pub to: SendTo,
    /// The message (encoded once, whatever the number of clients).
    pub message: T,
    /// Its delivery, if not the one it was registered with.
    pub delivery: Option<Delivery>,
}

impl<T> ToClients<T> {
    /// `message` for every connected client.
    pub fn all(message: T) -> ToClients<T> {
        ToClients::to(SendTo::All, message)
    }

    /// `message` for one client.
    pub fn one(client: ConnectionId, message: T) -> ToClients<T> {
        ToClients::to(SendTo::One(client), message)
    }

    /// `message` for every connected client but `client`.
    pub fn all_except(client: ConnectionId, message: T) -> ToClients<T> {
        ToClients::to(SendTo::AllExcept(client), message)
    }

    /// `message` for the clients `to` names.
    pub fn to(to: SendTo, message: T) -> ToClients<T> {
        ToClients {
            to,
            message,
            delivery: None,
        }
    }

    /// The same message, sent with `delivery` instead of its type's registered delivery.
    pub fn with_delivery(mut self, delivery: Delivery) -> ToClients<T> {
        self.delivery = Some(delivery);
        self
    }
}

impl<T: Send + Sync + 'static> Message for ToClients<T> {}

/// A client connected (on the server).
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientConnected {
    /// Its id, as its messages will name it.
    pub client: ConnectionId,
    /// Its address.
    pub address: SocketAddr,
}

/// A client's connection ended (on the server). Nothing more comes from it; its id is never
/// used again.
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientDisconnected {
    /// The client.
    pub client: ConnectionId,
    /// Why.
    pub reason: DisconnectReason,
}

/// The connection to the server opened (on a client).
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Connected;

/// The connection to the server ended, or never opened (on a client).
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Disconnected {
    /// Why.
    pub reason: DisconnectReason,
}
