//! hopnet-sync's parts as plugins: the client's tick kept ahead of the server's, its inputs
//! sent with redundancy and buffered by the server per client per tick, its own player
//! predicted and corrected.
//!
//! The game gives its rules once, as a hopnet-sync
//! [`Simulation`](hopnet_sync::predict::Simulation) whose state and input derive `Rabbit`
//! (and `Default`: a new player, no input), and adds [`SyncServerPlugin`] to the server's app
//! and [`SyncClientPlugin`] to each client's, with the same [`SyncSettings`]. The server
//! steps every client's player with the input of each tick (hands it to the game's systems
//! as [`InputApplied`]) and sends the client its state; the client sets [`LocalInput`], sees
//! it applied at once in [`SyncClient::displayed`], and is corrected ([`Corrected`]) when an
//! input went missing. Interpolation of remote players and lag compensation stay in
//! hopnet-sync, used from the game's own systems.
//!
//! A dot walking right, over a simulated network with a 100 ms round trip and 10 % loss:
//!
//! ```
//! use std::time::Duration;
//! use bevy::prelude::*;
//! use bevy::time::TimeUpdateStrategy;
//! use hopnet::sim::LinkConfig;
//! use hopnet_bevy::prelude::*;
//! use hopnet_bevy::sim::SimNet;
//! use hopnet_bevy::sync::{LocalInput, SyncClient, SyncClientPlugin, SyncServerPlugin, SyncSettings};
//! use hopnet_sync::predict::Simulation;
//!
//! #[derive(Clone)]
//! struct Walk;
//! impl Simulation for Walk {
//!     type State = f32;
//!     type Input = f32;
//!     fn step(&self, _tick: u32, x: &mut f32, dx: &f32) {
//!         *x += dx.clamp(-1.0, 1.0); // the server never trusts a speed
//!     }
//!     fn distance(&self, a: &f32, b: &f32) -> f32 {
//!         (a - b).abs()
//!     }
//!     fn blend(&self, from: &f32, to: &f32, t: f32) -> f32 {
//!         from + (to - from) * t
//!     }
//! }
//!
//! let link = LinkConfig { loss: 0.1, delay: Duration::from_millis(50), ..default() };
//! let net = SimNet::new(3, hopnet::Config::default(), link);
//! let app = || {
//!     let mut app = App::new();
//!     app.add_plugins(MinimalPlugins)
//!         .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(16)));
//!     app
//! };
//! let mut server = app();
//! server
//!     .add_plugins(HopnetServerPlugin)
//!     .add_plugins(SyncServerPlugin::new(Walk, SyncSettings::default()))
//!     .insert_resource(NetServer::new(net.server()));
//! let mut client = app();
//! client
//!     .add_plugins(HopnetClientPlugin)
//!     .add_plugins(SyncClientPlugin::new(Walk, SyncSettings::default()))
//!     .insert_resource(NetClient::new(net.client(hopnet::Config::default())))
//!     .insert_resource(LocalInput(0.5_f32));
//!
//! for _ in 0..400 {
//!     server.update();
//!     client.update();
//! }
//! let sync = client.world().resource::<SyncClient<Walk>>();
//! let (tick, predicted) = sync.predicted().expect("predicting");
//! let (server_tick, on_server) = sync.server_state().unwrap();
//! // The client runs ahead of the server by about half the round trip, and its own dot with it.
//! assert!(tick > server_tick);
//! assert!(*predicted > *on_server);
//! ```
//!
//! # Where each rule lives
//!
//! | File | Rule |
//! |---|---|
//! | `shared/sync.rs` | the rules both sides run ([`NetworkSimulation`]), [`SyncSettings`], the server's word to a client ([`AuthoritativeState`]), the order both sides register in |
//! | `client/sync.rs` | [`SyncClientPlugin`]: the clock, the inputs sent, the prediction and its corrections |
//! | `server/sync.rs` | [`SyncServerPlugin`]: each client's inputs by tick, the ticks simulated, the states sent |

pub use crate::client::sync::{Corrected, LocalInput, SyncClient, SyncClientPlugin};
pub use crate::server::sync::{InputApplied, SyncServer, SyncServerPlugin};
pub use crate::shared::sync::{AuthoritativeState, NetworkSimulation, SyncSettings, SyncStep};
