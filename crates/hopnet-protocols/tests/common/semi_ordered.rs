//! The semi-ordered UDP contract's client loop, the same under every driver: what is sent
//! between two polls, and what is taken from the client after one.

use std::time::Instant;

use hopnet_protocols::semi_ordered_udp::{Client, EchoCheck, Event};

/// Sends the check's payloads from `next` on, as many as the client takes, up to `count`.
pub fn send_what_fits(client: &mut Client, check: &mut EchoCheck, next: &mut u32, count: u32) {
    while *next < count {
        let payload = check.payload(*next);
        let mode = check.mode(*next);
        if client.send(Instant::now(), mode, true, &payload).is_err() {
            break;
        }
        check.sent();
        *next += 1;
    }
}

/// Hands the check every payload the client delivered.
pub fn take_echoes(client: &mut Client, check: &mut EchoCheck) {
    while let Some(event) = client.poll_event() {
        if let Event::Delivered {
            reliability,
            payload,
            ..
        } = event
        {
            check.echo(reliability, &payload);
        }
    }
}
