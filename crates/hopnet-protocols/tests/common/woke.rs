//! The WOKE contract's client loop, the same under every driver: what is sent between two
//! polls, and what is taken from the client after one.

use hopnet_protocols::woke::{Client, EchoCheck, Event, MAX_PENDING_RELIABLE};

/// Sends the check's commands from `next` on, up to `count`, keeping at most half of the
/// reliable window outstanding; unreliable ones one per poll.
pub fn send_commands(
    client: &mut Client,
    check: &mut EchoCheck,
    next: &mut u32,
    count: u32,
    reliable: bool,
) {
    while *next < count && check.outstanding() < (MAX_PENDING_RELIABLE / 2) as u32 {
        let (kind, data) = check.command(*next);
        client.send(kind, &data, reliable).unwrap();
        check.sent();
        *next += 1;
        if !reliable {
            break;
        }
    }
}

/// Hands the check every event of the client; a close fails the test.
pub fn take_events(client: &mut Client, check: &mut EchoCheck) {
    while let Some(event) = client.poll_event() {
        match event {
            Event::Connected(id) => check.connected(id),
            Event::Command(c) => check.echo(c.kind, &c.data, c.reliable),
            Event::Closed(reason) => panic!("closed: {reason:?}"),
        }
    }
}
