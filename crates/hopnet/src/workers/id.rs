//! Which worker owns a connection, carried in the game's [`ConnectionId`] itself: the top
//! byte names the worker, the rest is the worker machine's own id. The game keeps one id per
//! client, as with one [`Server`](crate::Server), and a send finds its worker without a map
//! or a lock. Worker 0's ids are its machine's ids unchanged.

use hopnet_proto::ConnectionId;

/// Bits of a worker machine's own id (its ids count up from 0, one per connection).
const LOCAL_BITS: u32 = 56;
const LOCAL_MASK: u64 = (1 << LOCAL_BITS) - 1;

/// The most workers one server runs: one per value of the id's top byte.
pub const MAX_WORKERS: usize = 1 << (64 - LOCAL_BITS);

/// The game's id of worker `worker`'s connection `local`.
pub(crate) fn global(worker: usize, local: ConnectionId) -> ConnectionId {
    ConnectionId(((worker as u64) << LOCAL_BITS) | (local.0 & LOCAL_MASK))
}

/// The worker and its machine's id, from the game's id.
pub(crate) fn split(id: ConnectionId) -> (usize, ConnectionId) {
    (
        (id.0 >> LOCAL_BITS) as usize,
        ConnectionId(id.0 & LOCAL_MASK),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_names_its_worker_and_round_trips() {
        for worker in [0, 1, 7, MAX_WORKERS - 1] {
            for local in [0, 1, 4000, LOCAL_MASK] {
                let id = global(worker, ConnectionId(local));
                assert_eq!(split(id), (worker, ConnectionId(local)));
            }
        }
        assert_eq!(global(0, ConnectionId(42)), ConnectionId(42));
    }
}
