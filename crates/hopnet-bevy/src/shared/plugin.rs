//! What both plugins set up: the sets' order, the protocol, the error messages and their log.

use bevy_app::{App, Last, PostUpdate, PreUpdate};
use bevy_ecs::prelude::*;

use crate::shared::error::{NetworkError, log_errors};
use crate::shared::protocol::Protocol;
use crate::shared::sets::{HopnetReceive, HopnetSend, Step};

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
