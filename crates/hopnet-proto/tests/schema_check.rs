//! The schema check at connect time (PROTOCOL.md, "The schema check"), two machines in the
//! simulator: schemas that differ in one type end the connection on both sides naming it;
//! the same schemas, or a schema on one side only, connect as before; an end without a
//! schema sends the offer's 16 bytes unchanged.

use std::time::Duration;

use hopnet_proto::sim::{LinkConfig, SimNetwork};
use hopnet_proto::{Config, Delivery, DisconnectReason, Event, MismatchKind, SchemaFingerprint};

const TYPES: [(&str, u64); 3] = [("Point", 11), ("Snapshot", 22), ("ServerMessage", 33)];

fn schema(snapshot: u64) -> SchemaFingerprint {
    SchemaFingerprint::new(TYPES.map(|(n, f)| (n, if n == "Snapshot" { snapshot } else { f })))
        .unwrap()
}

fn config(schema: Option<SchemaFingerprint>) -> Config {
    let b = Config::builder().extensions(true);
    match schema {
        Some(s) => b.schema(s),
        None => b,
    }
    .build()
    .unwrap()
}

fn link() -> LinkConfig {
    LinkConfig {
        delay: Duration::from_millis(20),
        ..LinkConfig::default()
    }
}

/// Runs a client and a server for two seconds of virtual time; their events, and every
/// datagram sent (the client's in `client_sent` too).
fn run(server: Config, client: Config) -> (SimNetwork, Vec<Event>, Vec<Event>, Vec<Vec<u8>>) {
    let (net, c, s, all, _) = run_with_senders(server, client);
    (net, c, s, all)
}

#[allow(clippy::type_complexity)]
fn run_with_senders(
    server: Config,
    client: Config,
) -> (
    SimNetwork,
    Vec<Event>,
    Vec<Event>,
    Vec<Vec<u8>>,
    Vec<Vec<u8>>,
) {
    let mut net = SimNetwork::new(1, server, link());
    net.record_batches(true);
    net.add_client(client);
    let (mut at_client, mut at_server) = (Vec::new(), Vec::new());
    for _ in 0..200 {
        net.step(Duration::from_millis(10));
        while let Some(e) = net.client(0).poll_event() {
            at_client.push(e);
        }
        while let Some(e) = net.server().poll_event() {
            at_server.push(e.event);
        }
    }
    let batches = net.take_batches();
    let of = |from_client: bool| -> Vec<Vec<u8>> {
        batches
            .iter()
            .filter(|b| !from_client || b.from == net.client_addr(0))
            .flat_map(|b| b.datagrams().map(<[u8]>::to_vec).collect::<Vec<_>>())
            .collect()
    };
    let (all, by_client) = (of(false), of(true));
    (net, at_client, at_server, all, by_client)
}

fn mismatch(events: &[Event]) -> Option<hopnet_proto::SchemaMismatch> {
    events.iter().find_map(|e| match e {
        Event::Disconnected {
            reason: DisconnectReason::SchemaMismatch(m),
        } => Some(*m),
        _ => None,
    })
}

/// Negotiation datagrams: `06 ff`, two sequence bytes, `4e 58`.
fn negotiations(datagrams: &[Vec<u8>]) -> Vec<&Vec<u8>> {
    datagrams
        .iter()
        .filter(|d| d.len() >= 16 && d[..2] == [0x06, 0xff] && d[4..6] == *b"NX")
        .collect()
}

#[test]
fn schemas_that_differ_in_one_type_end_the_connection_naming_it_on_both_sides() {
    let (mut net, client, server, _, by_client) =
        run_with_senders(config(Some(schema(22))), config(Some(schema(99))));
    let at_client = mismatch(&client).expect("the client is told");
    let at_server = mismatch(&server).expect("the server is told");
    for m in [at_client, at_server] {
        assert_eq!(m.kind(), MismatchKind::Differs);
        assert_eq!(m.type_name(), Some("Snapshot"));
        assert!(
            m.to_string()
                .contains("type `Snapshot` is laid out differently")
        );
    }
    assert!(!net.client(0).is_connected());
    assert_eq!(net.server().connections().count(), 0);
    // The client's last datagram is its offer: it sends no `END` to a server that has closed
    // (which would take it for a new `Init`).
    let last = by_client.last().unwrap();
    assert_eq!(
        (last.len(), &last[..2], &last[4..6]),
        (42, &[0x06, 0xff][..], &b"NX"[..])
    );
}

