//! What a driver runs, and what of it the application drives: hopnet's server, hopnet's
//! client, or a machine of any protocol.
//!
//! The one driver type, [`Endpoint`](super::Endpoint), is generic over a [`Role`] (and over how
//! it waits), so that what every driver does (the machine, the socket's address and counters)
//! is written once for all three, and what only one role does (a server's `bind`, a client's
//! `connect`) stands in that role's own `impl`. An application never names a role: it uses the
//! drivers' names, `Server`, `Client` and `Driver<M>`.

use std::marker::PhantomData;

use super::machines::{ClientMachine, ServerMachine};
use hopnet_proto::Machine;

/// What a driver runs on its socket, and what of it [`machine`](super::Endpoint::machine)
/// gives the application. Sealed: the roles are [`ServerRole`], [`ClientRole`] and
/// [`AnyMachine`].
pub trait Role: sealed::Sealed {
    /// What the socket's datagrams are handed to.
    type Machine: Machine;
    /// What the application drives: the machine itself, or, in secure mode, the plain one
    /// above netcode.
    type App;
    /// The application's side of `machine`.
    fn app(machine: &mut Self::Machine) -> &mut Self::App;
}

/// hopnet's server, plain or secure ([`crate::Server`]): the
/// application drives a [`Server`](hopnet_proto::Server) either way; a side channel may stand in
/// front of it.
#[derive(Debug)]
pub struct ServerRole;

/// hopnet's client, plain or secure ([`crate::Client`]): the
/// application drives a [`Client`](hopnet_proto::Client) either way.
#[derive(Debug)]
pub struct ClientRole;

/// A [`Machine`] of any protocol ([`crate::Driver`]), driven as it
/// is.
#[derive(Debug)]
pub struct AnyMachine<M>(PhantomData<fn() -> M>);

impl Role for ServerRole {
    type Machine = ServerMachine;
    type App = hopnet_proto::Server;
    fn app(machine: &mut Self::Machine) -> &mut hopnet_proto::Server {
        machine.machine()
    }
}

impl Role for ClientRole {
    type Machine = ClientMachine;
    type App = hopnet_proto::Client;
    fn app(machine: &mut Self::Machine) -> &mut hopnet_proto::Client {
        machine.machine()
    }
}

impl<M: Machine> Role for AnyMachine<M> {
    type Machine = M;
    type App = M;
    fn app(machine: &mut M) -> &mut M {
        machine
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::ServerRole {}
    impl Sealed for super::ClientRole {}
    impl<M> Sealed for super::AnyMachine<M> {}
}
