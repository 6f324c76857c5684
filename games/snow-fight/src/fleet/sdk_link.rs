//! The SDK's side of the fleet: a thread with a small tokio runtime that holds the Agones SDK
//! client, takes [`FleetEvent`]s from the game through a bounded channel, turns each into its
//! SDK calls and makes them in order, pinging health on a timer meanwhile.
//!
//! A call that fails because the SDK server cannot be reached is made again after a
//! [`Backoff`]; the calls behind it wait, so the SDK hears them in the game's order. A call the
//! SDK server refuses (an unknown counter, a full player list) is logged and dropped: making it
//! again would be refused again.

use std::collections::{BTreeSet, VecDeque};
use std::fmt;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use agones::Sdk;
use tokio::sync::mpsc::{self, error::TrySendError};
use tracing::{debug, info, warn};

use super::backoff::Backoff;
use super::events::{FleetConfig, FleetEvent};

/// How long one SDK call may take before it counts as lost (and is made again).
const CALL_TIMEOUT: Duration = Duration::from_secs(5);

/// Why the fleet's side did not finish cleanly.
#[derive(Debug)]
pub enum FleetError {
    /// The thread or its runtime could not start.
    Start(std::io::Error),
    /// `Shutdown` had not reached the SDK server when the wait ran out.
    ShutdownTimedOut(Duration),
    /// The SDK thread panicked.
    Panicked,
}

impl fmt::Display for FleetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FleetError::Start(e) => write!(f, "cannot start the Agones SDK thread: {e}"),
            FleetError::ShutdownTimedOut(t) => write!(
                f,
                "Shutdown did not reach the Agones SDK server within {} s",
                t.as_secs_f32()
            ),
            FleetError::Panicked => write!(f, "the Agones SDK thread panicked"),
        }
    }
}

impl std::error::Error for FleetError {}

/// The game's end of the SDK thread.
///
/// ```no_run
/// use snow_fight::fleet::{FleetConfig, FleetEvent, SdkLink};
///
/// let mut link = SdkLink::start(FleetConfig::new(8)).unwrap();
/// link.send(FleetEvent::Listening); // Ready, once the SDK server answers
/// link.send(FleetEvent::PlayerConnected("1".into()));
/// link.send(FleetEvent::AllMatchesOver); // Shutdown
/// link.finish().unwrap();
/// ```
pub struct SdkLink {
    events: mpsc::Sender<FleetEvent>,
    thread: JoinHandle<()>,
    shutdown_timeout: Duration,
    dropped: u64,
}

impl SdkLink {
    /// Starts the thread; it connects to the SDK server in the background (and keeps trying).
    pub fn start(config: FleetConfig) -> Result<SdkLink, FleetError> {
        let (events, rx) = mpsc::channel(config.queue.max(1));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(FleetError::Start)?;
        let shutdown_timeout = config.shutdown_timeout;
        let thread = thread::Builder::new()
            .name("agones-sdk".into())
            .spawn(move || runtime.block_on(Calls::new(config).run(rx)))
            .map_err(FleetError::Start)?;
        Ok(SdkLink {
            events,
            thread,
            shutdown_timeout,
            dropped: 0,
        })
    }

    /// Queues an event for the SDK without waiting; when the queue is full (the SDK server has
    /// been unreachable for long) the event is dropped, logged, and `false` returned.
    pub fn send(&mut self, event: FleetEvent) -> bool {
        match self.events.try_send(event) {
            Ok(()) => true,
            Err(TrySendError::Full(event)) => {
                self.dropped += 1;
                warn!(?event, "the Agones SDK queue is full: event dropped");
                false
            }
            Err(TrySendError::Closed(event)) => {
                warn!(?event, "the Agones SDK thread is gone: event dropped");
                false
            }
        }
    }

