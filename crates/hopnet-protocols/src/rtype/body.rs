//! The messages' text: space-separated decimal fields, as the RFC's examples write them
//! ("A RTPE 0 4 4240 0"). A body with the wrong number of fields, or a field that is not a
//! number, is not that message.

/// The body's fields, if there are exactly `N`.
fn fields<const N: usize>(body: &str) -> Option<[&str; N]> {
    let mut it = body.split(' ');
    let out: [&str; N] = std::array::from_fn(|_| it.next().unwrap_or(""));
    (it.next().is_none() && out.iter().all(|f| !f.is_empty())).then_some(out)
}

/// One number, the whole body ("ID", "PORT", "PLAYER", "COUNT", "ENTITY").
pub fn number<T: std::str::FromStr>(body: &str) -> Option<T> {
    let [n] = fields::<1>(body)?;
    n.parse().ok()
}

/// A SPRITE's body: "ENTITY X Y".
pub fn sprite(body: &str) -> Option<(u32, i32, i32)> {
    let [id, x, y] = fields::<3>(body)?;
    Some((id.parse().ok()?, x.parse().ok()?, y.parse().ok()?))
}

/// A JOINED body: "PORT ID".
pub fn joined(body: &str) -> Option<(u16, u32)> {
    let [port, id] = fields::<2>(body)?;
    Some((port.parse().ok()?, id.parse().ok()?))
}

/// One LIST line: "NAME GAME PLAYERS MAX PORT ID".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing {
    /// The instance's name.
    pub name: String,
    /// The game: `RTYPE` for ours.
    pub game: String,
    /// Players in it now.
    pub players: u32,
    /// Players it takes.
    pub max_players: u32,
    /// Its UDP port.
    pub port: u16,
    /// Its id.
    pub id: u32,
}

impl Listing {
    /// Reads a LIST body.
    pub fn parse(body: &str) -> Option<Listing> {
        let [name, game, players, max, port, id] = fields::<6>(body)?;
        Some(Listing {
            name: name.to_owned(),
            game: game.to_owned(),
            players: players.parse().ok()?,
            max_players: max.parse().ok()?,
            port: port.parse().ok()?,
            id: id.parse().ok()?,
        })
    }
}

impl std::fmt::Display for Listing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {} {} {} {} {}",
            self.name, self.game, self.players, self.max_players, self.port, self.id
        )
    }
}

/// Whether `name` can be an instance's name: it is one field of a LIST line, so no spaces,
/// and short.
pub fn valid_name(name: &str) -> bool {
    (1..=32).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_graphic())
}
