//! The system sets the plugins run in, for users to order their systems against.

use bevy_ecs::schedule::SystemSet;

/// Where the network is read, in `PreUpdate`: the transport's datagrams are taken in, and the
/// frame's messages, connection changes and errors become Bevy messages. Systems that must see
/// this frame's arrivals in `PreUpdate` run after it; in `Update` everything has arrived.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HopnetReceive;

/// Where the network is written, in `PostUpdate`: the messages written this frame are encoded,
/// queued and flushed. Systems in `PostUpdate` whose messages should leave this frame run
/// before it.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HopnetSend;

/// The steps inside the public sets.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Step {
    /// The transport is polled and its events read (`PreUpdate`).
    Poll,
    /// Each registered type decodes its payloads (`PreUpdate`).
    Decode,
    /// Each registered type encodes and queues what was written (`PostUpdate`).
    Encode,
    /// The transport sends what was queued (`PostUpdate`).
    Flush,
}

/// The `k`-th registration's sending systems (`PostUpdate`): each runs after the one before,
/// so that the messages written in one frame leave in the order their types were registered
/// (and each type's in the order written). A semi-ordered message then follows every
/// reliable one written before it in the same frame, whatever its type.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Registered(pub u32);

impl Registered {
    /// Puts the `k`-th registration's set after the one before it, inside [`Step::Encode`].
    pub fn configure(app: &mut bevy_app::App, k: u32) {
        use bevy_ecs::schedule::IntoScheduleConfigs;
        let set = Registered(k).in_set(Step::Encode);
        match k.checked_sub(1) {
            Some(before) => app.configure_sets(bevy_app::PostUpdate, set.after(Registered(before))),
            None => app.configure_sets(bevy_app::PostUpdate, set),
        };
    }
}
