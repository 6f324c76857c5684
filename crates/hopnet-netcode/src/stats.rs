//! What a netcode end did with every datagram: accepted, or dropped for one named reason.
//!
//! Nothing from the network is an error: it is counted here and dropped. Every datagram handed
//! to a server or client is counted exactly once, as accepted or under one [`DropReason`].

/// Why a datagram was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DropReason {
    /// Longer than any netcode packet (a payload packet with 1,200 bytes and an 8-byte
    /// sequence is 1,225 bytes).
    Oversized,
    /// An encrypted packet shorter than 18 bytes, or than its prefix, sequence and tag.
    TooSmall,
    /// The prefix's type nibble is 7 or more.
    UnknownType,
    /// A packet type this end never receives (a server ignores challenges and denials, a
    /// client requests and responses).
    WrongDirection,
    /// The prefix's sequence-length nibble is outside 1 to 8.
    SequenceLength,
    /// An encrypted packet from an address with no connection and no handshake under way.
    NoKey,
    /// A client's packet from an address other than the server it connects to.
    NotFromServer,
    /// A sequence received before, or older than the replay window.
    Replayed,
    /// The packet did not decrypt: not sealed with this address's key, protocol id, prefix
    /// and sequence (a forgery, or corruption).
    Unauthentic,
    /// It decrypted, but its content's length is wrong for its type.
    WrongLength,
    /// A connection request that is not 1,078 bytes.
    RequestLength,
    /// A connection request for another version than "NETCODE 1.02".
    RequestVersion,
    /// A connection request for another protocol id.
    RequestProtocol,
    /// A connection request whose token has expired.
    RequestExpired,
    /// A connection request whose private token does not decrypt with the private key, or
    /// does not read (address count or type outside the standard).
    RequestToken,
    /// A connection request whose token does not name this server.
    NotInToken,
    /// A connection request or response from an address that is already connected.
    AddressConnected,
    /// A connection request or response for a client id that is already connected.
    ClientConnected,
    /// A connection request whose token was first used from another address.
    TokenUsedElsewhere,
    /// A connection request that found the table of handshakes under way full.
    HandshakesFull,
    /// A connection response whose challenge token does not decrypt with this server's key.
    ChallengeInvalid,
    /// An authentic packet that has no meaning in the receiver's state (a payload before the
    /// client is connected, a keep-alive from an address still in its handshake, a challenge
    /// after the client has answered one).
    Unexpected,
}

impl DropReason {
    /// Every reason, in declaration order.
    pub const ALL: [DropReason; 22] = [
        DropReason::Oversized,
        DropReason::TooSmall,
        DropReason::UnknownType,
        DropReason::WrongDirection,
        DropReason::SequenceLength,
        DropReason::NoKey,
        DropReason::NotFromServer,
        DropReason::Replayed,
        DropReason::Unauthentic,
        DropReason::WrongLength,
        DropReason::RequestLength,
        DropReason::RequestVersion,
        DropReason::RequestProtocol,
        DropReason::RequestExpired,
        DropReason::RequestToken,
        DropReason::NotInToken,
        DropReason::AddressConnected,
        DropReason::ClientConnected,
        DropReason::TokenUsedElsewhere,
        DropReason::HandshakesFull,
        DropReason::ChallengeInvalid,
        DropReason::Unexpected,
    ];

    fn index(self) -> usize {
        self as usize
    }
}

/// Counters of a netcode server or client.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NetcodeStats {
    /// Datagrams handed to `handle`.
    pub datagrams_received: u64,
    /// Of those, the ones accepted (each other one is counted in [`dropped`](Self::dropped)).
    pub datagrams_accepted: u64,
    /// Datagrams written by `poll_transmit`.
    pub datagrams_sent: u64,
    /// Payload packets received and handed up.
    pub payloads_received: u64,
    /// Payload packets sent.
    pub payloads_sent: u64,
    /// Keep-alive packets sent.
    pub keep_alives_sent: u64,
    /// Client challenges sent (server).
    pub challenges_sent: u64,
    /// Client denials sent because every slot was taken (server).
    pub denials_sent: u64,
    /// Outgoing packets dropped because the queue toward the socket was full (the driver did
    /// not call `poll_transmit`).
    pub transmit_dropped: u64,
    /// Events dropped, oldest first, because the application did not poll them (server).
    pub events_dropped: u64,
    dropped: [u64; DropReason::ALL.len()],
}

