//! The spec's messages by name: which type of this crate defines each.

use super::Definition;
use hopnet_codec::schema::Body;

/// Every message of the spec, by the spec's name, in the spec's order (plus `ObjectKind`, which
/// this crate gives its own name, after `Object`).
///
/// `Error` is [`ErrorMessage`](crate::ErrorMessage) here; `Dead` and `Pong` are variants without
/// a body ([`EntityKind::Dead`](crate::EntityKind::Dead),
/// [`ResponseKind::Pong`](crate::ResponseKind::Pong)).
pub const MESSAGES: &[&str] = &[
    "ServerMessage",
    "Event",
    "EventKind",
    "GameOver",
    "Snapshot",
    "Entity",
    "EntityKind",
    "Object",
    "ObjectKind",
    "Player",
    "Dead",
    "Direction",
    "Point",
    "Response",
    "ResponseKind",
    "Error",
    "Pong",
    "Connect",
    "ClientMessage",
    "Request",
    "RequestKind",
    "Action",
    "Break",
    "Throw",
    "Move",
];

/// The definition of the message with this name: a name of [`MESSAGES`], or the Rust name of a
/// type (`ErrorMessage`).
pub fn definition(name: &str) -> Option<Definition> {
    use crate::*;
    use hopnet_codec::schema::Describe;
    fn of<T: Describe>() -> Definition {
        Definition::of(&T::type_schema())
    }
    fn unit_variant<T: Describe>(name: &str) -> Definition {
        let schema = T::type_schema();
        let Body::Enum { variants, .. } = &schema.body else {
            unreachable!("{} is an enum", schema.name)
        };
        let variant = variants
            .iter()
            .find(|v| v.name == name)
            .expect("the variant exists");
        Definition::of_unit_variant(variant)
    }
    Some(match name {
        "ServerMessage" => of::<ServerMessage>(),
        "Event" => of::<Event>(),
        "EventKind" => of::<EventKind>(),
        "GameOver" => of::<GameOver>(),
        "Snapshot" => of::<Snapshot>(),
        "Entity" => of::<Entity>(),
        "EntityKind" => of::<EntityKind>(),
        "Object" => of::<Object>(),
        "ObjectKind" => of::<ObjectKind>(),
        "Player" => of::<Player>(),
        "Dead" => unit_variant::<EntityKind>("Dead"),
        "Direction" => of::<Direction>(),
        "Point" => of::<Point>(),
        "Response" => of::<Response>(),
        "ResponseKind" => of::<ResponseKind>(),
        "Error" | "ErrorMessage" => of::<ErrorMessage>(),
        "Pong" => unit_variant::<ResponseKind>("Pong"),
        "Connect" => of::<Connect>(),
        "ClientMessage" => of::<ClientMessage>(),
        "Request" => of::<Request>(),
        "RequestKind" => of::<RequestKind>(),
        "Action" => of::<Action>(),
        "Break" => of::<Break>(),
        "Throw" => of::<Throw>(),
        "Move" => of::<Move>(),
        _ => return None,
    })
}

/// The definitions of all [`MESSAGES`], in order.
pub fn definitions() -> Vec<Definition> {
    MESSAGES
        .iter()
        .map(|name| definition(name).expect("every listed message has a definition"))
        .collect()
}
