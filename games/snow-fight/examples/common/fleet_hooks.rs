//! The server's `--agones` option and its three hooks into the loop: it listens, a tick ran,
//! the loop ended. The work is the library's `fleet` module (the `agones` feature); without
//! the feature `--agones` is refused with a clear error and the hooks do nothing.

use clap::Args;

/// Joining an Agones fleet.
#[derive(Args, Debug)]
pub struct FleetArgs {
    /// Join an Agones fleet through the local SDK server (its port from
    /// AGONES_SDK_GRPC_PORT): Ready once listening, health pings, player tracking and a
    /// `players` counter; SIGTERM drains (no new players, the round in play ends, Shutdown,
    /// exit 0). Needs the `agones` feature.
    #[arg(long)]
    pub agones: bool,
    /// With --agones: milliseconds between health pings (the Fleet's health period must be
    /// longer).
    #[arg(long, value_name = "MS", default_value_t = 2000)]
    pub agones_health_ms: u64,
}

/// The fleet, when the server is in one.
pub struct FleetHooks {
    #[cfg(feature = "agones")]
    fleet: Option<snow_fight::fleet::Fleet>,
}

impl FleetArgs {
    /// Starts the fleet's side if `--agones` asks for it.
    pub fn start(&self, max_players: usize) -> Result<FleetHooks, String> {
        #[cfg(feature = "agones")]
        {
            use snow_fight::fleet::{Fleet, FleetConfig};
            let fleet = if self.agones {
                let config = FleetConfig {
                    health_every: std::time::Duration::from_millis(self.agones_health_ms.max(1)),
                    ..FleetConfig::new(max_players as i64)
                };
                Some(Fleet::start(config).map_err(|e| e.to_string())?)
            } else {
                None
            };
            Ok(FleetHooks { fleet })
        }
        #[cfg(not(feature = "agones"))]
        {
            let _ = max_players;
            if self.agones {
                return Err("--agones needs the server built with the `agones` feature \
                            (cargo run --features agones --example server)"
                    .into());
            }
            Ok(FleetHooks {})
        }
    }
}

impl FleetHooks {
    /// The server listens.
    pub fn listening(&mut self) {
        #[cfg(feature = "agones")]
        if let Some(fleet) = &mut self.fleet {
            fleet.listening();
        }
    }

    /// After a tick (or a turn of the matches); `true` once drained: the loop stops.
    #[cfg(feature = "agones")]
    pub fn watch(&mut self, game: &mut impl snow_fight::fleet::Matches) -> bool {
        match &mut self.fleet {
            Some(fleet) => fleet.watch(game),
            None => false,
        }
    }

    /// Without the `agones` feature there is no fleet: never asks to stop.
    #[cfg(not(feature = "agones"))]
    pub fn watch<G>(&mut self, _game: &mut G) -> bool {
        false
    }

    /// After the loop: the last SDK calls (`Shutdown`).
    pub fn finish(self) -> Result<(), String> {
        #[cfg(feature = "agones")]
        if let Some(fleet) = self.fleet {
            return fleet.finish().map_err(|e| e.to_string());
        }
        Ok(())
    }
}
