//! A networked game's netcode as small parts, sans-I/O: they take time as an argument and
//! bytes as Rabbit messages the game sends how it likes, so they work with any game loop and
//! any carrier (hopnet's drivers, its simulator, a Bevy app).
//!
//! | Part | Side | What it does |
//! |---|---|---|
//! | [`tick_sync`] | client | runs the client's tick ahead of the server's by half the round trip plus a jitter margin, so its input for tick `T` arrives before `T` is simulated; steers at a bounded rate, jumps only past a named gap |
//! | [`input`] | both | each tick's input sent with the last unacknowledged ones (redundancy, unreliable); buffered by the server per client per tick, applied at its tick; late and lost inputs counted; an input delay; hostile inputs dropped and counted |
//! | [`predict`] | client | the client's own inputs applied at once through the game's [`Simulation`](predict::Simulation); rewind and replay when the server disagrees beyond a tolerance; corrections blended in, counted and sized |
//! | [`interpolate`] | client | remote entities drawn a delay behind the newest snapshot; dead reckoning for a bounded time when snapshots stop; converging back without a jump |
//! | [`lag_compensation`] | server | a bounded history of hit volumes; a client's action judged against the world at its view's tick, its claim clamped to a rewind window |
//! | [`replicate`] | both | the world sent at scale: each client only the entities in its scope (rooms, a spatial rule), in priority order (an accumulator), within its byte budget (the game's cap and its link's rate), each entity a delta against the state that client acknowledged |
//!
//! How they fit in one game loop, and what each costs, is in the `sync_lab` example: a small
//! shooter in hopnet's simulator, one server and four clients, which measures each part (its
//! flags turn prediction, lag compensation and redundancy off).
//!
//! # Where each rule lives
//!
//! | File | Rule |
//! |---|---|
//! | `tick_sync.rs` | the client's tick: samples smoothed, the lead, the bounded rate, the gap that jumps, a clock that leaps |
//! | `input/message.rs` | the input message and the acknowledgement (Rabbit types) and how they travel |
//! | `input/sender.rs` | the client's inputs until acknowledged, the input delay, the round trip from an ack |
//! | `input/buffer.rs` | the server's inputs by tick, once each; late and lost; the bounds a client is held to |
//! | `predict.rs` | the history, the replay, the smoothing of corrections |
//! | `interpolate.rs` | the snapshot buffer, interpolation, dead reckoning, converging back |
//! | `lag_compensation.rs` | the history of hit volumes, the rewind, the window |
//! | `replicate/` | rooms, spatial scope, the priority accumulator, the budget, baselines, the update, the server and client sides (one file each; the module's docs hold its table) |
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod input;
pub mod interpolate;
pub mod lag_compensation;
pub mod predict;
pub mod replicate;
pub mod tick_sync;

/// A simulation tick's number, as client and server count them.
pub type Tick = u32;

/// The README's example, compiled and run with the crate's doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
