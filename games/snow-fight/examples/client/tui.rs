//! The terminal player: the loop that runs the connection, reads the keys and draws, and what
//! each key does. What a frame shows is in `view`: the world as [`ClientView`] draws it (our
//! own player predicted, so it walks the moment an arrow is pressed; the others between the
//! last snapshots, 100 ms behind the server), 60 times a second whatever the snapshot rate.

mod view;

use std::io;
use std::time::{Duration, Instant};

use hopnet::ClientDriver;
use hopnet::Event;
use hopnet_snow_fight::Dialect;
use ratatui::DefaultTerminal;
use ratatui::crossterm::event::{self, Event as TermEvent, KeyCode, KeyEventKind, KeyModifiers};
use snow_fight::session::{ClientEvent, ClientView, GameClient};
use snow_fight::{Config, Dir, Entity, Input, ObjectState};

/// The terminal player's state.
pub struct Tui {
    /// The server's address or URL, as shown.
    server: String,
    game: GameClient,
    /// Our player predicted, the others between snapshots.
    view: ClientView,
    /// What the next frame shows.
    drawn: Vec<Entity>,
    config: Config,
    movement: Dir,
    sent_move: Dir,
    last_ping: Option<Instant>,
    message: String,
    closed: Option<String>,
}

impl Tui {
    /// A player of the server at `server`, which ticks `tick_rate` times a second; `deltas`:
    /// it asks for its snapshots as deltas; `scoped`: for scoped updates.
    pub fn new(
        server: String,
        dialect: Dialect,
        tick_rate: u32,
        deltas: bool,
        scoped: bool,
    ) -> Tui {
        let game = GameClient::new().with_dialect(dialect);
        let game = if deltas { game.with_deltas() } else { game };
        Tui {
            game: if scoped { game.with_scoped() } else { game },
            view: ClientView::new(Config::for_tick_rate(tick_rate)),
            drawn: Vec::new(),
            config: Config::for_tick_rate(tick_rate),
            movement: Dir::NONE,
            sent_move: Dir::NONE,
            last_ping: None,
            message: format!("connecting to {server}..."),
            server,
            closed: None,
        }
    }

    /// Plays on `client`, over whichever carrier it drives.
    pub fn run<C: ClientDriver<Error: std::error::Error + Send + Sync + 'static>>(
        &mut self,
        terminal: &mut DefaultTerminal,
        client: &mut C,
    ) -> io::Result<()> {
        let mut last_draw = Instant::now() - Duration::from_secs(1);
        loop {
            client
                .poll(Duration::from_millis(5))
                .map_err(io::Error::other)?;
            while let Some(event) = client.poll_event() {
                let conn = client.machine();
                match event {
                    Event::Connected => {
                        self.message = "connected; joining...".into();
                        self.game.send_init(conn);
                    }
                    Event::Message { bytes, .. } => {
                        let now = Instant::now();
                        let event = self.game.handle(&bytes, now);
                        if let Some(event) = &event {
                            self.view.observe(&self.game, event, now);
                        }
                        match event {
                            Some(ClientEvent::Joined(p)) => {
                                self.message = format!("joined as player {p}")
                            }
                            Some(ClientEvent::GameOver(result)) => {
                                self.message = if result.won {
                                    "You WON the round!"
                                } else {
                                    "You lost the round."
                                }
                                .into();
                                self.movement = Dir::NONE;
                            }
                            Some(ClientEvent::Error(e)) => self.message = format!("server: {e}"),
                            _ => {}
                        }
                    }
                    Event::Disconnected { reason } => {
                        self.closed = Some(format!("disconnected: {reason:?}"))
                    }
                    Event::Acknowledged { .. } | Event::Lost { .. } => {}
                }
            }
            if let Some(why) = self.closed.take() {
                return Err(io::Error::other(why));
            }
            let now = Instant::now();
            self.game.send_requests(client.machine(), now);
            // Pings only once joined, as BotPlayer::maybe_ping explains.
            if client.machine().is_connected()
                && self.game.player().is_some()
                && self
                    .last_ping
                    .is_none_or(|t| now - t >= Duration::from_secs(1))
            {
                self.last_ping = Some(now);
                self.game.send_ping(client.machine(), now);
            }
            while event::poll(Duration::ZERO)? {
                if let TermEvent::Key(key) = event::read()?
                    && key.kind != KeyEventKind::Release
                {
                    let ctrl_c = key.code == KeyCode::Char('c')
                        && key.modifiers.contains(KeyModifiers::CONTROL);
                    if ctrl_c || matches!(key.code, KeyCode::Char('q') | KeyCode::Esc) {
                        return Ok(());
                    }
                    if let Some(input) = self.key(key.code) {
                        self.game.send_input(client.machine(), input);
                        self.view.sent(&input, Instant::now());
                    }
                }
            }
            if self.movement != self.sent_move && self.game.player().is_some() {
                self.sent_move = self.movement;
                let input = Input::Move(self.movement);
                self.game.send_input(client.machine(), input);
                self.view.sent(&input, Instant::now());
            }
            client.poll(Duration::ZERO).map_err(io::Error::other)?;
            if last_draw.elapsed() >= Duration::from_millis(16) {
                last_draw = Instant::now();
                self.drawn = self.view.view(last_draw);
                terminal.draw(|frame| self.draw(frame))?;
            }
        }
    }

    /// What a key does: walking changes `movement`; `b` and space make an action.
    fn key(&mut self, code: KeyCode) -> Option<Input> {
        let arrow = match code {
            KeyCode::Up => Some(Dir::NORTH),
            KeyCode::Down => Some(Dir::SOUTH),
            KeyCode::Left => Some(Dir::WEST),
            KeyCode::Right => Some(Dir::EAST),
            _ => None,
        };
        if let Some(d) = arrow {
            let opposite = match d {
                Dir::NORTH => Dir::SOUTH,
                Dir::SOUTH => Dir::NORTH,
                Dir::WEST => Dir::EAST,
                _ => Dir::WEST,
            };
            self.movement = if self.movement == opposite {
                Dir::NONE
            } else {
                d
            };
            return None;
        }
        let me = *self.game.me()?;
        match code {
            KeyCode::Char('s') => {
                self.movement = Dir::NONE;
                None
            }
            KeyCode::Char('b') => {
                let target = self
                    .game
                    .entities()
                    .iter()
                    .filter_map(|e| {
                        let o = e.object()?;
                        (o.breakable && o.state == ObjectState::Ground).then_some((e.id, o.pos))
                    })
                    .min_by(|a, b| me.pos.dist(a.1).total_cmp(&me.pos.dist(b.1)));
                match target {
                    Some((id, _)) => {
                        self.message = format!("breaking {id} (stand next to it)");
                        Some(Input::Break(Some(id)))
                    }
                    None => {
                        self.message = "nothing to break".into();
                        None
                    }
                }
            }
            KeyCode::Char(' ') => {
                if me.holding.is_none() {
                    self.message = "you hold nothing: break something first (b)".into();
                    return None;
                }
                let enemy = self
                    .game
                    .entities()
                    .iter()
                    .filter_map(Entity::player)
                    .filter(|p| p.owner != me.owner)
                    .min_by(|a, b| me.pos.dist(a.pos).total_cmp(&me.pos.dist(b.pos)));
                match enemy {
                    Some(p) => {
                        self.message = format!("throwing at player {}", p.owner);
                        Some(Input::Throw(p.pos))
                    }
                    None => {
                        self.message = "nobody to throw at".into();
                        None
                    }
                }
            }
            _ => None,
        }
    }
}