impl NetcodeStats {
    /// Datagrams dropped for `reason`.
    pub fn dropped(&self, reason: DropReason) -> u64 {
        self.dropped[reason.index()]
    }

    /// Datagrams dropped, for any reason.
    pub fn dropped_total(&self) -> u64 {
        self.dropped.iter().sum()
    }

    fn drop(&mut self, reason: DropReason) {
        self.dropped[reason.index()] += 1;
    }

    /// Counts one datagram handed to `handle` by what reading it gave: accepted (a payload
    /// when `Some`), or dropped for its reason. The payload, if any, is passed on.
    pub(crate) fn count<T>(&mut self, read: Result<Option<T>, DropReason>) -> Option<T> {
        self.datagrams_received += 1;
        match read {
            Ok(payload) => {
                self.datagrams_accepted += 1;
                self.payloads_received += u64::from(payload.is_some());
                payload
            }
            Err(reason) => {
                self.drop(reason);
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where each reason stands in [`DropReason::ALL`], its declaration order. The match is
    /// exhaustive: a reason added to the enum does not compile here until it is given its place
    /// (declared last, the next one after `Unexpected`'s, which the test then names as the last).
    fn place(reason: DropReason) -> usize {
        match reason {
            DropReason::Oversized => 0,
            DropReason::TooSmall => 1,
            DropReason::UnknownType => 2,
            DropReason::WrongDirection => 3,
            DropReason::SequenceLength => 4,
            DropReason::NoKey => 5,
            DropReason::NotFromServer => 6,
            DropReason::Replayed => 7,
            DropReason::Unauthentic => 8,
            DropReason::WrongLength => 9,
            DropReason::RequestLength => 10,
            DropReason::RequestVersion => 11,
            DropReason::RequestProtocol => 12,
            DropReason::RequestExpired => 13,
            DropReason::RequestToken => 14,
            DropReason::NotInToken => 15,
            DropReason::AddressConnected => 16,
            DropReason::ClientConnected => 17,
            DropReason::TokenUsedElsewhere => 18,
            DropReason::HandshakesFull => 19,
            DropReason::ChallengeInvalid => 20,
            DropReason::Unexpected => 21,
        }
    }

    #[test]
    fn all_lists_every_reason_once_at_its_index() {
        for (i, &reason) in DropReason::ALL.iter().enumerate() {
            assert_eq!(reason.index(), i, "{reason:?}");
            assert_eq!(place(reason), i, "{reason:?}");
        }
        // The last reason declared closes the list.
        assert_eq!(place(DropReason::Unexpected) + 1, DropReason::ALL.len());
    }

    #[test]
    fn every_datagram_is_counted_once_as_accepted_or_dropped() {
        let mut stats = NetcodeStats::default();
        assert_eq!(stats.count(Ok(Some(7))), Some(7));
        assert_eq!(stats.count::<u8>(Ok(None)), None);
        assert_eq!(stats.count::<u8>(Err(DropReason::Replayed)), None);
        assert_eq!(stats.datagrams_received, 3);
        assert_eq!(stats.datagrams_accepted, 2);
        assert_eq!(stats.payloads_received, 1);
        assert_eq!(stats.dropped(DropReason::Replayed), 1);
        assert_eq!(stats.dropped_total(), 1);
    }

    #[test]
    fn each_reason_is_counted_apart() {
        let mut stats = NetcodeStats::default();
        for (i, &reason) in DropReason::ALL.iter().enumerate() {
            for _ in 0..=i {
                stats.drop(reason);
            }
        }
        for (i, &reason) in DropReason::ALL.iter().enumerate() {
            assert_eq!(stats.dropped(reason), i as u64 + 1, "{reason:?}");
        }
        let n = DropReason::ALL.len() as u64;
        assert_eq!(stats.dropped_total(), n * (n + 1) / 2);
    }
}
