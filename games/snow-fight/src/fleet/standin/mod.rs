//! A stand-in for the Agones SDK server, for tests and for running the server with `--agones`
//! on a desk. **It is not the real SDK server**: that one is a Go program (the sidecar Agones
//! runs beside each game server) that we cannot run here. The stand-in answers the same gRPC
//! services, compiled by the build script from the SDK's own `.proto` files (`sdk.proto`,
//! `alpha.proto` for player tracking, `beta.proto` for counters), keeps the little state the
//! answers need (the players, the counters), and records every call, method and value, in the
//! order they arrive.
//!
//! [`StandIn::stop`] drops every connection at once, as a sidecar that crashes would, and
//! [`StandIn::restart`] comes back on the same port with the record kept, which is how the
//! tests see the server retry.

mod services;

use std::io;
use std::net::{SocketAddr, TcpListener};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::{self, JoinHandle};
use std::time::Instant;

use tokio::sync::oneshot;

/// The code generated from the SDK's `.proto` files: the servers of its three services.
#[allow(
    missing_docs,
    clippy::all,
    clippy::pedantic,
    rustdoc::broken_intra_doc_links,
    rustdoc::bare_urls,
    rustdoc::invalid_html_tags
)]
pub mod proto {
    /// `sdk.proto`: the stable SDK.
    pub mod sdk {
        tonic::include_proto!("agones.dev.sdk");
    }
    /// `alpha.proto`: player tracking.
    pub mod alpha {
        tonic::include_proto!("agones.dev.sdk.alpha");
    }
    /// `beta.proto`: counters and lists.
    pub mod beta {
        tonic::include_proto!("agones.dev.sdk.beta");
    }
}

/// One call the stand-in answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    /// The gRPC method, as the `.proto` names it (`Ready`, `PlayerConnect`, `UpdateCounter`);
    /// each ping of the `Health` stream is one `Health` call.
    pub method: String,
    /// Its argument, in words (`"7"` for a player id, `"players count=2"` for a counter);
    /// empty for `Empty`.
    pub value: String,
    /// When it arrived.
    pub at: Instant,
}

/// What the services share: the record, and the state the answers need.
#[derive(Debug, Default)]
pub(crate) struct State {
    pub(crate) calls: Vec<Call>,
    pub(crate) players: Vec<String>,
    pub(crate) player_capacity: i64,
    /// name, count, capacity.
    pub(crate) counters: Vec<(String, i64, i64)>,
}

pub(crate) type Shared = Arc<Mutex<State>>;

pub(crate) fn lock(state: &Shared) -> MutexGuard<'_, State> {
    // A service that panicked holding the lock leaves a record still worth reading.
    state.lock().unwrap_or_else(|e| e.into_inner())
}

pub(crate) fn record(state: &Shared, method: &str, value: impl Into<String>) {
    lock(state).calls.push(Call {
        method: method.into(),
        value: value.into(),
        at: Instant::now(),
    });
}

/// A running stand-in SDK server on a loopback port.
///
/// ```
/// use snow_fight::fleet::standin::StandIn;
///
/// let mut standin = StandIn::start(0, &["players"]).unwrap();
/// // A game server started with AGONES_SDK_GRPC_PORT=<standin.port()> talks to it.
/// assert!(standin.calls().is_empty());
/// standin.stop();
/// ```
pub struct StandIn {
    port: u16,
    state: Shared,
    running: Option<(oneshot::Sender<()>, JoinHandle<()>)>,
}

impl StandIn {
    /// Listens on `127.0.0.1:port` (0: any free port), with the counters named in `counters`
    /// declared (count 0, capacity 0), as a Fleet's spec declares them.
    pub fn start(port: u16, counters: &[&str]) -> io::Result<StandIn> {
        let state = Shared::default();
        lock(&state).counters = counters.iter().map(|n| (n.to_string(), 0, 0)).collect();
        let mut standin = StandIn {
            port,
            state,
            running: None,
        };
        standin.restart()?;
        Ok(standin)
    }

    /// The port it listens on: the game server's `AGONES_SDK_GRPC_PORT`.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Every call so far, oldest first, across restarts.
    pub fn calls(&self) -> Vec<Call> {
        lock(&self.state).calls.clone()
    }

    /// The players it was told are connected, in the order they connected.
    pub fn players(&self) -> Vec<String> {
        lock(&self.state).players.clone()
    }

    /// Whether it is listening.
    pub fn running(&self) -> bool {
        self.running.is_some()
    }

    /// Stops listening and drops every connection, as a crashed sidecar would.
    pub fn stop(&mut self) {
        if let Some((stop, thread)) = self.running.take() {
            let _ = stop.send(());
            let _ = thread.join();
        }
    }

    /// Listens again on the same port (after [`StandIn::stop`]), with its record and state.
    pub fn restart(&mut self) -> io::Result<()> {
        self.stop();
        let listener = TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], self.port)))?;
        listener.set_nonblocking(true)?;
        self.port = listener.local_addr()?.port();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let (stop, stopped) = oneshot::channel();
        let state = self.state.clone();
        let thread = thread::Builder::new()
            .name("agones-standin".into())
            .spawn(move || {
                // The runtime is dropped with this thread, and with it every connection.
                runtime.block_on(services::serve(listener, state, stopped));
            })?;
        self.running = Some((stop, thread));
        Ok(())
    }
}

impl Drop for StandIn {
    fn drop(&mut self) {
        self.stop();
    }
}