    /// Events dropped so far because the queue was full.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Waits until every queued call was made (`Shutdown` among them, if it was sent), at most
    /// [`FleetConfig::shutdown_timeout`].
    pub fn finish(self) -> Result<(), FleetError> {
        drop(self.events);
        let deadline = Instant::now() + self.shutdown_timeout;
        while !self.thread.is_finished() {
            if Instant::now() >= deadline {
                return Err(FleetError::ShutdownTimedOut(self.shutdown_timeout));
            }
            thread::sleep(Duration::from_millis(10));
        }
        self.thread.join().map_err(|_| FleetError::Panicked)
    }
}

/// One SDK call.
#[derive(Clone, Debug)]
enum Call {
    PlayerCapacity(i64),
    CounterCapacity(i64),
    Ready,
    PlayerConnect(String),
    PlayerDisconnect(String),
    CounterCount(i64),
    Shutdown,
}

/// Whether a failed call is worth making again.
enum Failure {
    /// The SDK server could not be reached (or the connection broke): try again.
    Unreachable(String),
    /// It answered with a refusal: drop the call.
    Refused(String),
}

/// The SDK thread's state.
struct Calls {
    config: FleetConfig,
    sdk: Option<Sdk>,
    health: Option<mpsc::Sender<()>>,
    backoff: Backoff,
    /// The players the SDK was told of, for the count.
    players: BTreeSet<String>,
    queue: VecDeque<Call>,
}

impl Calls {
    fn new(config: FleetConfig) -> Calls {
        Calls {
            config,
            sdk: None,
            health: None,
            backoff: Backoff::default(),
            players: BTreeSet::new(),
            queue: VecDeque::new(),
        }
    }

    async fn run(mut self, mut events: mpsc::Receiver<FleetEvent>) {
        let mut pings = tokio::time::interval(self.config.health_every);
        pings.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut retry_at = tokio::time::Instant::now();
        let mut open = true;
        loop {
            if !open && self.queue.is_empty() {
                return;
            }
            tokio::select! {
                biased;
                _ = pings.tick() => self.ping(),
                _ = tokio::time::sleep_until(retry_at), if !self.queue.is_empty() => {
                    if let Some(wait) = self.attempt().await {
                        retry_at = tokio::time::Instant::now() + wait;
                    }
                }
                event = events.recv(), if open && self.queue.is_empty() => match event {
                    Some(event) => {
                        self.queue_calls(event);
                        retry_at = tokio::time::Instant::now();
                    }
                    None => open = false,
                },
            }
        }
    }

    /// The SDK calls an event stands for, queued.
    fn queue_calls(&mut self, event: FleetEvent) {
        let capacity = self.config.capacity;
        match event {
            FleetEvent::Listening => self.queue.extend([
                Call::PlayerCapacity(capacity),
                Call::CounterCapacity(capacity),
                Call::CounterCount(self.players.len() as i64),
                Call::Ready,
            ]),
            FleetEvent::PlayerConnected(id) => {
                self.players.insert(id.clone());
                let count = self.players.len() as i64;
                self.queue
                    .extend([Call::PlayerConnect(id), Call::CounterCount(count)]);
            }
            FleetEvent::PlayerDisconnected(id) => {
                self.players.remove(&id);
                let count = self.players.len() as i64;
                self.queue
                    .extend([Call::PlayerDisconnect(id), Call::CounterCount(count)]);
            }
            FleetEvent::AllMatchesOver => self.queue.push_back(Call::Shutdown),
        }
    }

    /// Makes the first queued call; `Some(wait)` when it must be made again after `wait`.
    async fn attempt(&mut self) -> Option<Duration> {
        let call = self.queue.front()?.clone();
        match self.call(&call).await {
            Ok(()) => {
                match call {
                    Call::Ready => info!("told Agones: Ready"),
                    Call::Shutdown => info!("told Agones: Shutdown"),
                    _ => debug!(?call, "Agones SDK call made"),
                }
                self.backoff.reset();
                self.queue.pop_front();
                None
            }
            Err(Failure::Refused(why)) => {
                warn!(?call, %why, "the Agones SDK server refused a call: dropped");
                self.queue.pop_front();
                None
            }
            Err(Failure::Unreachable(why)) => {
                let wait = self.backoff.next_wait();
                warn!(?call, %why, retry_in_ms = wait.as_millis() as u64, "Agones SDK call failed: retrying");
                Some(wait)
            }
        }
    }

