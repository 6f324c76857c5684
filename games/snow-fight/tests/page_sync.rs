//! The page's netcode (`web/src/sync/` and its use in `web/src/game/`), run in Node: its unit
//! tests (`web/test/sync.mjs`), and the page's walk step replayed against the server's rule,
//! position for position, so that a prediction the server agrees with is not counted as a
//! correction.
//!
//! Needs Node.js 18 or later with npm (the test installs `web/`'s packages).

use std::path::{Path, PathBuf};

use snow_fight::{Config, Dir, EntityKind, Input, ObjectState, World};

fn compiled(name: &str) -> PathBuf {
    web_toolchain::compile(&PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name))
}

#[test]
fn the_page_netcode_passes_its_unit_tests() {
    let build = compiled("page-sync-units");
    let script = web_toolchain::web_dir().join("test/sync.mjs");
    let out = web_toolchain::node(&[&script, &build], "node test/sync.mjs");
    let result: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let passed = result["passed"].as_array().unwrap();
    assert_eq!(passed.len(), 13, "{result:#}");
}

/// A small generator for the walk's directions (xorshift), so the walk is the same every run.
struct Steps(u64);

impl Steps {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn the_page_walks_exactly_as_the_server_does() {
    // No time limit: the round lasts the whole walk.
    let config = Config {
        max_ticks: u32::MAX,
        ..Config::default()
    };
    let mut world = World::new(11, config);
    world.add_player(1);
    world.add_player(2);
    let me = world.player_entity(1).unwrap().id;
    let at = |w: &World| match &w.entity(me).unwrap().kind {
        EntityKind::Player(p) => p.pos,
        _ => unreachable!(),
    };
    let start = at(&world);
    let blockers = |w: &World| -> Vec<serde_json::Value> {
        w.entities()
            .iter()
            .filter(|e| e.id != me)
            .filter_map(|e| match &e.kind {
                EntityKind::Object(o) if o.state == ObjectState::Ground => {
                    Some((o.pos, w.config().object_radius(o.kind)))
                }
                EntityKind::Player(p) => Some((p.pos, w.config().player_radius)),
                _ => None,
            })
            .map(|(p, r)| serde_json::json!({ "x": p.x, "y": p.y, "radius": r }))
            .collect()
    };
    let before = blockers(&world);
    let mut steps = Steps(0x9e37_79b9_7f4a_7c15);
    let mut ticks = Vec::new();
    let mut direction = 0u8;
    for tick in 0..6_000 {
        // A new direction (one of the 8, or standing) every 10 to 70 ticks; now and then a
        // byte with opposite or meaningless bits, which the server drops or cancels.
        if tick % 10 == 0 && steps.next().is_multiple_of(4) {
            let pick = steps.next();
            direction = if pick.is_multiple_of(17) {
                (pick >> 8) as u8
            } else {
                [0, 1, 2, 4, 8, 1 | 2, 1 | 8, 4 | 2, 4 | 8][(pick >> 8) as usize % 9]
            };
            world.apply(1, Input::Move(Dir(direction))).unwrap();
        }
        world.step();
        let p = at(&world);
        ticks.push(serde_json::json!([direction & 0x0f, p.x, p.y]));
    }
    assert_eq!(
        blockers(&world),
        before,
        "nothing else moved: the blockers stand for the whole walk"
    );
    let file = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("page-walk.json");
    let walk = serde_json::json!({
        "start": { "x": start.x, "y": start.y },
        "blockers": before,
        "ticks": ticks,
    });
    std::fs::write(&file, walk.to_string()).unwrap();

    let build = compiled("page-sync-walk");
    let script = web_toolchain::web_dir().join("test/walk_conformance.mjs");
    let web_toolchain::NodeJson {
        success, result, ..
    } = web_toolchain::node_json(&[&script, &build, Path::new(&file)]);
    assert!(success && result["mismatch"].is_null(), "{result:#}");
    assert_eq!(result["compared"], 6_000);
    // The walk is worth comparing: it moved most of the time and was stopped by something.
    assert!(result["moved"].as_u64().unwrap() > 2_000, "{result:#}");
    assert!(result["blocked"].as_u64().unwrap() > 50, "{result:#}");
}
