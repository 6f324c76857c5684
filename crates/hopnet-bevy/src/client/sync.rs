//! The client's half of the sync plugins: its clock kept ahead of the server's, its inputs
//! sent with redundancy, its own player predicted and corrected.

use std::time::Instant;

use bevy_app::{App, Plugin, PreUpdate, Update};
use bevy_ecs::prelude::*;
use bevy_time::{Real, Time};
use hopnet_sync::Tick;
use hopnet_sync::input::{InputMessage, InputSender};
use hopnet_sync::predict::{PredictStats, Predictor, Reconciled};
use hopnet_sync::tick_sync::{TickSync, TickSyncConfig};

use crate::client::{NetClient, client_connected};
use crate::shared::clock::frame_instant;
use crate::shared::messages::{FromServer, ToServer};
use crate::shared::sets::HopnetReceive;
use crate::shared::sync::{
    AuthoritativeState, NetworkSimulation, SyncSettings, SyncStep, register,
};

/// Predicts a client's own player with the game's rules `G`.
///
/// Add it after [`HopnetClientPlugin`](crate::HopnetClientPlugin), at the same place among
/// the registrations as [`SyncServerPlugin`](crate::sync::SyncServerPlugin) on the server.
/// Each frame, in [`SyncStep`], the ticks the clock hands out are simulated: the game's
/// [`LocalInput`] is sent (with the last unacknowledged ones) and applied at once to the
/// predicted state; when the server's state for a tick disagrees beyond the tolerance, the
/// state is rewound and replayed, and a [`Corrected`] message says by how much. Read the
/// state to draw from [`SyncClient::displayed`].
pub struct SyncClientPlugin<G: NetworkSimulation> {
    sim: G,
    settings: SyncSettings,
}

impl<G: NetworkSimulation> SyncClientPlugin<G> {
    /// The plugin for the game's rules `sim`, with `settings` (the tick as the server's).
    pub fn new(sim: G, settings: SyncSettings) -> SyncClientPlugin<G> {
        SyncClientPlugin { sim, settings }
    }
}

impl<G: NetworkSimulation> Plugin for SyncClientPlugin<G> {
    fn build(&self, app: &mut App) {
        register::<G>(app);
        app.insert_resource(SyncClient::new(self.sim.clone(), self.settings.clone()))
            .init_resource::<LocalInput<G::Input>>()
            .add_message::<Corrected>()
            .add_systems(
                PreUpdate,
                receive_states::<G>
                    .after(HopnetReceive)
                    .run_if(client_connected),
            )
            .add_systems(
                Update,
                step_ticks::<G>.in_set(SyncStep).run_if(client_connected),
            );
    }
}

/// The input the local player holds now: the game writes it before [`SyncStep`], and every
/// tick simulated in that frame takes it.
#[derive(Resource, Debug, Clone, Default, PartialEq)]
pub struct LocalInput<I>(pub I);

/// The server disagreed with the prediction of `tick` by `size` (the game's distance): the
/// state was rewound and replayed, and is shown blending into the corrected one.
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub struct Corrected {
    /// The server tick whose state disagreed.
    pub tick: Tick,
    /// How far the present state moved, in the world's units.
    pub size: f32,
}

/// A client's clock, inputs on their way, and prediction.
#[derive(Resource)]
pub struct SyncClient<G: NetworkSimulation> {
    sim: G,
    settings: SyncSettings,
    clock: TickSync,
    sender: InputSender<G::Input>,
    predictor: Option<Predictor<G>>,
    /// The newest server state: the prediction starts from it.
    newest: Option<(Tick, G::State)>,
}

impl<G: NetworkSimulation> SyncClient<G> {
    fn new(sim: G, settings: SyncSettings) -> SyncClient<G> {
        SyncClient {
            clock: TickSync::new(TickSyncConfig::new(settings.tick)),
            sender: InputSender::new(settings.redundancy, settings.input_delay),
            sim,
            settings,
            predictor: None,
            newest: None,
        }
    }

