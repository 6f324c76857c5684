//! A game client: a terminal view you play with the keyboard, or (`--bot`) a bot.
//!
//! ```text
//! cargo run --release --example server -- --bind 127.0.0.1:7000
//! cargo run --release --example client -- --connect 127.0.0.1:7000
//! cargo run --release --example client -- --connect 127.0.0.1:7000 --bot
//! cargo run --release --example client -- --connect 127.0.0.1:7000 --dialect original
//! ```
//!
//! It follows the spec's client diagram: connect, send `Init`, keep a local state from `Connect`
//! and every newer `Snapshot`, ping once a second, send actions.
//!
//! `--dialect original` encodes its messages as the spec author's own client does (a 1-bit
//! `ClientMessage` tag instead of the spec's `u32`), to play on that implementation's server;
//! our server takes both.
//!
//! Keys: arrows walk (the player keeps walking; the opposite arrow or `s` stops), `b` breaks the
//! nearest breakable object (stand next to it), space throws what you hold at the nearest
//! player, `q` or Esc quits.

mod common;

use std::io;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use clap::Parser;
use game_messages::Dialect;
use netgame::net::play_bot;
use netgame::session::{BotPlayer, ClientEvent, GameClient};
use netgame::{Config, Dir, Entity, EntityKind, Input, ObjectKind, ObjectState};
use netproto::Event;
use netproto::io::std::Client;
use ratatui::DefaultTerminal;
use ratatui::crossterm::event::{self, Event as TermEvent, KeyCode, KeyEventKind, KeyModifiers};
use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

#[derive(Parser, Debug)]
#[command(about = "A game client: a terminal view, or a bot")]
struct Args {
    /// The server's address.
    #[arg(long, default_value = "127.0.0.1:7000")]
    connect: SocketAddr,
    /// Play by itself instead of showing the terminal view.
    #[arg(long)]
    bot: bool,
    /// With `--bot`: stop after this many rounds (default: play forever).
    #[arg(long)]
    rounds: Option<usize>,
    /// The server's tick rate (the bot uses it to lead its throws).
    #[arg(long, default_value_t = 60)]
    tick_rate: u32,
    /// Seed of the bot's choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// How to encode what the client sends: `spec` (the spec's text) or `original` (the spec
    /// author's own implementation, whose server understands only that).
    #[arg(long, default_value_t = Dialect::Spec, value_name = "spec|original")]
    dialect: Dialect,
}

fn main() {
    let args = Args::parse();
    let result = if args.bot {
        run_bot(&args)
    } else {
        run_tui(&args)
    };
    if let Err(e) = result {
        eprintln!("client: {e}");
        std::process::exit(1);
    }
}

fn run_bot(args: &Args) -> io::Result<()> {
    common::init_logging("info");
    let mut player =
        BotPlayer::new(Config::for_tick_rate(args.tick_rate), args.seed).with_dialect(args.dialect);
    let mut reported = 0;
    let stats = play_bot(
        args.connect,
        netproto::Config::default(),
        &mut player,
        |p, _| {
            while reported < p.results.len() {
                let won = p.results[reported];
                reported += 1;
                let s = p.client.stats();
                tracing::info!(
                    round = reported,
                    result = if won { "won" } else { "lost" },
                    rtt_p50_ms = s.rtt_quantile(0.5).map(|d| d.as_secs_f64() * 1000.0),
                    snapshots = s.snapshots,
                    lost = s.snapshots_lost,
                    "game over"
                );
            }
            args.rounds.is_some_and(|n| p.results.len() >= n)
        },
    )
    .map_err(io::Error::other)?;
    let won = player.results.iter().filter(|w| **w).count();
    println!(
        "bot: player {:?}, {} rounds ({} won), {} retransmissions, {} bytes up, {} bytes down",
        player.client.player(),
        player.results.len(),
        won,
        stats.retransmissions,
        stats.bytes_sent,
        stats.bytes_received
    );
    Ok(())
}

fn run_tui(args: &Args) -> io::Result<()> {
    let mut client =
        Client::connect(args.connect, netproto::Config::default()).map_err(io::Error::other)?;
    let mut terminal = ratatui::init();
    let result = Tui::new(args.connect, args.dialect).run(&mut terminal, &mut client);
    // Restore the terminal on every way out (a panic is covered by ratatui's hook).
    ratatui::restore();
    let _ = client.close();
    result
}

/// The terminal player's state.
struct Tui {
    server: SocketAddr,
    game: GameClient,
    config: Config,
    movement: Dir,
    sent_move: Dir,
    last_ping: Option<Instant>,
    message: String,
    closed: Option<String>,
}

impl Tui {
    fn new(server: SocketAddr, dialect: Dialect) -> Tui {
        Tui {
            server,
            game: GameClient::new().with_dialect(dialect),
            config: Config::default(),
            movement: Dir::NONE,
            sent_move: Dir::NONE,
            last_ping: None,
            message: format!("connecting to {server}..."),
            closed: None,
        }
    }

