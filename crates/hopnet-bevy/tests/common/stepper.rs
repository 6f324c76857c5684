//! One stepper for every test: a server app and client apps, each as a Bevy user builds one
//! (`MinimalPlugins`, manual time), updated together a frame at a time, in virtual time (a
//! number of frames) or in real time (frames a few milliseconds apart, for real sockets).

use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use hopnet_bevy::prelude::*;

/// Errors seen, as text.
#[derive(Resource, Debug, Default)]
pub struct Errors(pub Vec<String>);

fn record_errors(mut errors: MessageReader<NetworkError>, mut seen: ResMut<Errors>) {
    seen.0.extend(errors.read().map(ToString::to_string));
}

/// An app as a test builds one: `MinimalPlugins`, the time stepped by `tick` a frame, its
/// errors recorded in [`Errors`] (none in an app without the plugins).
pub fn app(tick: Duration) -> App {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        .insert_resource(TimeUpdateStrategy::ManualDuration(tick))
        .add_message::<NetworkError>()
        .init_resource::<Errors>()
        .add_systems(Last, record_errors);
    app
}

/// A server app and client apps, updated together, a frame at a time.
pub struct Stepper {
    pub server: App,
    pub clients: Vec<App>,
}

impl Stepper {
    pub fn new(server: App, clients: Vec<App>) -> Stepper {
        Stepper { server, clients }
    }

    /// Every app, the server's first.
    pub fn apps(&self) -> impl Iterator<Item = &App> {
        std::iter::once(&self.server).chain(&self.clients)
    }

    /// Every app, the server's first.
    pub fn apps_mut(&mut self) -> impl Iterator<Item = &mut App> {
        std::iter::once(&mut self.server).chain(&mut self.clients)
    }

    /// One frame: the server's update, then each client's.
    pub fn frame(&mut self) {
        for app in self.apps_mut() {
            app.update();
        }
    }

    /// `n` frames.
    pub fn frames(&mut self, n: u32) {
        for _ in 0..n {
            self.frame();
        }
    }

    /// Frames until `done` (or `limit` frames); whether `done` came true.
    pub fn run_until(&mut self, limit: u32, mut done: impl FnMut(&mut Stepper) -> bool) -> bool {
        for _ in 0..limit {
            self.frame();
            if done(self) {
                return true;
            }
        }
        false
    }

    /// Frames a few milliseconds of real time apart until `done`, for at most `limit`: for
    /// transports on real sockets; whether `done` came true.
    pub fn run_for(&mut self, limit: Duration, mut done: impl FnMut(&mut Stepper) -> bool) -> bool {
        let end = Instant::now() + limit;
        while Instant::now() < end {
            self.frame();
            if done(self) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        false
    }

    /// Whether the server has every client and each client is connected.
    pub fn all_connected(&self) -> bool {
        self.server
            .world()
            .resource::<NetServer>()
            .clients()
            .count()
            == self.clients.len()
            && self
                .clients
                .iter()
                .all(|c| c.world().resource::<NetClient>().is_connected())
    }

    /// The server's id of client `i` (matched by port: a client binds the unspecified address).
    pub fn client_id(&self, i: usize) -> ConnectionId {
        let port = self.clients[i]
            .world()
            .resource::<NetClient>()
            .local_addr()
            .unwrap()
            .port();
        let server = self.server.world().resource::<NetServer>();
        let id = server
            .clients()
            .find(|&id| server.client_address(id).unwrap().port() == port);
        id.expect("connected")
    }

    /// Asserts that no app saw an error.
    pub fn assert_no_errors(&self) {
        for app in self.apps() {
            let errors = &app.world().resource::<Errors>().0;
            assert!(errors.is_empty(), "{errors:?}");
        }
    }

    /// The errors `app` saw.
    pub fn errors(app: &App) -> &[String] {
        &app.world().resource::<Errors>().0
    }
}
