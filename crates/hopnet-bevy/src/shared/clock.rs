//! The app's clock, as the transports take it.

use std::time::Instant;

use bevy_time::{Real, Time};

/// The instant of this frame's update: `Time<Real>`'s, so that manual time
/// (`TimeUpdateStrategy::ManualDuration`) drives the simulator; the real clock without a
/// `TimePlugin`.
pub(crate) fn frame_instant(time: Option<&Time<Real>>) -> Instant {
    time.and_then(Time::<Real>::last_update)
        .unwrap_or_else(Instant::now)
}
