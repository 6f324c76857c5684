//! `hopnet_codec::from_bytes` on arbitrary bytes, as a `ServerMessage`, a `ClientMessage` and the
//! derive's kitchen-sink `Sink`:
//!
//! - never panics;
//! - never allocates more than a fixed multiple of the input (measured with a counting global
//!   allocator: the peak of live bytes during the decode, result included);
//! - whatever decodes re-encodes to exactly the input bytes (the encoding is canonical).
//!
//! The allocation bound comes from the decoder's documented rules: a count is checked against
//! the bits left at the item's smallest size before anything is reserved, and a decoder reserves
//! at most 1 MiB ahead of the items it has read (then the vector doubles). The only allocations
//! of a `ServerMessage` are one entity list (a `Snapshot`'s `Vec<Entity>`, decoded in place)
//! or one error text (`Arc<str>`, decoded into a `String` and copied). An entity takes at least
//! 12 bits, so `n <= 8 * len / 12`; the vector holds at most twice the items it has read and a
//! reallocation briefly holds the old and the new block: at most `3 * n * size_of::<Entity>()`,
//! i.e. `2 * size_of::<Entity>() * len`. (Until the snapshot held an `Arc<[Entity]>`, the copy
//! into the `Arc` was part of that bound; it is now slack.) A text costs twice its length.
//! A `ClientMessage` has no heap data at all: only an error (a few boxed `InField` wrappers)
//! may allocate.

#![no_main]

use std::mem::size_of;
use std::sync::atomic::{AtomicUsize, Ordering};

use alloc_counter::{Counting, peak_allocation};
use hopnet_snow_fight::{ClientMessage, Entity, ServerMessage};
use libfuzzer_sys::fuzz_target;
use hopnet_fuzz::Sink;

#[global_allocator]
static ALLOC: Counting = Counting;

/// Room for the boxed error wrappers of a failed decode (a handful of small boxes).
const SLACK: usize = 1024;

static WORST_PERMILLE: AtomicUsize = AtomicUsize::new(0);

fn check_canonical<T: hopnet_codec::Encode + std::fmt::Debug>(value: &T, data: &[u8], what: &str) {
    let again = hopnet_codec::to_bytes(value)
        .unwrap_or_else(|e| panic!("{what} decoded but does not re-encode: {e}: {value:?}"));
    assert_eq!(
        again, data,
        "{what}: non-canonical encoding accepted: {value:?}"
    );
    assert_eq!(
        hopnet_codec::encoded_len(value),
        data.len(),
        "{what}: encoded_len disagrees"
    );
}

fuzz_target!(|data: &[u8]| {
    // ServerMessage.
    let (server, used) = peak_allocation(|| hopnet_codec::from_bytes::<ServerMessage>(data));
    let bound = 2 * size_of::<Entity>() * data.len() + SLACK;
    assert!(
        used <= bound,
        "ServerMessage: {used} bytes allocated for {} input bytes (bound {bound})",
        data.len()
    );
    // The worst ratio so far, on inputs long enough for the constant not to dominate.
    if data.len() >= 64 {
        let permille = used * 1000 / data.len();
        if permille > WORST_PERMILLE.fetch_max(permille, Ordering::Relaxed) {
            eprintln!(
                "new worst ServerMessage allocation: {used} bytes for {} input bytes ({:.1}x, bound {}x)",
                data.len(),
                permille as f64 / 1000.0,
                2 * size_of::<Entity>()
            );
        }
    }
    if let Ok(message) = &server {
        check_canonical(message, data, "ServerMessage");
    }
    drop(server);

    // ClientMessage: nothing on the heap but a failed decode's error.
    let (client, used) = peak_allocation(|| hopnet_codec::from_bytes::<ClientMessage>(data));
    assert!(used <= SLACK, "ClientMessage: {used} bytes allocated");
    if let Ok(message) = &client {
        check_canonical(message, data, "ClientMessage");
    }
    drop(client);

    // The kitchen sink of derive attributes: canonical too.
    if let Ok(sink) = hopnet_codec::from_bytes::<Sink>(data) {
        assert_eq!(sink.skipped, 0, "a skipped field decodes to its default");
        assert!(
            sink.valid(),
            "the decoder accepted what the encoder must refuse: {sink:?}"
        );
        check_canonical(&sink, data, "Sink");
    }
});
