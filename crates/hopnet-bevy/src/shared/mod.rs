//! What the server's side and a client's side both use, and nothing that knows either side:
//! the transports under them (`transport/`), the protocol both register (`protocol/`: the
//! types per direction, their tags, the framing), the Bevy messages the app reads and writes,
//! the system sets, the errors and their log, the inbox of a frame's payloads, the snapshot
//! messages and their payload (`snapshot/`), what both sides of component replication name
//! (`replicate.rs`), the setup both plugins share, and what the sync
//! plugins of both sides agree on (`sync.rs`).

pub(crate) mod clock;
pub(crate) mod encode;
pub(crate) mod error;
pub(crate) mod inbox;
pub(crate) mod messages;
pub(crate) mod plugin;
pub(crate) mod protocol;
pub(crate) mod replicate;
pub(crate) mod sets;
pub mod snapshot;
pub(crate) mod sync;
pub mod transport;
