//! The Snow Fight bot as a headless Bevy app: it joins a Snow Fight server (the game's
//! `server` example, or any server of the spec), plays its rounds with the game's own bot
//! logic, and exits.
//!
//! ```sh
//! cargo run --release -p snow-fight --example server -- --bind 127.0.0.1:7777
//! cargo run --release -p hopnet-bevy --example bevy_bot -- --connect 127.0.0.1:7777 --rounds 1
//! ```
//!
//! The server is no Bevy app: it speaks the spec's messages as they are, a `ClientMessage`
//! each way up and a `ServerMessage` down, so the plugin frames them untagged
//! (`Framing::Untagged`). Prints `bevy_bot: player ID` once it has joined, a line per round,
//! and exits 0 after its rounds (1 if the connection ends first).

use std::net::SocketAddr;
use std::time::Duration;

use bevy::app::ScheduleRunnerPlugin;
use bevy::prelude::*;
use clap::Parser;
use hopnet::Delivery;
use hopnet_bevy::Framing;
use hopnet_bevy::prelude::*;
use hopnet_snow_fight::{ClientMessage, EventKind, GameOver, ResponseKind, ServerMessage};
use snow_fight::bot::Bot;
use snow_fight::snapshot::{from_snapshot, to_action};

#[derive(Parser, Debug)]
#[command(about = "The Snow Fight bot as a headless Bevy app")]
struct Args {
    /// The server's address.
    #[arg(long)]
    connect: SocketAddr,
    /// Rounds to play before leaving.
    #[arg(long, default_value_t = 1)]
    rounds: usize,
    /// The server's tick rate (the bot leads its throws by it).
    #[arg(long, default_value_t = 60)]
    tick_rate: u32,
    /// Seed of the bot's detours.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// The bot's view of the game.
#[derive(Resource)]
struct Play {
    config: snow_fight::Config,
    seed: u64,
    rounds: usize,
    bot: Option<Bot>,
    /// The tick of the newest snapshot applied.
    latest: Option<u32>,
    results: Vec<bool>,
}

fn main() -> AppExit {
    let args = Args::parse();
    let client = match NetClient::connect(args.connect, hopnet::Config::default()) {
        Ok(client) => client,
        Err(e) => {
            eprintln!("bevy_bot: cannot connect to {}: {e}", args.connect);
            return AppExit::error();
        }
    };
    App::new()
        .add_plugins((
            MinimalPlugins.set(ScheduleRunnerPlugin::run_loop(Duration::from_secs_f64(
                1.0 / 120.0,
            ))),
            HopnetClientPlugin,
        ))
        .insert_resource(client)
        .insert_resource(Play {
            config: snow_fight::Config::for_tick_rate(args.tick_rate),
            seed: args.seed,
            rounds: args.rounds.max(1),
            bot: None,
            latest: None,
            results: Vec::new(),
        })
        .set_framing(Framing::Untagged)
        // Requests and actions are reliable (a lost `Move` would leave the player walking);
        // the server sends snapshots unreliably and responses reliably, as it chooses.
        .add_client_message::<ClientMessage>(Delivery::Reliable)
        .add_server_message::<ServerMessage>(Delivery::Unreliable)
        .add_systems(
            Update,
            (
                join.run_if(client_just_connected),
                play,
                give_up.run_if(client_just_disconnected),
            ),
        )
        .run()
}

/// Asks to join the round.
fn join(mut out: MessageWriter<ToServer<ClientMessage>>) {
    out.write(ToServer::new(ClientMessage::init(1u32)));
}

/// Reads what the server says; answers each newer snapshot with the bot's actions.
fn play(
    mut play: ResMut<Play>,
    mut from_server: MessageReader<FromServer<ServerMessage>>,
    mut out: MessageWriter<ToServer<ClientMessage>>,
    mut client: ResMut<NetClient>,
    mut exit: MessageWriter<AppExit>,
) {
    let play = &mut *play;
    for FromServer { message } in from_server.read() {
        match message {
            ServerMessage::Response(response) => match &response.kind {
                ResponseKind::Connect(connect) => {
                    let player = connect.player.0;
                    println!("bevy_bot: player {player}");
                    play.bot = Some(Bot::new(player, play.seed));
                }
                ResponseKind::Error(e) => eprintln!("bevy_bot: the server refused: {e}"),
                ResponseKind::Pong => {}
            },
            ServerMessage::Event(event) => match &event.kind {
                EventKind::Snapshot(snapshot) => {
                    // Snapshots come unreliably: an older one that arrives late is ignored.
                    if play
                        .latest
                        .is_some_and(|t| event.time.wrapping_sub(t) >= 1 << 31)
                    {
                        continue;
                    }
                    play.latest = Some(event.time);
                    let Some(bot) = &mut play.bot else { continue };
                    for input in bot.think(&from_snapshot(snapshot), &play.config) {
                        out.write(ToServer::new(ClientMessage::Action(to_action(input))));
                    }
                }
                EventKind::GameOver(result) => {
                    let won = *result == GameOver::Won;
                    play.results.push(won);
                    println!(
                        "bevy_bot: round {} {}",
                        play.results.len(),
                        if won { "won" } else { "lost" }
                    );
                    if let Some(bot) = &mut play.bot {
                        bot.reset();
                    }
                    if play.results.len() >= play.rounds {
                        // Leave: the plugin sends the connection's END as the app exits.
                        client.disconnect();
                        exit.write(AppExit::Success);
                    }
                }
            },
        }
    }
}

/// The connection ended before the rounds were played.
fn give_up(client: Res<NetClient>, play: Res<Play>, mut exit: MessageWriter<AppExit>) {
    if play.results.len() < play.rounds {
        eprintln!("bevy_bot: disconnected: {:?}", client.state());
        exit.write(AppExit::error());
    }
}
