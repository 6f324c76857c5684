//! Answers the Source engine's server queries (`A2S_INFO`, `A2S_PLAYER`, `A2S_RULES`), so that
//! server browsers and query tools list a Snow Fight server; without sockets, like
//! [`session`](crate::session).
//!
//! Never an amplifier: a datagram from an address that has not echoed its challenge gets only
//! an `S2C_CHALLENGE` (9 bytes), which is no larger than any request it answers (an
//! `A2S_INFO` request is at least 25 bytes, the others 9). Only a request carrying the
//! address's challenge gets the full answer. A challenge is a keyed hash of the address, so
//! the responder keeps no state per client: [`Responder::answer`] takes `&self`.
//!
//! [`AnswerQueries::answer_queries`](crate::host::AnswerQueries::answer_queries) puts it on a server's
//! socket and feeds it the live game.

use std::hash::{BuildHasher, RandomState};
use std::net::SocketAddr;
use std::time::Duration;

use hopnet_codec::layout::Computed;
use hopnet_codec::{from_bytes, to_bytes};
use hopnet_formats::source_query::{
    CText, Challenge, ChallengeNumber, INFO_PAYLOAD, InfoRequest, InfoResponse, Player,
    PlayerRequest, PlayerResponse, Rule, RulesRequest, RulesResponse, SINGLE,
};

/// The largest answer written: a response must fit one datagram, as split responses are not
/// written. Players and rules past it are left out.
pub const MAX_ANSWER: usize = 1_400;

/// What `A2S_INFO` says about the server.
#[derive(Debug, Clone)]
pub struct ServerInfo {
    /// The server's name (`--server-name`).
    pub name: String,
    /// The map (`--map`).
    pub map: String,
    /// The game's name.
    pub game: String,
    /// The game's version.
    pub version: String,
    /// The most players the server takes.
    pub max_players: u8,
    /// The port the game listens on.
    pub game_port: u16,
}

/// One player, as `A2S_PLAYER` lists it.
#[derive(Debug, Clone)]
pub struct PlayerInfo {
    /// The player's name.
    pub name: String,
    /// The player's score.
    pub score: i32,
    /// How long the player has been connected.
    pub connected: Duration,
    /// Whether the player is a bot (counted in `A2S_INFO`'s bots).
    pub bot: bool,
}

/// Answers query datagrams; one per server.
pub struct Responder {
    keys: RandomState,
}

impl Default for Responder {
    fn default() -> Self {
        Self::new()
    }
}

impl Responder {
    /// A responder with fresh challenge keys.
    pub fn new() -> Self {
        Self {
            keys: RandomState::new(),
        }
    }

    /// Whether `datagram` is a server query (it starts with `FF FF FF FF`, which no hopnet
    /// datagram does).
    pub fn is_query(datagram: &[u8]) -> bool {
        datagram.starts_with(&SINGLE)
    }

    /// The challenge of `from`: never -1, which clients send to ask for one.
    pub fn challenge_for(&self, from: SocketAddr) -> i32 {
        match self.keys.hash_one(from) as i32 {
            -1 => 0,
            c => c,
        }
    }

