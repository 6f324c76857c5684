//! Shared payloads: one `Payload` sent to many connections is never copied, and arrives intact
//! at each of them, reliable or not.

use std::time::Duration;

use alloc_counter::{Counting, peak_allocation};
use hopnet_proto::sim::{LinkConfig, SimNetwork};
use hopnet_proto::{Config, ConnectionId, Delivery, Event, Payload};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const CLIENTS: usize = 20;
const LEN: usize = 20_000;

fn connected() -> (SimNetwork, Vec<ConnectionId>) {
    let mut net = SimNetwork::new(3, Config::default(), LinkConfig::default());
    for _ in 0..CLIENTS {
        net.add_client(Config::default());
    }
    let all = |n: &mut SimNetwork| (0..CLIENTS).all(|i| n.client(i).is_connected());
    assert!(net.run_until(Duration::from_secs(5), all));
    let ids = net.server().connections().collect::<Vec<_>>();
    assert_eq!(ids.len(), CLIENTS);
    (net, ids)
}

/// Every client receives `payload` once, with this delivery.
fn every_client_gets(net: &mut SimNetwork, payload: &[u8], reliable: bool) {
    let mut got = vec![0; CLIENTS];
    net.run_until(Duration::from_secs(5), |n| {
        for (i, count) in got.iter_mut().enumerate() {
            while let Some(e) = n.client(i).poll_event() {
                if let Event::Message { bytes, reliable: r } = e {
                    assert_eq!((bytes.as_slice(), r), (payload, reliable));
                    *count += 1;
                }
            }
        }
        got.iter().all(|&c| c == 1)
    });
    assert_eq!(got, [1; CLIENTS]);
    // The acknowledgements arrive: the sender's buffers are free for the next message.
    net.step(Duration::from_secs(1));
}

#[test]
fn a_broadcast_payload_is_never_copied() {
    let (mut net, ids) = connected();
    let bytes: Vec<u8> = (0..LEN).map(|i| (i * 7) as u8).collect();
    for delivery in [Delivery::Unreliable, Delivery::Reliable] {
        let reliable = delivery == Delivery::Reliable;
        // A slice is copied once per connection: the baseline.
        let (_, copied) = peak_allocation(|| {
            for &id in &ids {
                net.server().send(id, &bytes, delivery).unwrap();
            }
        });
        assert!(copied >= CLIENTS * LEN, "{copied}");
        every_client_gets(&mut net, &bytes, reliable);

        // One shared payload: the bytes once (made here), then per connection only
        // bookkeeping, a small fraction of a copy.
        let (_, shared) = peak_allocation(|| {
            let payload = Payload::from(&bytes[..]);
            for &id in &ids {
                net.server().send_payload(id, &payload, delivery).unwrap();
            }
        });
        let bound = LEN + CLIENTS * LEN / 10;
        assert!(
            shared < bound,
            "{delivery:?}: {shared} bytes for {CLIENTS} connections"
        );
        every_client_gets(&mut net, &bytes, reliable);
    }
}

#[test]
fn a_client_sends_a_shared_payload_too() {
    let (mut net, _) = connected();
    let payload = Payload::from(vec![5u8; 3000]);
    net.client(0)
        .send_payload(&payload, Delivery::Reliable)
        .unwrap();
    let mut got = None;
    net.run_until(Duration::from_secs(5), |n| {
        while let Some(e) = n.server().poll_event() {
            if let Event::Message { bytes, .. } = e.event {
                got = Some(bytes);
            }
        }
        got.is_some()
    });
    assert_eq!(got.as_deref(), Some(&payload[..]));
}
