//! What both plugins set up: the sets' order, the protocol, the error messages and their log;
//! and where a side's systems go, each running while that side's resource (`NetServer`,
//! `NetClient`) exists.

use bevy_app::{App, AppExit, Last, PostUpdate, PreUpdate};
use bevy_ecs::component::Mutable;
use bevy_ecs::prelude::*;
use bevy_ecs::schedule::IntoScheduleConfigs;
use bevy_ecs::system::ScheduleSystem;
use bevy_time::{Real, Time};
use hopnet::Error;

use crate::shared::clock::frame_instant;
use crate::shared::error::{NetworkError, log_errors};
use crate::shared::protocol::Protocol;
use crate::shared::sets::{HopnetReceive, HopnetSend, Registered, Step};

/// Sets up what the server's and the client's plugin share; once, whichever comes first.
pub(crate) fn common(app: &mut App) {
    if app.world().contains_resource::<Protocol>() {
        return;
    }
    app.init_resource::<Protocol>()
        .add_message::<NetworkError>()
        .configure_sets(
            PreUpdate,
            (Step::Poll, Step::Decode).chain().in_set(HopnetReceive),
        )
        .configure_sets(
            PostUpdate,
            (Step::Encode, Step::Flush).chain().in_set(HopnetSend),
        )
        .add_systems(Last, log_errors);
}

/// A side's resource (`NetServer`, `NetClient`): what its frame's end asks of it.
pub(crate) trait Side: Resource<Mutability = Mutable> {
    /// Sends what the frame queued on the side's transport.
    fn flush_transport(&mut self, now: std::time::Instant) -> Result<(), Error>;
}

/// Sends what the frame queued, on either side.
fn flush<R: Side>(
    mut side: ResMut<R>,
    time: Option<Res<Time<Real>>>,
    mut errors: MessageWriter<NetworkError>,
) {
    if let Err(error) = side.flush_transport(frame_instant(time.as_deref())) {
        errors.write(NetworkError::Transport { error });
    }
}

/// A side's frame, while its resource `R` exists: `poll` takes in what arrived
/// ([`Step::Poll`]), the transport sends what the frame queued ([`Step::Flush`]), and `close`
/// ends the connections when the app exits, before the last errors are logged.
pub(crate) fn add_frame<R: Side, P, C>(
    app: &mut App,
    poll: impl IntoScheduleConfigs<ScheduleSystem, P>,
    close: impl IntoScheduleConfigs<ScheduleSystem, C>,
) {
    app.add_systems(
        PreUpdate,
        poll.in_set(Step::Poll).run_if(resource_exists::<R>),
    )
    .add_systems(
        PostUpdate,
        flush::<R>.in_set(Step::Flush).run_if(resource_exists::<R>),
    )
    .add_systems(
        Last,
        close
            .run_if(resource_exists::<R>)
            .run_if(on_message::<AppExit>)
            .before(log_errors),
    );
}

/// A registered type's receiving system on a side, in [`Step::Decode`], while its resource
/// `R` exists.
pub(crate) fn add_decode<R: Resource, M>(
    app: &mut App,
    decode: impl IntoScheduleConfigs<ScheduleSystem, M>,
) {
    app.add_systems(
        PreUpdate,
        decode.in_set(Step::Decode).run_if(resource_exists::<R>),
    );
}

/// A registered type's sending system on a side, in its registration's place in the sending
/// order, while the side's resource `R` exists.
pub(crate) fn add_encode<R: Resource, M>(
    app: &mut App,
    order: Registered,
    encode: impl IntoScheduleConfigs<ScheduleSystem, M>,
) {
    app.add_systems(
        PostUpdate,
        encode.in_set(order).run_if(resource_exists::<R>),
    );
}
