//! Hostile updates: whatever the bytes, a replica answers with an error or applies them; an
//! update refused changes nothing; memory stays bounded.

use hopnet_codec::Rabbit;
use hopnet_sync::replicate::{Change, Replica, ReplicaError, ReplicateConfig, Spawn, Update};
use rand::{Rng, SeedableRng};

#[derive(Rabbit, Debug, Clone, PartialEq)]
#[rabbit(delta)]
struct Body {
    x: f32,
    hp: u8,
}

type Up = Update<u32, Body>;

fn bytes(u: &Up) -> Vec<u8> {
    hopnet_codec::to_bytes(u).unwrap()
}

fn spawn(entity: u32, x: f32) -> Spawn<u32, Body> {
    Spawn {
        entity,
        since_age: 0,
        state: Body { x, hp: 9 },
    }
}

/// A replica holding entity 1 at tick 10.
fn replica(config: ReplicateConfig) -> Replica<u32, Body> {
    let mut r = Replica::new(config);
    let u = Up {
        tick: 10,
        spawns: vec![spawn(1, 1.0)],
        changes: vec![],
        despawns: vec![],
    };
    r.apply(&bytes(&u)).unwrap();
    r
}

fn change(entity: u32, baseline_age: u32, x: f32) -> Change<u32> {
    let base = Body { x: 1.0, hp: 9 };
    Change {
        entity,
        baseline_age,
        delta: hopnet_codec::delta::to_bytes(&Body { x, hp: 9 }, &base).unwrap(),
    }
}

fn refused(r: &mut Replica<u32, Body>, u: &Up) -> ReplicaError {
    let before = (r.len(), r.get(&1).cloned(), r.held_states());
    let err = r.apply(&bytes(u)).unwrap_err();
    assert_eq!(
        before,
        (r.len(), r.get(&1).cloned(), r.held_states()),
        "{err}"
    );
    err
}

#[test]
fn a_delta_against_a_state_never_held_is_refused() {
    let mut r = replica(ReplicateConfig::default());
    let u = Up {
        tick: 12,
        spawns: vec![spawn(2, 5.0)],
        changes: vec![change(1, 1, 3.0)], // against tick 11: never sent
        despawns: vec![],
    };
    assert_eq!(
        refused(&mut r, &u),
        ReplicaError::UnknownBaseline { tick: 11 }
    );
    assert!(
        r.get(&2).is_none(),
        "nothing of a refused update is applied"
    );
    // The same against tick 10 is fine.
    let u = Up {
        changes: vec![change(1, 2, 3.0)],
        ..u
    };
    r.apply(&bytes(&u)).unwrap();
    assert_eq!(r.get(&1), Some(&Body { x: 3.0, hp: 9 }));
}

#[test]
fn a_delta_of_an_entity_never_spawned_is_refused() {
    let mut r = replica(ReplicateConfig::default());
    let u = Up {
        tick: 12,
        spawns: vec![],
        changes: vec![change(7, 2, 3.0)],
        despawns: vec![],
    };
    assert_eq!(refused(&mut r, &u), ReplicaError::NotSpawned);
}

#[test]
fn ages_past_tick_zero_duplicates_and_bad_deltas_are_refused() {
    let mut r = replica(ReplicateConfig::default());
    let u = Up {
        tick: 12,
        spawns: vec![],
        changes: vec![change(1, 13, 3.0)],
        despawns: vec![],
    };
    assert_eq!(refused(&mut r, &u), ReplicaError::BadTick);
    let u = Up {
        tick: 12,
        spawns: vec![spawn(3, 0.0)],
        changes: vec![],
        despawns: vec![3],
    };
    assert_eq!(refused(&mut r, &u), ReplicaError::Duplicate);
    let u = Up {
        tick: 12,
        spawns: vec![],
        changes: vec![Change {
            entity: 1,
            baseline_age: 2,
            delta: vec![0xff; 40],
        }],
        despawns: vec![],
    };
    assert!(matches!(refused(&mut r, &u), ReplicaError::Decode(_)));
}