    /// One call, given [`CALL_TIMEOUT`] to answer: an SDK server that takes the connection but
    /// never answers must not stop the calls and pings behind it.
    async fn call(&mut self, call: &Call) -> Result<(), Failure> {
        let counter = self.config.counter.clone();
        let sdk = self.sdk().await?;
        let done = tokio::time::timeout(CALL_TIMEOUT, async {
            match call {
                Call::PlayerCapacity(n) => sdk.alpha().clone().set_player_capacity(*n).await,
                Call::CounterCapacity(n) => {
                    sdk.beta().clone().set_counter_capacity(&counter, *n).await
                }
                Call::CounterCount(n) => sdk.beta().clone().set_counter_count(&counter, *n).await,
                Call::Ready => sdk.ready().await,
                Call::PlayerConnect(id) => sdk.alpha().clone().player_connect(id).await.map(drop),
                Call::PlayerDisconnect(id) => {
                    sdk.alpha().clone().player_disconnect(id).await.map(drop)
                }
                Call::Shutdown => sdk.shutdown().await,
            }
        })
        .await;
        match done {
            Ok(done) => done.map_err(failure),
            Err(_) => Err(Failure::Unreachable(format!(
                "no answer within {} s",
                CALL_TIMEOUT.as_secs()
            ))),
        }
    }

    /// The SDK client, connecting first if it is not yet.
    async fn sdk(&mut self) -> Result<&mut Sdk, Failure> {
        if self.sdk.is_none() {
            // `Sdk::new` itself asks the server for up to 30 s before it gives up.
            let sdk = Sdk::new(self.config.port, None)
                .await
                .map_err(|e| Failure::Unreachable(format!("cannot connect: {e}")))?;
            info!("connected to the Agones SDK server");
            self.sdk = Some(sdk);
        }
        Ok(self.sdk.as_mut().expect("connected above"))
    }

    /// One health ping. The SDK's health stream ends when its connection breaks; the next
    /// ping then starts a new one, on a connection the client makes again.
    fn ping(&mut self) {
        // Before the first connection there is no one to ping: the queued calls connect,
        // with their backoff.
        if self.sdk.is_none() {
            return;
        }
        match self.health.as_ref().map(|h| h.try_send(())) {
            Some(Ok(())) => {}
            Some(Err(TrySendError::Full(()))) => {
                debug!("the health stream is stalled: starting another");
                self.new_health_stream();
            }
            Some(Err(TrySendError::Closed(()))) | None => self.new_health_stream(),
        }
    }

    fn new_health_stream(&mut self) {
        if let Some(sdk) = &self.sdk {
            let health = sdk.health_check();
            if health.try_send(()).is_err() {
                debug!("the new health stream took no ping");
            }
            self.health = Some(health);
        }
    }
}

/// Sorts an SDK error: a transport failure (a status made on our side, from the error of the
/// connection) or an SDK server that says it is unavailable is worth another try; any other
/// status is the SDK server's answer (a feature gate off, a counter not declared) and would be
/// the same again.
fn failure(error: agones::errors::Error) -> Failure {
    use agones::errors::Error;
    use tonic::Code;
    let text = error_text(&error);
    match &error {
        Error::Rpc(status)
            if std::error::Error::source(status).is_some()
                || matches!(status.code(), Code::Unavailable | Code::DeadlineExceeded) =>
        {
            Failure::Unreachable(text)
        }
        Error::Rpc(_) | Error::InvalidUri(_) => Failure::Refused(text),
        Error::Transport(_) | Error::TimedOut(_) | Error::HealthPingConnectionFailure(_) => {
            Failure::Unreachable(text)
        }
    }
}

fn error_text(error: &agones::errors::Error) -> String {
    match error {
        agones::errors::Error::Rpc(status) => format!("{}: {}", status.code(), status.message()),
        other => other.to_string(),
    }
}
