//! The comparison harness as a library: the codec suite (rabbit and its peers on the
//! 1000-entity snapshot), the transport suite (hopnet and its peers over loopback UDP), and
//! the pieces both share (timing, the machine, tables, JSON rows).

/// Gives every item the attributes written first, in brackets: the derives and container
/// attributes that several declarations share, written once.
///
/// The attributes are written at the call site and the items are matched as token trees:
/// derives expanded from tokens of the macro's own body lose their generated names to its
/// hygiene (bincode's `field_0`).
macro_rules! each_with {
    ([$($shared:tt)*]) => {};
    (
        [$($shared:tt)*]
        $(#[$attr:meta])* pub $kind:ident $name:ident { $($body:tt)* }
        $($rest:tt)*
    ) => {
        $($shared)*
        $(#[$attr])*
        pub $kind $name { $($body)* }
        each_with! { [$($shared)*] $($rest)* }
    };
}

pub mod cipher;
pub mod codec;
pub mod deku_types;
pub mod delta;
pub mod dogfight;
pub mod limit;
pub mod mirror;
pub mod report;
pub mod servers;
pub mod snapshot;
pub mod transport;
