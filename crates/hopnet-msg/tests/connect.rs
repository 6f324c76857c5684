//! From the export to the handshake: the fingerprints of two versions of a game's schema,
//! given to two hopnet peers in the simulator, end the connection naming the type that
//! changed; the same version connects.

mod common;

use std::time::Duration;

use hopnet_codec::Encode;
use hopnet_msg::export::Schema;
use hopnet_proto::sim::{LinkConfig, SimNetwork};
use hopnet_proto::{Config, DisconnectReason, Event, SchemaFingerprint};

use common::versions::{v1, v2};

fn config<T: Encode>() -> Config {
    let doc = Schema::new().message::<T>("Message").document().unwrap();
    let prints = doc.fingerprints().unwrap();
    let schema = SchemaFingerprint::new(prints.into_iter().map(|p| (p.name, p.hash))).unwrap();
    Config::builder()
        .extensions(true)
        .schema(schema)
        .build()
        .unwrap()
}

/// The reasons each side's connection ended within a second.
fn connect(server: Config, client: Config) -> (Vec<DisconnectReason>, Vec<DisconnectReason>) {
    let link = LinkConfig {
        delay: Duration::from_millis(5),
        ..LinkConfig::default()
    };
    let mut net = SimNetwork::new(3, server, link);
    net.add_client(client);
    net.step(Duration::from_secs(1));
    let reason = |e: Event| match e {
        Event::Disconnected { reason } => Some(reason),
        _ => None,
    };
    let client: Vec<_> = std::iter::from_fn(|| net.client(0).poll_event())
        .filter_map(reason)
        .collect();
    let server: Vec<_> = std::iter::from_fn(|| net.server().poll_event())
        .filter_map(|e| reason(e.event))
        .collect();
    (client, server)
}

#[test]
fn two_versions_of_a_schema_are_told_apart_at_connect_time() {
    let (client, server) = connect(config::<v1::Message>(), config::<v2::Message>());
    for side in [&client, &server] {
        let [DisconnectReason::SchemaMismatch(m)] = side.as_slice() else {
            panic!("{side:?}")
        };
        assert_eq!(m.type_name(), Some("Point"));
    }
    let (client, server) = connect(config::<v1::Message>(), config::<v1::Message>());
    assert!(
        client.is_empty() && server.is_empty(),
        "{client:?} {server:?}"
    );
}
