//! Sessions of the real hopnet machines in the simulator, every datagram kept: the conformance
//! vectors' messages sent both ways, and snapshots big enough to be split into chunks.

use super::capture::Datagram;
use hopnet_proto::Machine;
use hopnet_proto::sim::SimNetwork;
use hopnet_proto::{ConnectionId, Delivery, Event};
use std::time::Duration;

/// A message the test sends, and the type `rabbit-msg` decodes it as.
#[derive(Debug, Clone)]
pub struct Sent {
    pub ty: &'static str,
    pub bytes: Vec<u8>,
    pub delivery: Delivery,
}

/// The conformance vectors' messages, `ServerMessage`s and `ClientMessage`s.
pub fn vectors() -> Vec<Sent> {
    test_vectors::load("messages.json")
        .into_iter()
        .enumerate()
        .map(|(i, v)| Sent {
            ty: if v["type"] == "ServerMessage" {
                "ServerMessage"
            } else {
                "ClientMessage"
            },
            bytes: test_vectors::unhex(v["hex"].as_str().unwrap()),
            // Every other one unreliable: both kinds of chunk.
            delivery: if i % 2 == 0 {
                Delivery::Reliable
            } else {
                Delivery::Unreliable
            },
        })
        .collect()
}

/// A snapshot of `n` entities (players, trees, mushrooms and the dead), encoded.
pub fn big_snapshot(n: usize) -> Vec<u8> {
    use serde_json::json;
    let entities: Vec<_> = (0..n)
        .map(|i| {
            let f = i as f32;
            let kind = match i % 4 {
                0 => json!({"Player": {"position": {"x": f * 0.25, "y": -1.5, "z": 1.0}, "movement": 5, "holding": null, "breaking": i, "owner": i, "health": 3, "max_health": 100}}),
                1 => json!({"Object": {"position": {"x": 1e-7, "y": 123456.78, "z": 0.5}, "kind": "Tree", "durability": 2.5, "health": i, "max_health": 7}}),
                2 => json!({"Object": {"position": {"x": -0.0, "y": 3e20, "z": f / 3.0}, "kind": "Mushroom", "durability": null, "health": 0, "max_health": 1}}),
                _ => json!("Dead"),
            };
            json!({"id": i * 7919, "kind": kind})
        })
        .collect();
    let msg = json!({"Event": {"time": 123456, "kind": {"Snapshot": {"entities": entities}}}});
    let value: hopnet_snow_fight::ServerMessage =
        serde_json::from_value(msg).expect("a snapshot in JSON");
    hopnet_codec::to_bytes(&value).unwrap()
}

/// Runs `net` for `dt`, in steps of a millisecond, keeping every datagram with its time.
pub fn run<S: Machine, C: Machine>(
    net: &mut SimNetwork<S, C>,
    dt: Duration,
    out: &mut Vec<Datagram>,
) {
    let end = net.elapsed() + dt;
    while net.elapsed() < end {
        net.step(Duration::from_millis(1));
        let time = net.elapsed();
        for batch in net.take_batches() {
            for d in batch.datagrams() {
                out.push(Datagram {
                    time,
                    src: batch.from,
                    dst: batch.transmit.destination,
                    bytes: d.to_vec(),
                });
            }
        }
    }
}

/// The server's connection once the client connected, and the messages each side received.
pub struct Received {
    pub by_server: Vec<Vec<u8>>,
    pub by_client: Vec<Vec<u8>>,
}

/// Connects one plain client, sends `messages` each its way, and returns the capture and what
/// the machines received.
pub fn plain_session(config: hopnet_proto::Config, messages: &[Sent]) -> (Vec<Datagram>, Received) {
    let link = hopnet_proto::sim::LinkConfig {
        delay: Duration::from_millis(5),
        ..Default::default()
    };
    let mut net = SimNetwork::new(3, config.clone(), link);
    net.record_batches(true);
    let client = net.add_client(config);
    let mut datagrams = Vec::new();
    let mut id: Option<ConnectionId> = None;
    let mut received = Received {
        by_server: Vec::new(),
        by_client: Vec::new(),
    };
    let drain = |net: &mut SimNetwork, id: &mut Option<ConnectionId>, r: &mut Received| {
        while let Some(e) = net.server().poll_event() {
            match e.event {
                Event::Connected => *id = Some(e.connection),
                Event::Message { bytes, .. } => r.by_server.push(bytes),
                _ => {}
            }
        }
        while let Some(e) = net.client(client).poll_event() {
            if let Event::Message { bytes, .. } = e {
                r.by_client.push(bytes);
            }
        }
    };
    for _ in 0..200 {
        run(&mut net, Duration::from_millis(5), &mut datagrams);
        drain(&mut net, &mut id, &mut received);
        if id.is_some() && net.client(client).is_connected() {
            break;
        }
    }
    let id = id.expect("the client connects");
    // Let the extensions' offer, accept and pings settle first, if any.
    run(&mut net, Duration::from_millis(100), &mut datagrams);
    for m in messages {
        if m.ty == "ServerMessage" {
            net.server().send(id, &m.bytes, m.delivery).unwrap();
        } else {
            net.client(client).send(&m.bytes, m.delivery).unwrap();
        }
        run(&mut net, Duration::from_millis(2), &mut datagrams);
    }
    run(&mut net, Duration::from_millis(300), &mut datagrams);
    drain(&mut net, &mut Some(id), &mut received);
    (datagrams, received)
}