    fn run(&mut self, terminal: &mut DefaultTerminal, client: &mut Client) -> io::Result<()> {
        let mut last_draw = Instant::now() - Duration::from_secs(1);
        loop {
            client
                .poll(Duration::from_millis(5))
                .map_err(io::Error::other)?;
            while let Some(event) = client.poll_event() {
                let conn = client.connection();
                match event {
                    Event::Connected => {
                        self.message = "connected; joining...".into();
                        self.game.send_init(conn);
                    }
                    Event::Message { bytes, .. } => {
                        match self.game.handle(&bytes, Instant::now()) {
                            Some(ClientEvent::Joined(p)) => {
                                self.message = format!("joined as player {p}")
                            }
                            Some(ClientEvent::GameOver(won)) => {
                                self.message = if won {
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
                }
            }
            if let Some(why) = self.closed.take() {
                return Err(io::Error::other(why));
            }
            let now = Instant::now();
            // Pings only once joined, as BotPlayer::maybe_ping explains.
            if client.connection().is_connected()
                && self.game.player().is_some()
                && self
                    .last_ping
                    .is_none_or(|t| now - t >= Duration::from_secs(1))
            {
                self.last_ping = Some(now);
                self.game.send_ping(client.connection(), now);
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
                        self.game.send_input(client.connection(), input);
                    }
                }
            }
            if self.movement != self.sent_move && self.game.player().is_some() {
                self.sent_move = self.movement;
                self.game
                    .send_input(client.connection(), Input::Move(self.movement));
            }
            client.poll(Duration::ZERO).map_err(io::Error::other)?;
            if last_draw.elapsed() >= Duration::from_millis(33) {
                last_draw = Instant::now();
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

    fn draw(&self, frame: &mut ratatui::Frame) {
        let [map_area, status_area, help_area] = Layout::vertical([
            Constraint::Min(3),
            Constraint::Length(1),
            Constraint::Length(1),
        ])
        .areas(frame.area());
        let title = match self.game.player() {
            Some(p) => format!(" netgame: player {p} on {} ", self.server),
            None => format!(" netgame: {} ", self.server),
        };
        let block = Block::default().borders(Borders::ALL).title(title);
        let inner = block.inner(map_area);
        frame.render_widget(block, map_area);
        frame.render_widget(
            Paragraph::new(self.map_lines(inner.width, inner.height)),
            inner,
        );
        frame.render_widget(Paragraph::new(self.status_line()), status_area);
        frame.render_widget(
            Paragraph::new("arrows: walk (opposite arrow or s: stop)  b: break nearest  space: throw at nearest player  q: quit")
                .style(Style::default().fg(Color::DarkGray)),
            help_area,
        );
    }

    /// The world from above, north up, scaled to fit (a cell is twice as tall as wide).
    fn map_lines(&self, width: u16, height: u16) -> Vec<Line<'static>> {
        let (w, h) = (self.config.width, self.config.height);
        let sy = (height as f32 / h).min(width as f32 / (2.0 * w)).max(0.05);
        let sx = 2.0 * sy;
        let cols = ((w * sx).ceil() as usize).clamp(1, width.max(1) as usize);
        let rows = ((h * sy).ceil() as usize).clamp(1, height.max(1) as usize);
        let mut grid = vec![vec![(' ', Style::default()); cols]; rows];
        let mut put = |x: f32, y: f32, c: char, style: Style| {
            let col = ((x * sx) as usize).min(cols - 1);
            let row = (((h - y) * sy) as usize).min(rows - 1);
            grid[row][col] = (c, style);
        };
        let me = self.game.player();
        // Objects first, players on top.
        for e in self.game.entities() {
            if let EntityKind::Object(o) = &e.kind {
                let (c, color) = match (o.state, o.kind, o.breakable) {
                    (ObjectState::Held { .. }, _, _) => continue,
                    (ObjectState::Flying { .. }, _, _) => ('*', Color::Yellow),
                    (_, ObjectKind::Tree, false) => ('T', Color::Green),
                    (_, ObjectKind::Tree, true) => ('t', Color::LightGreen),
                    (_, ObjectKind::Mushroom, _) => ('m', Color::Magenta),
                };
                put(o.pos.x, o.pos.y, c, Style::default().fg(color));
            }
        }
        for p in self.game.entities().iter().filter_map(Entity::player) {
            let low = p.health * 3 < p.max_health;
            let (c, mut style) = if Some(p.owner) == me {
                (
                    '@',
                    Style::default()
                        .fg(Color::Yellow)
                        .add_modifier(Modifier::BOLD),
                )
            } else {
                (
                    char::from_digit(p.owner % 10, 10).unwrap_or('P'),
                    Style::default().fg(Color::Cyan),
                )
            };
            if low {
                style = style.fg(Color::Red);
            }
            put(p.pos.x, p.pos.y, c, style);
        }
        grid.into_iter()
            .map(|row| {
                Line::from(
                    row.into_iter()
                        .map(|(c, s)| Span::styled(c.to_string(), s))
                        .collect::<Vec<_>>(),
                )
            })
            .collect()
    }

    fn status_line(&self) -> Line<'static> {
        let s = self.game.stats();
        let mut parts = Vec::new();
        match (self.game.player(), self.game.me()) {
            (Some(_), Some(me)) => {
                parts.push(format!("health {}/{}", me.health, me.max_health));
                if let Some(h) = me.holding {
                    parts.push(format!("holding {h}"));
                }
                if let Some(b) = me.breaking {
                    let left = self
                        .game
                        .entities()
                        .iter()
                        .find(|e| e.id == b)
                        .and_then(Entity::object)
                        .map_or(0.0, |o| o.durability);
                    parts.push(format!("breaking {b} ({left:.0} left)"));
                }
            }
            (Some(_), None) => parts.push("dead: wait for the next round".into()),
            (None, _) => {}
        }
        let alive = self
            .game
            .entities()
            .iter()
            .filter_map(Entity::player)
            .count();
        parts.push(format!("{alive} alive"));
        parts.push(match s.rtts.last() {
            Some(rtt) => format!("RTT {:.0} ms", rtt.as_secs_f64() * 1000.0),
            None => "RTT -".into(),
        });
        parts.push(format!("loss {:.1}%", s.loss() * 100.0));
        parts.push(format!("won {} lost {}", s.won, s.lost));
        parts.push(self.message.clone());
        Line::from(parts.join(" | ")).style(Style::default().add_modifier(Modifier::REVERSED))
    }
}
