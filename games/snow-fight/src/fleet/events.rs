//! What the game tells the fleet, and how the fleet's side is set up.

use std::time::Duration;

/// What a game server tells its fleet manager, in the order it happens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FleetEvent {
    /// The server listens: players can be sent to it (`Ready`).
    Listening,
    /// A player was placed in a match (`PlayerConnect`, and the new count).
    PlayerConnected(String),
    /// A player left (`PlayerDisconnect`, and the new count).
    PlayerDisconnected(String),
    /// Asked to drain, the server has no match in play any more (`Shutdown`).
    AllMatchesOver,
}

/// How the server meets its Agones SDK server.
///
/// ```
/// use std::time::Duration;
/// use snow_fight::fleet::FleetConfig;
///
/// let config = FleetConfig {
///     health_every: Duration::from_secs(1),
///     ..FleetConfig::new(16)
/// };
/// assert_eq!(config.capacity, 16);
/// assert_eq!(config.counter, "players");
/// ```
#[derive(Clone, Debug)]
pub struct FleetConfig {
    /// The SDK server's gRPC port on localhost; `None`: `AGONES_SDK_GRPC_PORT`, which Agones
    /// sets in the game server's container (the SDK's default, 9357, without it).
    pub port: Option<u16>,
    /// Time between health pings: well under the Fleet's `health.periodSeconds`, so that one
    /// late ping is not a missed period (deploy/ pings every 2 s against a period of 5 s).
    pub health_every: Duration,
    /// Most players at once: the player tracking capacity and the counter's capacity.
    pub capacity: i64,
    /// The Beta counter that holds the live player count; the Fleet must declare it.
    pub counter: String,
    /// Events the game may have queued for the SDK before it drops new ones (and says so):
    /// while the SDK server is unreachable, the game goes on without waiting for it.
    pub queue: usize,
    /// After the last match ended, how long the server still runs before `Shutdown`, so that
    /// its last `GameOver`s (reliable messages) reach the players.
    pub linger: Duration,
    /// Least time between two looks at who is placed: [`Fleet::watch`](super::Fleet::watch) is
    /// called after every turn of the loop (a millisecond apart for many matches), and
    /// building the roster that often would cost more than the SDK needs.
    pub watch_every: Duration,
    /// Longest wait for `Shutdown` to reach the SDK before the process gives up on it.
    pub shutdown_timeout: Duration,
}

impl FleetConfig {
    /// The defaults for a server of `capacity` players.
    pub fn new(capacity: i64) -> FleetConfig {
        FleetConfig {
            port: None,
            health_every: Duration::from_secs(2),
            capacity,
            counter: "players".into(),
            queue: 1024,
            linger: Duration::from_secs(1),
            watch_every: Duration::from_millis(50),
            shutdown_timeout: Duration::from_secs(20),
        }
    }
}
