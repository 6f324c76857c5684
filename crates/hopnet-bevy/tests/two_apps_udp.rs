//! A server app and two client apps, as Bevy users write them, over real loopback UDP
//! (hopnet's blocking drivers, each dropping 10 % of what it sends): every delivery mode,
//! both ways, arrives as it promises. The ends speak the spec's wire (no extensions), so the
//! senders keep the order of ordered messages, and a sequenced message is an unreliable one.

mod common;

use std::time::Duration;

use common::modes::{check_both_ways, reliable_all_arrived, start};
use common::seed::lossy;
use common::{Stepper, client_app, server_app};
use hopnet::{Client, Server};
use hopnet_bevy::{NetClient, NetServer};

const TICK: Duration = Duration::from_millis(16);
const FRAMES: u32 = 60;

#[test]
fn every_delivery_mode_keeps_its_promise_over_loopback_udp() {
    let config = hopnet::Config::default();
    let mut server = Server::bind("127.0.0.1:0", config.clone()).unwrap();
    server.set_impairment(lossy(0.1, 1));
    let addr = server.local_addr().unwrap();
    let clients = (0..2)
        .map(|i| {
            let mut client = Client::connect(addr, config.clone()).unwrap();
            client.set_impairment(lossy(0.1, 10 + i));
            client
        })
        .collect();
    every_mode_both_ways(server, clients);
}

/// The same apps in secure mode: only the transports change (a secure server, clients with
/// connect tokens), and every delivery mode still keeps its promise through 10 % loss.
#[test]
fn every_delivery_mode_keeps_its_promise_in_secure_mode() {
    use hopnet::secure::{ConnectTokenBuilder, Key};
    const PROTOCOL_ID: u64 = 0x6265_7679;

    let config = hopnet::Config::default();
    let key = Key::generate();
    let mut server =
        Server::bind_secure("127.0.0.1:0", config.clone(), PROTOCOL_ID, key.clone()).unwrap();
    server.set_impairment(lossy(0.1, 3));
    let addr = server.local_addr().unwrap();
    let clients = (0..2)
        .map(|i| {
            let token = ConnectTokenBuilder::new(PROTOCOL_ID, 100 + i, [addr])
                .issue(&key, std::time::SystemTime::now())
                .unwrap();
            let mut client = Client::connect_secure(token, config.clone()).unwrap();
            client.set_impairment(lossy(0.1, 20 + i));
            client
        })
        .collect();
    every_mode_both_ways(server, clients);
}

/// A server app on `server` and a client app on each of `clients`: they connect, exchange
/// every delivery mode both ways, and each mode keeps its promise.
fn every_mode_both_ways(server: Server, clients: Vec<Client>) {
    let server = server_app(TICK, NetServer::new(server), FRAMES);
    let clients = clients
        .into_iter()
        .map(|client| client_app(TICK, NetClient::new(client), FRAMES))
        .collect();
    let mut stepper = Stepper::new(server, clients);
    assert!(stepper.run_for(Duration::from_secs(10), |s| s.all_connected()));
    start(&mut stepper);
    assert!(
        stepper.run_for(Duration::from_secs(60), |s| reliable_all_arrived(s)),
        "reliable messages missing after a minute"
    );
    stepper.run_for(Duration::from_millis(200), |_| false);

    // To a client, most unreliable messages arrive; from one, reliable ones do.
    let to_clients = stepper.clients.len();
    let mut pair = 0;
    check_both_ways(&stepper, false, |counts| {
        if pair < to_clients {
            let (unreliable, sent) = counts["Unreliable"];
            assert!(unreliable * 2 > sent, "{counts:?}");
        } else {
            assert!(counts["Reliable"].0 > 0, "{counts:?}");
        }
        pair += 1;
    });
}
