//! Writes the benchmarks' yardstick message, `ServerMessage::Event` with the 1000-entity sample
//! snapshot (`hopnet_snow_fight::sample`), as Rabbit bytes (`PREFIX.bin`) and in `rabbit-msg`'s
//! JSON form (`PREFIX.json`), for benchmarks outside Rust (`web/bench/decode.mjs`).
//!
//! ```text
//! cargo run -q --release -p hopnet-msg --example sample_message -- /tmp/sample
//! ```

use hopnet_snow_fight::sample::{DEFAULT_SEED, sample_event};

fn main() {
    let Some(prefix) = std::env::args().nth(1) else {
        eprintln!("usage: sample_message PREFIX (writes PREFIX.bin and PREFIX.json)");
        std::process::exit(2);
    };
    let message = sample_event(1000, DEFAULT_SEED);
    let bytes = hopnet_codec::to_bytes(&message).expect("the sample encodes");
    let json = serde_json::to_string(&message).expect("the sample has no NaN");
    for (path, contents) in [
        (format!("{prefix}.bin"), bytes.as_slice()),
        (format!("{prefix}.json"), json.as_bytes()),
    ] {
        if let Err(e) = std::fs::write(&path, contents) {
            eprintln!("cannot write {path}: {e}");
            std::process::exit(1);
        }
    }
    println!(
        "{} bytes of Rabbit, {} bytes of JSON",
        bytes.len(),
        json.len()
    );
}
