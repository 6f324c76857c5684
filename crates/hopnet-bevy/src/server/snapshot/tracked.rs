//! The acknowledgements and losses of this frame's tracked messages, read by the server's
//! poll and handed to each snapshot type's baselines.

use bevy_ecs::resource::Resource;
use hopnet::{ConnectionId, MessageId};

/// This frame's reports on tracked messages, for the snapshot types' baselines.
#[derive(Resource, Debug, Default)]
pub(crate) struct TrackedReports {
    reports: Vec<(ConnectionId, MessageId, bool)>,
}

impl TrackedReports {
    pub fn clear(&mut self) {
        self.reports.clear();
    }

    /// Message `id` to `client` was acknowledged (`true`) or lost.
    pub fn report(&mut self, client: ConnectionId, id: MessageId, acknowledged: bool) {
        self.reports.push((client, id, acknowledged));
    }

    pub fn iter(&self) -> impl Iterator<Item = &(ConnectionId, MessageId, bool)> {
        self.reports.iter()
    }
}