#[test]
fn the_same_schemas_connect_and_talk_as_before() {
    let (mut net, client, server, datagrams) =
        run(config(Some(schema(22))), config(Some(schema(22))));
    assert_eq!(mismatch(&client), None);
    assert_eq!(mismatch(&server), None);
    assert!(net.client(0).is_connected());
    assert!(
        net.client(0).extensions().is_some(),
        "the extensions were agreed"
    );
    // The offer and the accept carry the schema field: 16 + 2 + 3 × 8 bytes.
    let n = negotiations(&datagrams);
    assert!(!n.is_empty());
    assert!(
        n.iter()
            .all(|d| d.len() == 42 && d[12] == b'S' && d[13] == 3)
    );
    net.client(0).send(b"hello", Delivery::Reliable).unwrap();
    net.step(Duration::from_millis(200));
    let got: Vec<_> = std::iter::from_fn(|| net.server().poll_event()).collect();
    assert!(
        got.iter()
            .any(|e| matches!(&e.event, Event::Message { bytes, .. } if bytes == b"hello"))
    );
}

#[test]
fn a_schema_on_one_side_only_connects_and_the_other_sends_what_it_always_sent() {
    // The client has none: its offer is the 16 bytes of before, and the server, which has
    // one, answers with the 16-byte accept of before.
    let (mut net, client, server, datagrams) = run(config(Some(schema(22))), config(None));
    assert_eq!((mismatch(&client), mismatch(&server)), (None, None));
    assert!(net.client(0).is_connected() && net.client(0).extensions().is_some());
    let n = negotiations(&datagrams);
    assert!(!n.is_empty() && n.iter().all(|d| d.len() == 16), "{n:?}");
    // The server has none: the client's offer carries its field, which the server ignores.
    let (mut net, client, server, datagrams) = run(config(None), config(Some(schema(22))));
    assert_eq!((mismatch(&client), mismatch(&server)), (None, None));
    assert!(net.client(0).is_connected() && net.client(0).extensions().is_some());
    let n = negotiations(&datagrams);
    assert!(n.iter().any(|d| d.len() == 42) && n.iter().any(|d| d.len() == 16));
}

#[test]
fn a_server_without_the_extensions_connects_a_client_with_a_schema() {
    let spec = Config::builder().build().unwrap();
    let (mut net, client, _, _) = run(spec, config(Some(schema(22))));
    assert_eq!(mismatch(&client), None);
    assert!(net.client(0).is_connected());
    assert_eq!(net.client(0).extensions(), None);
}

#[test]
fn a_schema_without_the_extensions_is_a_configuration_error() {
    let err = Config::builder().schema(schema(1)).build().unwrap_err();
    assert!(err.to_string().contains("enable extensions"), "{err}");
}

#[test]
fn under_loss_the_server_always_names_the_type_and_the_client_nearly_always() {
    let lossy = LinkConfig {
        loss: 0.2,
        delay: Duration::from_millis(20),
        ..LinkConfig::default()
    };
    let patient = |s| {
        Config::builder()
            .extensions(true)
            .connect_timeout(Duration::from_secs(60))
            .schema(schema(s))
            .build()
            .unwrap()
    };
    let (mut server_named, mut client_named) = (0, 0);
    for seed in 0..40 {
        let mut net = SimNetwork::new(seed, patient(22), lossy.clone());
        net.add_client(patient(99));
        let (mut at_client, mut at_server) = (Vec::new(), Vec::new());
        for _ in 0..1000 {
            net.step(Duration::from_millis(10));
            at_client.extend(std::iter::from_fn(|| net.client(0).poll_event()));
            at_server.extend(std::iter::from_fn(|| {
                net.server().poll_event().map(|e| e.event)
            }));
        }
        server_named += usize::from(mismatch(&at_server).is_some());
        client_named += usize::from(mismatch(&at_client).is_some());
    }
    assert_eq!(server_named, 40);
    // Each of the two accepts is lost one time in five: both, one time in 25.
    assert!(
        client_named >= 34,
        "the client named the type in {client_named} of 40"
    );
}
