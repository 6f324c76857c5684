//! Every part together in hopnet's simulator: sync_lab's shooter (one server, four clients)
//! at 0, 10 and 20 % loss, each measure against its goal, and each switch moving its measure.

#[path = "../examples/sync_lab/lab/mod.rs"]
mod lab;
#[path = "../examples/sync_lab/shooter.rs"]
mod shooter;

use lab::{Report, Settings, run};

/// The distance a player walks in two ticks at 60 Hz: the remote error's bound.
const TWO_TICKS_WALK: f64 = 2.0 * shooter::SPEED as f64 / 60.0;

fn lab(loss: f64, change: impl FnOnce(&mut Settings)) -> Report {
    let mut settings = Settings {
        loss,
        seconds: 10,
        seed: 7,
        ..Settings::default()
    };
    change(&mut settings);
    run(&settings).expect("the lab runs")
}

fn meets_the_goals(r: &Report) {
    assert_eq!(r.input_to_view_ticks_p50, 0.0, "{r:?}");
    assert!(r.late_inputs + r.lost_inputs <= 0.01, "{r:?}");
    assert!(r.remote_error_p99 <= TWO_TICKS_WALK, "{r:?}");
    assert!(r.shots > 50 && r.hits_seen > 10, "{r:?}");
    assert!(r.hits_agreed >= 0.98, "{r:?}");
}

#[test]
fn without_loss() {
    let r = lab(0.0, |_| ());
    meets_the_goals(&r);
    assert_eq!(r.lost_inputs, 0.0);
    assert_eq!(r.corrections_per_minute, 0.0, "nothing to correct: {r:?}");
}

#[test]
fn at_ten_percent_loss() {
    meets_the_goals(&lab(0.10, |_| ()));
}

#[test]
fn at_twenty_percent_loss() {
    meets_the_goals(&lab(0.20, |_| ()));
}

#[test]
fn at_a_long_jittery_round_trip() {
    meets_the_goals(&lab(0.10, |s| {
        s.rtt_ms = 200;
        s.jitter_ms = 30;
    }));
}

#[test]
fn without_prediction_an_input_waits_a_round_trip() {
    let r = lab(0.10, |s| s.prediction = false);
    let ticks = 100.0 / (1000.0 / 60.0);
    assert!(r.input_to_view_ticks_p50 >= ticks - 1.0, "{r:?}");
    assert_eq!(
        r.corrections_per_minute, 0.0,
        "no prediction, nothing corrected"
    );
}

#[test]
fn without_redundancy_lost_datagrams_lose_inputs_and_cost_corrections() {
    let on = lab(0.10, |_| ());
    let off = lab(0.10, |s| s.redundancy = false);
    assert!(off.lost_inputs > 0.05, "{off:?}");
    assert!(
        off.lost_inputs > 10.0 * (on.lost_inputs + on.late_inputs),
        "{off:?}"
    );
    assert!(
        off.corrections_per_minute > on.corrections_per_minute,
        "{off:?}"
    );
    assert!(off.correction_p99 > 0.0);
}

#[test]
fn without_lag_compensation_hits_seen_are_misses_on_the_server() {
    // At 200 ms the shooter's view is a fifth of a second or more behind the server.
    let on = lab(0.10, |s| s.rtt_ms = 200);
    let off = lab(0.10, |s| {
        s.rtt_ms = 200;
        s.lag_compensation = false;
    });
    assert!(on.hits_agreed >= 0.98, "{on:?}");
    assert!(off.hits_agreed < 0.75, "{off:?}");
}

#[test]
fn a_seed_gives_the_same_run() {
    let a = lab(0.20, |_| ());
    let b = lab(0.20, |_| ());
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
}

#[test]
fn bad_settings_are_refused_not_run() {
    assert!(
        run(&Settings {
            tick_hz: 0,
            ..Settings::default()
        })
        .is_err()
    );
    assert!(
        run(&Settings {
            loss: 1.5,
            ..Settings::default()
        })
        .is_err()
    );
}

#[test]
fn at_a_one_second_round_trip_the_clock_keeps_up_and_the_window_holds() {
    let r = lab(0.05, |s| {
        s.rtt_ms = 1000;
        s.jitter_ms = 50;
    });
    assert_eq!(r.input_to_view_ticks_p50, 0.0, "{r:?}");
    assert!(r.late_inputs + r.lost_inputs <= 0.01, "{r:?}");
    // The shooters' views are more than the 1 s rewind window old: clamped to it, not
    // trusted, so the server misses what their screens hit.
    assert!(r.hits_agreed < 0.9, "{r:?}");
}