    /// The state to draw: the prediction with a recent correction blended in; before the
    /// first tick is predicted, the server's newest.
    pub fn displayed(&self) -> Option<&G::State> {
        match &self.predictor {
            Some(p) => Some(p.displayed()),
            None => self.newest.as_ref().map(|(_, s)| s),
        }
    }

    /// The predicted state and its tick, once prediction started.
    pub fn predicted(&self) -> Option<(Tick, &G::State)> {
        self.predictor.as_ref().map(|p| (p.tick(), p.state()))
    }

    /// The newest state the server sent, and its tick.
    pub fn server_state(&self) -> Option<(Tick, &G::State)> {
        self.newest.as_ref().map(|(t, s)| (*t, s))
    }

    /// What prediction did: inputs predicted, corrections, their largest size.
    pub fn stats(&self) -> PredictStats {
        self.predictor
            .as_ref()
            .map(|p| p.stats().clone())
            .unwrap_or_default()
    }

    /// The clock: the client's tick, its estimate of the server's, the round trip.
    pub fn clock(&self) -> &TickSync {
        &self.clock
    }

    /// The inputs waiting for an acknowledgement, and the input delay.
    pub fn sender(&self) -> &InputSender<G::Input> {
        &self.sender
    }

    /// Changes the input delay for inputs made from now on.
    pub fn set_input_delay(&mut self, delay: Tick) {
        self.settings.input_delay = delay;
        self.sender.set_delay(delay);
    }
}

fn now(time: Option<Res<Time<Real>>>) -> Instant {
    frame_instant(time.as_deref())
}

/// The server's states in: the clock learns the server's tick and the round trip, the
/// prediction is checked against them.
fn receive_states<G: NetworkSimulation>(
    mut states: MessageReader<FromServer<AuthoritativeState<G::State>>>,
    mut client: ResMut<SyncClient<G>>,
    mut corrected: MessageWriter<Corrected>,
    time: Option<Res<Time<Real>>>,
) {
    let now = now(time);
    let client = &mut *client;
    for FromServer { message } in states.read() {
        client.clock.on_server_tick(now, message.tick);
        if let Some(ack) = message.ack {
            let acked = client.sender.on_ack(now, &ack);
            client.clock.on_acked(acked);
        }
        if client
            .newest
            .as_ref()
            .is_none_or(|(t, _)| message.tick > *t)
        {
            client.newest = Some((message.tick, message.state.clone()));
        }
        if let Some(p) = &mut client.predictor
            && let Reconciled::Corrected { size, .. } = p.reconcile(message.tick, &message.state)
        {
            corrected.write(Corrected {
                tick: message.tick,
                size,
            });
        }
    }
}

/// The ticks the clock hands out this frame: each one's input sent and predicted.
fn step_ticks<G: NetworkSimulation>(
    mut client: ResMut<SyncClient<G>>,
    mut net: ResMut<NetClient>,
    input: Res<LocalInput<G::Input>>,
    mut send: MessageWriter<ToServer<InputMessage<G::Input>>>,
    time: Option<Res<Time<Real>>>,
) {
    let now = now(time);
    let client = &mut *client;
    if client.clock.rtt().is_none()
        && let Some(rtt) = net.stats().smoothed_rtt
    {
        // Before the first input is acknowledged, the handshake's round trip starts the clock.
        client.clock.on_rtt(rtt);
    }
    let mut stepped = false;
    for tick in client.clock.update(now) {
        stepped = true;
        if client.predictor.is_none()
            && let Some((server_tick, state)) = &client.newest
        {
            // The player's state before `tick` is the newest the server sent.
            let start = tick.max(server_tick + 1) - 1;
            client.predictor = Some(Predictor::new(
                client.sim.clone(),
                client.settings.predict.clone(),
                start,
                state.clone(),
            ));
        }
        let scheduled = client.sender.push(tick, input.0.clone());
        if let Some(p) = &mut client.predictor {
            p.predict(scheduled, input.0.clone());
        }
    }
    if stepped && let Some(message) = client.sender.message(now) {
        send.write(ToServer::new(message));
    }
}