    /// The answer to `datagram` from `from`, or `None` for a datagram that is no query this
    /// answers. `players` and `rules` are read only when the answer needs them.
    pub fn answer(
        &self,
        from: SocketAddr,
        datagram: &[u8],
        info: &ServerInfo,
        players: impl FnOnce() -> Vec<PlayerInfo>,
        rules: impl FnOnce() -> Vec<(String, String)>,
    ) -> Option<Vec<u8>> {
        let expected = self.challenge_for(from);
        let challenge = || {
            to_bytes(&Challenge {
                challenge: expected,
            })
            .ok()
        };
        match *datagram.get(4)? {
            b'T' => {
                let request: InfoRequest = from_bytes(datagram).ok()?;
                if request.payload != INFO_PAYLOAD {
                    return None;
                }
                if request.challenge != [ChallengeNumber(expected)] {
                    return challenge();
                }
                to_bytes(&info_response(info, &players())).ok()
            }
            b'U' => {
                let request: PlayerRequest = from_bytes(datagram).ok()?;
                if request.challenge != expected {
                    return challenge();
                }
                let mut response = PlayerResponse {
                    count: Computed::new(),
                    players: players()
                        .into_iter()
                        .take(255)
                        .enumerate()
                        .map(|(i, p)| Player {
                            index: i as u8,
                            name: p.name.replace('\0', ""),
                            score: p.score,
                            duration: p.connected.as_secs_f32(),
                        })
                        .collect(),
                };
                fit(&mut response.players, |players| {
                    to_bytes(&PlayerResponse {
                        count: Computed::new(),
                        players: players.to_vec(),
                    })
                    .ok()
                })
            }
            b'V' => {
                let request: RulesRequest = from_bytes(datagram).ok()?;
                if request.challenge != expected {
                    return challenge();
                }
                let mut rules: Vec<Rule> = rules()
                    .into_iter()
                    .map(|(name, value)| Rule {
                        name: name.replace('\0', ""),
                        value: value.replace('\0', ""),
                    })
                    .collect();
                fit(&mut rules, |rules| {
                    to_bytes(&RulesResponse {
                        count: Computed::new(),
                        rules: rules.to_vec(),
                    })
                    .ok()
                })
            }
            _ => None,
        }
    }
}

/// The encoding of the most leading items whose answer fits [`MAX_ANSWER`].
fn fit<T>(items: &mut Vec<T>, encode: impl Fn(&[T]) -> Option<Vec<u8>>) -> Option<Vec<u8>> {
    loop {
        let bytes = encode(items)?;
        if bytes.len() <= MAX_ANSWER || items.is_empty() {
            return Some(bytes);
        }
        items.pop();
    }
}

