//! The server's half of the sync plugins: each client's inputs buffered by tick, each tick's
//! applied through the game's rules, and each client told its state and what arrived.

use std::collections::BTreeMap;
use std::time::Instant;

use bevy_app::{App, Plugin, Update};
use bevy_ecs::prelude::*;
use bevy_time::{Real, Time};
use hopnet::ConnectionId;
use hopnet_sync::Tick;
use hopnet_sync::input::{InputBuffer, InputBufferConfig, InputMessage, InputStats};

use crate::shared::clock::frame_instant;
use crate::shared::messages::{ClientConnected, ClientDisconnected, FromClient, ToClients};
use crate::shared::sync::{
    AuthoritativeState, NetworkSimulation, SyncSettings, SyncStep, register,
};

/// The most ticks one frame simulates.
const MAX_TICKS_PER_FRAME: usize = 32;

/// Runs the game's rules `G` for every client's player, tick by tick, from their inputs.
///
/// Add it after [`HopnetServerPlugin`](crate::HopnetServerPlugin), at the same place among
/// the registrations as [`SyncClientPlugin`](crate::sync::SyncClientPlugin) on the clients.
/// A client that connects gets a player in `G::State::default()` (change it with
/// [`SyncServer::state_mut`]). Each frame, in [`SyncStep`], every tick now due is simulated:
/// each client's input for it (or, when it is missing, the last one again) steps that
/// client's state, an [`InputApplied`] message hands it to the game's systems, and the
/// client is sent its state with the acknowledgement of its inputs.
pub struct SyncServerPlugin<G: NetworkSimulation> {
    sim: G,
    settings: SyncSettings,
    buffers: InputBufferConfig,
}

impl<G: NetworkSimulation> SyncServerPlugin<G> {
    /// The plugin for the game's rules `sim`, with `settings` (the tick as the clients'),
    /// and each client's inputs held to the bounds of [`InputBufferConfig::default`].
    pub fn new(sim: G, settings: SyncSettings) -> SyncServerPlugin<G> {
        SyncServerPlugin {
            sim,
            settings,
            buffers: InputBufferConfig::default(),
        }
    }

    /// Holds each client's inputs to `bounds` instead.
    pub fn with_input_bounds(mut self, bounds: InputBufferConfig) -> SyncServerPlugin<G> {
        self.buffers = bounds;
        self
    }
}

impl<G: NetworkSimulation> Plugin for SyncServerPlugin<G> {
    fn build(&self, app: &mut App) {
        register::<G>(app);
        app.insert_resource(SyncServer {
            sim: self.sim.clone(),
            tick: self.settings.tick,
            bounds: self.buffers.clone(),
            next: 0,
            next_at: None,
            clients: BTreeMap::new(),
        })
        .add_message::<InputApplied<G::Input>>()
        .add_systems(
            Update,
            (join_and_leave::<G>, simulate::<G>)
                .chain()
                .in_set(SyncStep),
        );
    }
}

/// Client `client`'s input for `tick`, as the server applied it: `None` when it had not
/// arrived (the last input was repeated), so that the game can judge the events in it (a
/// shot) at the tick it was meant for.
#[derive(Message, Debug, Clone, PartialEq)]
pub struct InputApplied<I> {
    /// Whose input.
    pub client: ConnectionId,
    /// The tick it was applied at.
    pub tick: Tick,
    /// The input, when it arrived in time.
    pub input: Option<I>,
}

/// One client on the server: its inputs by tick, its player, the input last applied.
struct Synced<G: NetworkSimulation> {
    buffer: InputBuffer<G::Input>,
    state: G::State,
    last: G::Input,
}

/// Every client's inputs and player, and the server's tick.
#[derive(Resource)]
pub struct SyncServer<G: NetworkSimulation> {
    sim: G,
    tick: std::time::Duration,
    bounds: InputBufferConfig,
    /// The next tick to simulate.
    next: Tick,
    /// When it is due; the first frame starts the clock.
    next_at: Option<Instant>,
    clients: BTreeMap<ConnectionId, Synced<G>>,
}

