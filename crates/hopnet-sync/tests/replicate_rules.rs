//! The replicator's rules one at a time, the update handed over directly: rooms bring
//! entities in and out, an entity too large for any update holds nothing up, the
//! accumulator reaches the far entities too under a tight budget, and a thin update cut
//! short by the budget waits for a fuller one.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use hopnet_codec::Rabbit;
use hopnet_proto::MessageId;
use hopnet_sync::replicate::{
    ByDistance, Replica, ReplicateConfig, Replicator, RoomId, Sent, Update,
};

#[derive(Rabbit, Debug, Clone, PartialEq)]
#[rabbit(delta)]
struct Thing {
    x: f32,
    tag: Vec<u8>,
}

struct Link {
    server: Replicator<u8, u32, Thing>,
    client: Replica<u32, Thing>,
    next: u64,
    tick: u32,
    now: Instant,
}

impl Link {
    fn new(cap: Option<u64>) -> Link {
        Link::with_config(cap, ReplicateConfig::default())
    }

    fn with_config(cap: Option<u64>, config: ReplicateConfig) -> Link {
        let mut server = Replicator::new(config.clone()).with_priority(ByDistance { near: 10.0 });
        server.add_client(1, [0.0; 3], cap);
        Link {
            server,
            client: Replica::new(config),
            next: 0,
            tick: 0,
            now: Instant::now(),
        }
    }

    /// One tick: the update sent, delivered and acknowledged at once. Returns it.
    fn tick(&mut self) -> Option<(Sent, Update<u32, Thing>)> {
        self.tick += 1;
        self.now += Duration::from_millis(20);
        self.server.set_tick(self.tick);
        let mut bytes = None;
        let id = MessageId(self.next);
        self.next += 1;
        let sent = self.server.send(&1, self.now, |b| {
            bytes = Some(b.to_vec());
            Some(id)
        })?;
        let bytes = bytes.expect("sent");
        self.client.apply(&bytes).expect("applies");
        self.server.acknowledged(&1, id);
        Some((sent, hopnet_codec::from_bytes(&bytes).expect("decodes")))
    }
}

fn thing(x: f32) -> Thing {
    Thing { x, tag: Vec::new() }
}

#[test]
fn rooms_bring_entities_in_and_take_them_out() {
    let mut link = Link::new(None);
    link.server.set(1, thing(1.0), [1.0, 0.0, 0.0]);
    link.server.set(2, thing(2.0), [2.0, 0.0, 0.0]);
    link.server.entity_leave(&2, RoomId::DEFAULT);
    link.server.entity_join(2, RoomId(7));
    link.tick();
    assert!(link.client.get(&1).is_some() && link.client.get(&2).is_none());
    link.server.client_join(&1, RoomId(7));
    let (_, u) = link.tick().expect("the new room's entity");
    assert_eq!(u.spawns.iter().map(|s| s.entity).collect::<Vec<_>>(), [2]);
    link.server.client_leave(&1, RoomId(7));
    let (_, u) = link.tick().expect("its despawn");
    assert_eq!(u.despawns, [2]);
    assert!(link.client.get(&2).is_none());
    // Acknowledged: nothing more to send.
    assert!(link.tick().is_none());
}

#[test]
fn an_entity_too_large_for_any_update_holds_nothing_up() {
    let mut link = Link::new(Some(20_000));
    // Nearest, so highest priority, and larger than an update may be (504 bytes).
    link.server.set(
        1,
        Thing {
            x: 0.0,
            tag: vec![7; 600],
        },
        [0.0; 3],
    );
    for e in 2..10 {
        link.server
            .set(e, thing(e as f32), [e as f32 * 5.0, 0.0, 0.0]);
    }
    link.tick();
    assert_eq!(link.client.len(), 8);
    assert!(link.client.get(&1).is_none());
    assert_eq!(link.server.stats(&1).expect("a client").oversize, 1);
}