fn info_response(info: &ServerInfo, players: &[PlayerInfo]) -> InfoResponse {
    let clean = |s: &str| s.replace('\0', "");
    let count = |n: usize| u8::try_from(n).unwrap_or(u8::MAX);
    InfoResponse {
        protocol: 17,
        name: clean(&info.name),
        map: clean(&info.map),
        folder: "snow-fight".into(),
        game: clean(&info.game),
        app_id: 0,
        players: count(players.len()),
        max_players: info.max_players,
        bots: count(players.iter().filter(|p| p.bot).count()),
        server_type: b'd',
        environment: if cfg!(windows) {
            b'w'
        } else if cfg!(target_os = "macos") {
            b'm'
        } else {
            b'l'
        },
        visibility: 0,
        vac: 0,
        version: clean(&info.version),
        extra_data: Computed::new(),
        port: Some(info.game_port),
        steam_id: None,
        spectator: None,
        keywords: Some(CText("snow-fight".into())),
        game_id: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info() -> ServerInfo {
        ServerInfo {
            name: "Yard".into(),
            map: "yard".into(),
            game: "Snow Fight".into(),
            version: "0.1.0".into(),
            max_players: 8,
            game_port: 4000,
        }
    }

    fn players() -> Vec<PlayerInfo> {
        vec![
            PlayerInfo {
                name: "ann".into(),
                score: 3,
                connected: Duration::from_secs(5),
                bot: false,
            },
            PlayerInfo {
                name: "bot 1".into(),
                score: 0,
                connected: Duration::from_secs(2),
                bot: true,
            },
        ]
    }

    fn ask(r: &Responder, from: SocketAddr, request: &[u8]) -> Option<Vec<u8>> {
        r.answer(from, request, &info(), players, || {
            vec![("mp_timelimit".into(), "20".into())]
        })
    }

    fn info_request(challenge: Option<i32>) -> Vec<u8> {
        to_bytes(&InfoRequest {
            payload: INFO_PAYLOAD.into(),
            challenge: challenge.map(ChallengeNumber).into_iter().collect(),
        })
        .unwrap()
    }

    #[test]
    fn challenge_first_then_the_answer() {
        let r = Responder::new();
        let from: SocketAddr = "127.0.0.1:5000".parse().unwrap();
        let request = info_request(None);
        let answer = ask(&r, from, &request).unwrap();
        assert!(answer.len() <= request.len());
        let Challenge { challenge } = from_bytes(&answer).unwrap();
        let info: InfoResponse =
            from_bytes(&ask(&r, from, &info_request(Some(challenge))).unwrap()).unwrap();
        assert_eq!((info.players, info.bots, info.max_players), (2, 1, 8));
        assert_eq!(info.port, Some(4000));
        assert_eq!(info.name, "Yard");

        let players = to_bytes(&PlayerRequest { challenge }).unwrap();
        let list: PlayerResponse = from_bytes(&ask(&r, from, &players).unwrap()).unwrap();
        assert_eq!(list.players.len(), 2);
        assert_eq!(list.players[0].name, "ann");
        assert_eq!(list.players[0].score, 3);
        let rules = to_bytes(&RulesRequest { challenge }).unwrap();
        let rules: RulesResponse = from_bytes(&ask(&r, from, &rules).unwrap()).unwrap();
        assert_eq!(rules.rules[0].value, "20");
    }

    #[test]
    fn never_larger_than_the_request_without_the_challenge() {
        let r = Responder::new();
        let from: SocketAddr = "127.0.0.1:5000".parse().unwrap();
        let other: SocketAddr = "127.0.0.1:5001".parse().unwrap();
        let challenge = r.challenge_for(other);
        for request in [
            info_request(None),
            info_request(Some(-1)),
            info_request(Some(challenge)),
            to_bytes(&PlayerRequest { challenge: -1 }).unwrap(),
            to_bytes(&PlayerRequest { challenge }).unwrap(),
            to_bytes(&RulesRequest { challenge: -1 }).unwrap(),
            to_bytes(&RulesRequest { challenge }).unwrap(),
        ] {
            let answer = ask(&r, from, &request).unwrap();
            assert!(answer.len() <= request.len(), "{request:02x?}");
        }
    }

    #[test]
    fn random_query_datagrams_never_panic_nor_get_more_than_they_sent() {
        let r = Responder::new();
        let from: SocketAddr = "127.0.0.1:5000".parse().unwrap();
        let mut rng = crate::rng::Rng::new(29);
        let mut answered = 0;
        for _ in 0..20_000 {
            let len = 5 + rng.below(40) as usize;
            let mut datagram: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
            datagram[..4].copy_from_slice(&SINGLE);
            datagram[4] = [b'T', b'U', b'V', b'W', b'i'][rng.below(5) as usize];
            if datagram[4] == b'T' && rng.below(2) == 0 {
                // A well-formed A2S_INFO head, so that its challenge part is reached.
                let head = info_request(None);
                let n = head.len().min(datagram.len());
                datagram[..n].copy_from_slice(&head[..n]);
            }
            if let Some(answer) = ask(&r, from, &datagram) {
                assert!(answer.len() <= datagram.len(), "{datagram:02x?}");
                answered += 1;
            }
        }
        assert!(
            answered > 100,
            "only {answered} answered: the inputs miss the decoders"
        );
    }

    #[test]
    fn other_datagrams_get_nothing() {
        let r = Responder::new();
        let from: SocketAddr = "127.0.0.1:5000".parse().unwrap();
        for datagram in [
            &b""[..],
            b"\xff\xff\xff\xff",
            b"\xff\xff\xff\xffZ",
            b"\xff\xff\xff\xffTwrong\0",
            b"\x01\x02",
        ] {
            assert!(ask(&r, from, datagram).is_none());
        }
        assert!(!Responder::is_query(b"\x01\xff\xff\xff"));
    }

    #[test]
    fn a_long_player_list_fits_one_datagram() {
        let r = Responder::new();
        let from: SocketAddr = "127.0.0.1:5000".parse().unwrap();
        let many = || {
            (0..300)
                .map(|i| PlayerInfo {
                    name: format!("player with a long name {i}"),
                    score: i,
                    connected: Duration::ZERO,
                    bot: false,
                })
                .collect()
        };
        let request = to_bytes(&PlayerRequest {
            challenge: r.challenge_for(from),
        })
        .unwrap();
        let answer = r.answer(from, &request, &info(), many, Vec::new).unwrap();
        assert!(answer.len() <= MAX_ANSWER);
        let list: PlayerResponse = from_bytes(&answer).unwrap();
        assert!(!list.players.is_empty());
    }
}
