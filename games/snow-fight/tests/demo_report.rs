//! The demo's HTML report in a real browser: a simulated session of three clients at 10 %
//! loss, each connection sampled into a `StatsSeries`, drawn by the demo's report code, opened
//! in Debian's Chromium (headless, by `puppeteer-core`: `web/test/report.mjs`) and
//! photographed. The page renders, with one plot per measure under its title, nothing
//! fetched, no script; and the screenshot is not blank.
//!
//! Needs Node.js 18 or later with npm (the test installs `web/`'s packages) and Debian's
//! `chromium` package; without them it fails and says what to install.

use std::time::Duration;

use hopnet::sim::{LinkConfig, SimNetwork};
use hopnet::{Config, Delivery, Event, ServerEvent, StatsSample, StatsSeries};

#[path = "../examples/demo/html_report.rs"]
mod html_report;

/// Three clients sending and the server echoing, 20 s of virtual time at 10 % loss, sampled
/// every 100 ms.
fn session() -> StatsSeries<usize> {
    let link = LinkConfig {
        loss: 0.1,
        delay: Duration::from_millis(30),
        ..LinkConfig::default()
    };
    let mut net = SimNetwork::new(5, Config::default(), link);
    let clients: Vec<usize> = (0..3).map(|_| net.add_client(Config::default())).collect();
    let mut series = StatsSeries::new(Duration::from_millis(100), 1_000);
    for tick in 0..400u32 {
        for &c in &clients {
            if net.client(c).is_connected() {
                let message = vec![tick as u8; 200 + 300 * c];
                net.client(c).send(&message, Delivery::Reliable).unwrap();
            }
        }
        net.step(Duration::from_millis(50));
        while let Some(ServerEvent {
            connection, event, ..
        }) = net.server().poll_event()
        {
            if let Event::Message { bytes, .. } = event {
                net.server()
                    .send(connection, &bytes, Delivery::Reliable)
                    .unwrap();
            }
        }
        for &c in &clients {
            while net.client(c).poll_event().is_some() {}
        }
        let now = net.now();
        let stats: Vec<_> = clients
            .iter()
            .map(|&c| (c, net.client(c).stats()))
            .collect();
        series.sample(now, stats);
    }
    series
}

#[test]
fn the_report_renders_one_plot_per_measure_in_chromium() {
    let chromium = web_toolchain::chromium();
    web_toolchain::node_modules();
    let series = session();
    let rings: Vec<(usize, Vec<StatsSample>)> = series
        .iter()
        .map(|(c, samples)| (*c, samples.iter().cloned().collect()))
        .collect();
    assert_eq!(rings.len(), 3);
    assert!(
        rings.iter().all(|(_, s)| s.len() >= 150),
        "20 s at 10 a second"
    );
    let tracks: Vec<html_report::Track<'_>> = rings
        .iter()
        .map(|(c, samples)| html_report::Track {
            name: format!("client {c}"),
            samples,
        })
        .collect();
    let dir = std::env::temp_dir().join(format!("snow-fight-report-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let page = dir.join("report.html");
    let shot = dir.join("report.png");
    html_report::write_html(&page, "3 clients, 10% loss", &tracks).unwrap();

    let script = web_toolchain::web_dir().join("test/report.mjs");
    let out = web_toolchain::node(
        &[&script, &page, &chromium, &shot],
        "the report in Chromium",
    );
    let seen: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let titles = html_report::titles();
    assert_eq!(seen["svgs"], titles.len(), "{seen}");
    assert_eq!(seen["headings"], serde_json::json!(titles), "{seen}");
    for (plot, title) in seen["plots"].as_array().unwrap().iter().zip(&titles) {
        assert_eq!(plot["caption"], *title, "{plot}");
        assert_eq!(plot["lineColours"], 3, "a line per client: {plot}");
        assert!(plot["width"].as_f64().unwrap() >= 700.0, "{plot}");
        assert!(plot["height"].as_f64().unwrap() >= 300.0, "{plot}");
    }
    assert_eq!(seen["scripts"], 0, "no script");
    assert_eq!(seen["errors"], serde_json::json!([]), "{seen}");
    let png = &seen["screenshot"];
    let area = png["width"].as_f64().unwrap() * png["height"].as_f64().unwrap();
    assert!(
        png["height"].as_f64().unwrap() >= 4.0 * 300.0,
        "the whole page: {png}"
    );
    assert!(
        png["drawn"].as_f64().unwrap() > area * 0.01,
        "not blank: {png}"
    );
    assert!(
        png["colours"].as_u64().unwrap() > 8,
        "the plots' colours: {png}"
    );
    assert!(std::fs::metadata(&shot).unwrap().len() > 10_000);
    let _ = std::fs::remove_dir_all(&dir);
}
