//! The messages a generated module holds: this crate's, by the names `rabbit-msg` gives them.

use super::TypeScript;
use hopnet_snow_fight::*;

/// The TypeScript codecs of every message of the spec (and the types `rabbit-msg` takes), under
/// the names `rabbit-msg encode` and `decode` take.
pub fn typescript() -> TypeScript {
    TypeScript::new()
        .message::<ServerMessage>("ServerMessage")
        .message::<Event>("Event")
        .message::<EventKind>("EventKind")
        .message::<GameOver>("GameOver")
        .message::<Snapshot>("Snapshot")
        .message::<Entity>("Entity")
        .message::<EntityKind>("EntityKind")
        .message::<Object>("Object")
        .message::<ObjectKind>("ObjectKind")
        .message::<Player>("Player")
        .message::<()>("Dead")
        .message::<Direction>("Direction")
        .message::<Point>("Point")
        .message::<Response>("Response")
        .message::<ResponseKind>("ResponseKind")
        .message::<ErrorMessage>("Error")
        .message::<ErrorMessage>("ErrorMessage")
        .message::<()>("Pong")
        .message::<Connect>("Connect")
        .message::<ClientMessage>("ClientMessage")
        .message::<Request>("Request")
        .message::<RequestKind>("RequestKind")
        .message::<Action>("Action")
        .message::<Break>("Break")
        .message::<Throw>("Throw")
        .message::<Move>("Move")
        // Their JSON form is their one field's (see `hopnet_snow_fight::json`).
        .transparent("ErrorMessage")
        .transparent("Direction")
}

/// The codecs of the messages named (those of [`typescript`], or the other seeds' types by
/// their module path, as `rabbit-msg` names them); all of this crate's when `names` is empty.
pub fn typescript_for(names: &[String]) -> Result<TypeScript, String> {
    use hopnet_codec::Encode;
    use hopnet_formats::*;
    if names.is_empty() {
        return Ok(typescript());
    }
    let all = typescript();
    let mut chosen = TypeScript::new();
    for name in names {
        let encoding = match name.as_str() {
            "semi_ordered::Datagram" => semi_ordered::Datagram::schema(),
            "dogfight::State" => dogfight::State::schema(),
            "dogfight::Event" => dogfight::Event::schema(),
            "woke::Packet" => woke::Packet::schema(),
            "rtype::Frame" => rtype::Frame::schema(),
            _ => match all.schema.messages().iter().find(|(n, _)| n == name) {
                Some((_, encoding)) => encoding.clone(),
                None => {
                    let known: Vec<&str> = all
                        .schema
                        .messages()
                        .iter()
                        .map(|(n, _)| n.as_str())
                        .collect();
                    return Err(format!(
                        "unknown message type `{name}` (known: {}, and the seeds' \
                         semi_ordered::Datagram, dogfight::State, dogfight::Event, \
                         woke::Packet, rtype::Frame)",
                        known.join(", ")
                    ));
                }
            },
        };
        chosen = chosen.message_encoding(name.clone(), encoding);
    }
    chosen.transparent = all.transparent;
    Ok(chosen)
}