#[test]
fn far_entities_are_sent_too_under_a_tight_budget() {
    // 2 kB/s at 50 ticks a second: 40 bytes a tick, a few entities of the 60 that all change
    // every tick.
    let mut link = Link::new(Some(2_000));
    let mut last: HashMap<u32, u32> = HashMap::new();
    let mut count: HashMap<u32, u32> = HashMap::new();
    let mut longest = 0;
    for t in 0..1_000u32 {
        for e in 0..60u32 {
            let d = e as f32 * 3.0; // 0 to 177: rates from 1 down to 1/18.7
            link.server.set(e, thing(t as f32 + d), [d, 0.0, 0.0]);
        }
        if let Some((_, u)) = link.tick() {
            for e in u
                .spawns
                .iter()
                .map(|s| s.entity)
                .chain(u.changes.iter().map(|c| c.entity))
            {
                *count.entry(e).or_default() += 1;
                if let Some(prev) = last.insert(e, t) {
                    longest = longest.max(t - prev);
                }
            }
        }
    }
    assert_eq!(last.len(), 60, "every entity was sent");
    // In steady state an entity goes once its priority reaches the level the budget lets
    // through: at most (sum of the rates) / (entities per tick), reached at its own rate.
    let rates: Vec<f32> = (0..60)
        .map(|e| 1.0 / (1.0 + e as f32 * 3.0 / 10.0))
        .collect();
    let per_tick = link.server.stats(&1).expect("a client").changes as f32 / 1_000.0;
    let bound = rates.iter().sum::<f32>() / per_tick / rates[59];
    eprintln!("longest wait {longest} ticks, bound {bound:.0}, {per_tick:.2} a tick");
    assert!((longest as f32) <= 1.5 * bound, "{longest} over {bound}");
    // And the near ones go more often than the far ones, in the ratio of their rates.
    let ratio = count[&0] as f32 / count[&59] as f32;
    assert!(ratio > 0.5 * rates[0] / rates[59], "{ratio}");
}

/// `ticks` ticks of 40 entities that all change every tick: what each update sent.
fn busy_ticks(link: &mut Link, ticks: u32) -> Vec<Sent> {
    (0..ticks)
        .filter_map(|t| {
            for e in 0..40u32 {
                link.server
                    .set(e, thing(t as f32 + e as f32), [e as f32, 0.0, 0.0]);
            }
            link.tick().map(|(s, _)| s)
        })
        .collect()
}

/// A client capped at `cap` bytes a second whose updates wait for `min_budgeted_update`
/// bytes of it.
fn batched(cap: u64, min_budgeted_update: usize) -> Link {
    let config = ReplicateConfig {
        min_budgeted_update,
        ..ReplicateConfig::default()
    };
    Link::with_config(Some(cap), config)
}

#[test]
fn a_thin_update_cut_short_by_the_budget_waits_for_a_fuller_one() {
    // 5 kB/s at 50 ticks a second: 100 bytes a tick, far less than the 40 entities that all
    // change every tick need; an update waits until it can take 300 bytes.
    let mut link = batched(5_000, 300);
    let sent = busy_ticks(&mut link, 200);
    // Cut short only once the budget held 300 bytes: filled to within an entity of it.
    assert!(
        sent.iter().all(|s| s.deferred == 0 || s.wire_bytes >= 280),
        "{:?}",
        sent.iter().map(|s| s.wire_bytes).collect::<Vec<_>>()
    );
    // About one update every third tick, each about three ticks' worth of the budget.
    assert!((50..=90).contains(&sent.len()), "{} updates", sent.len());
    let bytes: usize = sent.iter().map(|s| s.wire_bytes).sum();
    assert!(bytes <= 5_000 * 4 + 600, "{bytes} bytes in 4 s");

    // Everything the client needs goes at once, however small.
    for _ in 0..20 {
        link.tick();
    }
    assert!(link.tick().is_none(), "the world at rest costs nothing");
    link.server.set(3, thing(-1.0), [3.0, 0.0, 0.0]);
    let (s, u) = link.tick().expect("a lone change goes now");
    assert!(s.wire_bytes < 300 && s.deferred == 0);
    assert_eq!(u.changes.len(), 1);
    assert_eq!(link.client.get(&3), Some(&thing(-1.0)));
}

#[test]
fn a_batch_larger_than_the_budget_can_ever_hold_still_lets_updates_through() {
    // 1 kB/s: the bucket never holds 10,000 bytes; the wait is cut to what it can hold.
    let mut link = batched(1_000, 10_000);
    let updates = busy_ticks(&mut link, 200).len();
    assert!(updates >= 2, "{updates} updates in 4 s");
    assert_eq!(link.client.len(), 40);
}
