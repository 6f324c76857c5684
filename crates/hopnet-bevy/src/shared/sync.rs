//! What the sync plugins share: the game's rules as both sides run them, the settings both
//! sides agree on, and the server's word to a client (its state at a tick, with the
//! acknowledgement of its inputs).

use std::time::Duration;

use bevy_app::App;
use bevy_ecs::prelude::*;
use hopnet::Delivery;
use hopnet_codec::Rabbit;
use hopnet_sync::Tick;
use hopnet_sync::input::{INPUT_DELIVERY, InputAck, InputMessage};
use hopnet_sync::predict::{PredictConfig, Simulation};

use crate::register::NetworkApp;
use crate::shared::protocol::NetworkMessage;

/// A game's rules as the sync plugins run them: hopnet-sync's [`Simulation`] whose state and
/// input travel as messages. The server steps each client's state with it; a client steps its
/// own ahead of the server with the same rules, so the two agree unless an input was lost.
///
/// Implemented for every fitting `Simulation`: a game implements that trait only.
pub trait NetworkSimulation:
    Simulation<State: NetworkMessage + Default, Input: NetworkMessage + Default>
    + Clone
    + Send
    + Sync
    + 'static
{
}

impl<G> NetworkSimulation for G where
    G: Simulation<State: NetworkMessage + Default, Input: NetworkMessage + Default>
        + Clone
        + Send
        + Sync
        + 'static
{
}

/// The server's state of one client's player after a tick, sent to that client each tick
/// (sequenced: an older one arriving late is worthless), with the acknowledgement of its
/// inputs that the client's clock and redundancy need.
#[derive(Rabbit, Debug, Clone, PartialEq)]
pub struct AuthoritativeState<S> {
    /// The server tick this state follows.
    pub tick: Tick,
    /// The newest input the server holds from this client, once it sent one.
    pub ack: Option<InputAck>,
    /// The state after `tick`.
    pub state: S,
}

/// The settings of the sync plugins; the tick must be the same on both sides.
#[derive(Resource, Debug, Clone, PartialEq)]
pub struct SyncSettings {
    /// The duration of one simulation tick.
    pub tick: Duration,
    /// Inputs each message carries: the newest and the ones before it not yet acknowledged.
    pub redundancy: usize,
    /// Ticks between an input's making and the tick it is applied at.
    pub input_delay: Tick,
    /// The client's history, tolerance and smoothing of corrections.
    pub predict: PredictConfig,
}

impl SyncSettings {
    /// The defaults for a tick of this duration: four inputs a message, no input delay, four
    /// seconds of history, a tolerance of a thousandth of the world's unit, corrections
    /// blended over a tenth of a second.
    pub fn new(tick: Duration) -> SyncSettings {
        let per_second = (1.0 / tick.as_secs_f64().max(1e-6)).round() as usize;
        SyncSettings {
            tick,
            redundancy: 4,
            input_delay: 0,
            predict: PredictConfig {
                history: (4 * per_second).max(128),
                tolerance: 0.001,
                smoothing_ticks: (per_second as u32 / 10).max(6),
            },
        }
    }
}

impl Default for SyncSettings {
    /// A tick of 60 Hz.
    fn default() -> SyncSettings {
        SyncSettings::new(Duration::from_secs(1) / 60)
    }
}

/// Where the sync plugins simulate the ticks of a frame, in `Update`: order the system that
/// sets the local input before it, and those that read the states after it.
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
pub struct SyncStep;

/// Enters the sync messages of `G` in the protocol, the same on both sides: where a plugin
/// is added decides their place among the game's own types.
pub(crate) fn register<G: NetworkSimulation>(app: &mut App) {
    app.add_client_message::<InputMessage<G::Input>>(INPUT_DELIVERY)
        .add_server_message::<AuthoritativeState<G::State>>(Delivery::Sequenced);
}
