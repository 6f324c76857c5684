//! The page over a slow link: Debian's Chromium, headless, driven by `puppeteer-core` from Node
//! (`web/test/browser_lag.mjs`), with its WebTransport session through hopnet's lossy UDP relay
//! at 50 ms each way (a 100 ms round trip). The test holds that the page's own avatar moves in
//! the first frame drawn after each key press (prediction: no round trip waited for), that the
//! server's position and the drawn one meet once the player stands still, and that the page
//! counts its corrections and their sizes.
//!
//! `SNOW_FIGHT_PAGE_LOSS` sets the relay's loss (default none, both ways); with `--nocapture`
//! the test prints what the page measured, and it leaves all the pages recorded in
//! `browser_lag.json` in Cargo's temporary directory for tests.
//!
//! Needs Node.js 18 or later with npm and Debian's `chromium` package, as `browser.rs` does.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use hopnet::Impairment;
use hopnet::relay::Relay;

mod page_host;
use page_host::{any, page_server};

#[test]
fn the_page_moves_its_player_at_once_over_a_100_ms_round_trip() {
    let chromium = web_toolchain::chromium();
    web_toolchain::node_modules();
    let loss: f64 = std::env::var("SNOW_FIGHT_PAGE_LOSS")
        .ok()
        .and_then(|l| l.parse().ok())
        .unwrap_or(0.0);

    let (mut server, page) = page_server(5);
    let relay = Relay::spawn(
        any(),
        server.server.web_addr(),
        Impairment {
            loss,
            delay: Duration::from_millis(50),
            seed: 39,
            ..Impairment::default()
        },
    )
    .unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let serving = std::thread::spawn({
        let stop = stop.clone();
        move || server.run(|_| stop.load(Ordering::Relaxed)).unwrap()
    });
    let script = web_toolchain::web_dir().join("test/browser_lag.mjs");
    let url = format!("http://{page}/");
    let port = relay.local_addr().port().to_string();
    let out = web_toolchain::node_json(&[&script, Path::new(&url), &chromium, Path::new(&port)]);
    stop.store(true, Ordering::Relaxed);
    serving.join().unwrap();

    // Kept for a look by hand: everything the pages recorded.
    let kept = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("browser_lag.json");
    std::fs::write(&kept, out.stdout.as_bytes()).unwrap();
    let result = out.result;
    assert!(
        out.success && result.get("error").is_none(),
        "in the browser: {result:#}"
    );
    let keyboard = &result["keyboard"];
    let sync = &keyboard["sync"];
    let number = |v: &serde_json::Value| v.as_f64().unwrap();
    let mut rtts: Vec<f64> = keyboard["rtts"]
        .as_array()
        .unwrap()
        .iter()
        .map(number)
        .collect();
    rtts.sort_by(f64::total_cmp);
    let rtt = rtts[rtts.len() / 2];
    let responses = keyboard["keyResponses"].as_array().unwrap();
    eprintln!(
        "loss {loss}: median round trip {rtt:.1} ms over {} pings (in order: {}); key presses to the first frame \
         that moved: {responses:?}; prediction: {sync}; settled: {}; relay dropped {} of {}",
        rtts.len(),
        keyboard["rtts"],
        result["settled"],
        relay.stats().dropped.load(Ordering::Relaxed),
        relay.stats().forwarded.load(Ordering::Relaxed)
            + relay.stats().dropped.load(Ordering::Relaxed),
    );

    // The link is slow: the relay's two 50 ms delays are in every round trip.
    assert!(
        (95.0..400.0).contains(&rtt),
        "median RTT {rtt} ms: {rtts:?}"
    );
    // Each press moved the avatar in the first frame drawn after it, long before any answer
    // from the server could come back; and the walk went where the key points, as drawn once
    // the server's word came. Without loss, every press walks. With loss, a press may show no
    // walk or the wrong one once the server's word came: a `Move` is reliable but not ordered,
    // so one lost and resent can land after the key's release, and the page shows what the
    // server did.
    let keys = result["keys"].as_array().unwrap();
    assert!(!keys.is_empty(), "{result:#}");
    for k in keys {
        let r = &k["response"];
        if loss == 0.0 {
            assert!(r.is_object(), "a press that did not move: {k}");
        }
        if r.is_object() {
            assert_eq!(r["frames"], 1, "{k}");
            assert!(number(&r["ms"]) < rtt / 2.0, "{k}");
        }
        let (axis, sign) = match k["key"].as_str().unwrap() {
            "ArrowRight" => ("x", 1.0),
            "ArrowLeft" => ("x", -1.0),
            "ArrowUp" => ("y", 1.0),
            _ => ("y", -1.0),
        };
        let moved = (number(&k["to"][axis]) - number(&k["from"][axis])) * sign;
        if loss == 0.0 {
            assert!(moved > 1.0, "{k}");
        }
    }
    assert!(
        keys.iter().any(|k| k["response"].is_object()),
        "no press moved the avatar: {result:#}"
    );
    // Standing still, the drawn avatar is where the server has it.
    let settled = &result["settled"];
    let gap = (number(&settled["shown"]["x"]) - number(&settled["server"]["x"]))
        .hypot(number(&settled["shown"]["y"]) - number(&settled["server"]["y"]));
    assert!(gap < 0.02, "{settled}");
    // Prediction ran and was checked against the server, and its corrections are counted with
    // their sizes.
    assert!(number(&sync["predicted"]) > 100.0, "{sync}");
    assert!(number(&sync["agreed"]) > 50.0, "{sync}");
    // The bot's avatar, the other player, was drawn between its snapshots.
    assert!(number(&sync["remote"]["interpolated"]) > 100.0, "{sync}");
    let corrections = number(&sync["corrections"]) as usize;
    assert_eq!(
        sync["sizes"].as_array().unwrap().len(),
        corrections.min(1000),
        "{sync}"
    );
}
