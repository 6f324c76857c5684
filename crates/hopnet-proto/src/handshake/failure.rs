//! Why a client gave up on a handshake, told by what it tried.

use std::fmt;
use std::time::Duration;

/// What a client sent before its connect timeout passed without a confirmation: the reason
/// behind [`DisconnectReason::ConnectTimeout`](crate::DisconnectReason::ConnectTimeout), from
/// [`Client::handshake_failure`](crate::Client::handshake_failure), and the driver's
/// [`Error::Handshake`](crate::Error::Handshake).
///
/// Its `Display` says which step failed: no `Challenge` ever came (the server is not there, or
/// does not speak the protocol), or `Challenge`s were answered but the server never
/// acknowledged a probe (PROTOCOL.md, "The client's handshake").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HandshakeFailure {
    /// How long the client tried: its connect timeout.
    pub waited: Duration,
    /// `Init`s sent: one salt, repeated until a `Challenge` came.
    pub inits: u32,
    /// `Challenge`s answered with a `ChallengeResponse`.
    pub challenges: u32,
    /// Probes sent after a `ChallengeResponse`, none acknowledged.
    pub probes: u32,
}

impl HandshakeFailure {
    /// Whether the server answered at least one `Init`: the handshake failed at the
    /// confirmation, not at the first step.
    pub fn was_challenged(&self) -> bool {
        self.challenges > 0
    }
}

impl fmt::Display for HandshakeFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = self.waited.as_secs_f64();
        if !self.was_challenged() {
            return write!(
                f,
                "the server never answered: {} sent in {secs:.1} s, no Challenge came back",
                plural(self.inits, "Init"),
            );
        }
        write!(
            f,
            "the server never confirmed the connection: {} answered, then {} sent in {secs:.1} \
             s (each an empty reliable chunk 255 with FIN, which a server that accepted the \
             ChallengeResponse acknowledges), none acknowledged and no packet received",
            plural(self.challenges, "Challenge"),
            plural(self.probes, "probe"),
        )
    }
}

fn plural(n: u32, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn says_which_step_failed() {
        let mut f = HandshakeFailure {
            waited: Duration::from_secs(10),
            inits: 12,
            challenges: 0,
            probes: 0,
        };
        assert_eq!(
            f.to_string(),
            "the server never answered: 12 Inits sent in 10.0 s, no Challenge came back"
        );
        f.inits = 1;
        f.challenges = 1;
        f.probes = 11;
        let text = f.to_string();
        assert!(
            text.starts_with(
                "the server never confirmed the connection: 1 Challenge answered, then 11 \
                 probes sent in 10.0 s"
            ),
            "{text}"
        );
    }
}
