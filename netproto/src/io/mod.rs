//! Drivers that run the state machines over real sockets.
//!
//! - [`std`](self::std): `Server` and `Client` over `std::net::UdpSocket`, polled once per
//!   game tick or in a loop, plus a lossy UDP relay ([`relay`]) to inject loss and delay
//!   between real processes.
//! - `tokio` (feature `tokio`): the same over `tokio::net::UdpSocket` with `async fn recv`.

pub mod relay;
pub mod std;
#[cfg(feature = "tokio")]
pub mod tokio;