#[test]
fn more_entities_than_the_limit_are_refused() {
    let config = ReplicateConfig {
        max_entities: 4,
        ..ReplicateConfig::default()
    };
    let mut r = replica(config);
    let u = Up {
        tick: 11,
        spawns: (2..=5).map(|e| spawn(e, 0.0)).collect(),
        changes: vec![],
        despawns: vec![],
    };
    assert_eq!(refused(&mut r, &u), ReplicaError::TooManyEntities);
    let u = Up {
        spawns: (2..=4).map(|e| spawn(e, 0.0)).collect(),
        ..u
    };
    r.apply(&bytes(&u)).unwrap();
    assert_eq!(r.len(), 4);
}

#[test]
fn states_held_stay_bounded_however_many_ticks_arrive() {
    let config = ReplicateConfig {
        history: 16,
        ..ReplicateConfig::default()
    };
    let mut r = replica(config);
    // Every tick a state, each against the tick before.
    for tick in 11..2000 {
        let u = Up {
            tick,
            spawns: vec![],
            changes: vec![change(1, 1, 1.0)],
            despawns: vec![],
        };
        r.apply(&bytes(&u)).unwrap();
        assert!(r.held_states() <= 16 + 2, "{} at {tick}", r.held_states());
    }
    // A late delta against a state older than those kept is stale, not an error.
    let late = Up {
        tick: 1500,
        spawns: vec![],
        changes: vec![change(1, 100, 7.0)],
        despawns: vec![],
    };
    assert_eq!(r.apply(&bytes(&late)).unwrap().stale, 1);
    // Within the states kept, a baseline never sent is hostile.
    let forged = Up {
        tick: 2005,
        spawns: vec![],
        changes: vec![change(1, 3, 7.0)],
        despawns: vec![],
    };
    assert_eq!(
        refused(&mut r, &forged),
        ReplicaError::UnknownBaseline { tick: 2002 }
    );
    assert_eq!(r.get(&1), Some(&Body { x: 1.0, hp: 9 }));
}

#[test]
fn late_updates_of_a_despawned_entity_do_not_bring_it_back() {
    let mut r = replica(ReplicateConfig::default());
    let gone = Up {
        tick: 20,
        spawns: vec![],
        changes: vec![],
        despawns: vec![1],
    };
    assert_eq!(r.apply(&bytes(&gone)).unwrap().despawned, [1]);
    // A spawn of the same stay and a delta sent before the despawn, arriving after it.
    let late = Up {
        tick: 15,
        spawns: vec![Spawn {
            entity: 1,
            since_age: 5,
            state: Body { x: 4.0, hp: 9 },
        }],
        changes: vec![],
        despawns: vec![],
    };
    assert_eq!(r.apply(&bytes(&late)).unwrap().stale, 1);
    let late = Up {
        tick: 16,
        spawns: vec![],
        changes: vec![change(1, 6, 3.0)],
        despawns: vec![],
    };
    assert_eq!(r.apply(&bytes(&late)).unwrap().stale, 1);
    assert!(r.is_empty());
    // A new stay, entered after the despawn, arrives.
    let back = Up {
        tick: 25,
        spawns: vec![Spawn {
            entity: 1,
            since_age: 1,
            state: Body { x: 8.0, hp: 9 },
        }],
        changes: vec![],
        despawns: vec![],
    };
    assert_eq!(r.apply(&bytes(&back)).unwrap().spawned, [1]);
    // The old stay's despawn, repeated late, does not remove the new one.
    assert_eq!(r.apply(&bytes(&gone)).unwrap().stale, 1);
    assert_eq!(r.get(&1), Some(&Body { x: 8.0, hp: 9 }));
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(40);
    let mut r = replica(ReplicateConfig::default());
    let valid = bytes(&Up {
        tick: 11,
        spawns: vec![spawn(2, 5.0)],
        changes: vec![change(1, 1, 3.0)],
        despawns: vec![],
    });
    for _ in 0..20_000 {
        let mut b = if rng.random_bool(0.5) {
            valid.clone()
        } else {
            (0..rng.random_range(0..64)).map(|_| rng.random()).collect()
        };
        if !b.is_empty() {
            let i = rng.random_range(0..b.len());
            b[i] ^= 1 << rng.random_range(0..8);
        }
        let _ = r.apply(&b);
        assert!(r.len() <= 65_536);
    }
}