impl<G: NetworkSimulation> SyncServer<G> {
    /// The next tick the server simulates.
    pub fn next_tick(&self) -> Tick {
        self.next
    }

    /// Client `client`'s player, after the last tick simulated.
    pub fn state(&self, client: ConnectionId) -> Option<&G::State> {
        self.clients.get(&client).map(|c| &c.state)
    }

    /// Client `client`'s player, to change (a spawn point, a teleport): the client is
    /// corrected to it by the next state it receives.
    pub fn state_mut(&mut self, client: ConnectionId) -> Option<&mut G::State> {
        self.clients.get_mut(&client).map(|c| &mut c.state)
    }

    /// What happened to client `client`'s inputs: on time, late, lost, dropped as hostile.
    pub fn input_stats(&self, client: ConnectionId) -> Option<&InputStats> {
        self.clients.get(&client).map(|c| c.buffer.stats())
    }

    /// Missed ticks of `client` whose input may still come late (count them as lost when
    /// the game ends: see [`InputStats::lost_share`]).
    pub fn awaited(&self, client: ConnectionId) -> Option<u64> {
        self.clients.get(&client).map(|c| c.buffer.awaited())
    }

    /// The clients with a player.
    pub fn clients(&self) -> impl Iterator<Item = ConnectionId> + '_ {
        self.clients.keys().copied()
    }
}

/// A player for each client that connected, none for one that left.
fn join_and_leave<G: NetworkSimulation>(
    mut joined: MessageReader<ClientConnected>,
    mut left: MessageReader<ClientDisconnected>,
    mut server: ResMut<SyncServer<G>>,
) {
    let server = &mut *server;
    for ClientConnected { client, .. } in joined.read() {
        server.clients.entry(*client).or_insert_with(|| Synced {
            buffer: InputBuffer::starting_at(server.bounds.clone(), server.next),
            state: G::State::default(),
            last: G::Input::default(),
        });
    }
    for ClientDisconnected { client, .. } in left.read() {
        server.clients.remove(client);
    }
}

/// Inputs in, then every tick now due: each client's input applied, its state sent.
fn simulate<G: NetworkSimulation>(
    mut inputs: MessageReader<FromClient<InputMessage<G::Input>>>,
    mut server: ResMut<SyncServer<G>>,
    mut applied: MessageWriter<InputApplied<G::Input>>,
    mut send: MessageWriter<ToClients<AuthoritativeState<G::State>>>,
    time: Option<Res<Time<Real>>>,
) {
    let now = frame_instant(time.as_deref());
    let server = &mut *server;
    for FromClient { client, message } in inputs.read() {
        // A client without a player (not yet joined, or gone) has nothing to steer.
        if let Some(synced) = server.clients.get_mut(client) {
            synced.buffer.receive(now, message);
        }
    }
    let next_at = server.next_at.get_or_insert(now);
    let mut due = Vec::new();
    while *next_at <= now {
        if due.len() == MAX_TICKS_PER_FRAME {
            // A stalled app does not simulate its whole absence at once: the ticks it missed
            // are skipped, and its clients' clocks jump to follow.
            *next_at = now + server.tick;
            break;
        }
        due.push(server.next);
        server.next += 1;
        *next_at += server.tick;
    }
    let Some(&last) = due.last() else {
        return;
    };
    for (&client, synced) in &mut server.clients {
        for &tick in &due {
            let input = synced.buffer.take(tick);
            if let Some(input) = &input {
                synced.last = input.clone();
            }
            server.sim.step(tick, &mut synced.state, &synced.last);
            applied.write(InputApplied {
                client,
                tick,
                input,
            });
        }
        send.write(ToClients::one(
            client,
            AuthoritativeState {
                tick: last,
                ack: synced.buffer.ack(now),
                state: synced.state.clone(),
            },
        ));
    }
}
