//! renet 2 with its netcode transport (`renet_netcode`, unsecure authentication: packets are
//! still framed and encrypted by netcode). The application loop is renet's: `update`, the
//! transport's `update`, read messages, queue messages, `send_packets`; here run as fast as
//! the loop turns (a game would turn it at its tick rate, which caps renet's throughput at
//! `available_bytes_per_tick` per tick). Reliable messages use the `ReliableUnordered` default
//! channel, unreliable ones the `Unreliable` channel.

use std::net::{SocketAddr, UdpSocket};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use renet::{ConnectionConfig, DefaultChannel, RenetClient, RenetServer, ServerEvent};
use renet_netcode::{
    ClientAuthentication, NetcodeClientTransport, NetcodeServerTransport, ServerAuthentication,
    ServerConfig,
};

use super::relay::Relay;
use super::tick::{Message, Side, TickOutcome, TickPlan, run_pair};
use super::{Outcome, Params, RttParams, Shared, payload, ping_loop, route, tag_of};

const PROTOCOL_ID: u64 = 7;

fn err(e: impl std::fmt::Debug) -> String {
    format!("{e:?}")
}

fn now_since_epoch() -> Duration {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
}

struct ServerSide {
    server: RenetServer,
    transport: NetcodeServerTransport,
    last: Instant,
}

impl ServerSide {
    fn update(&mut self) -> Result<(), String> {
        let dt = since(&mut self.last);
        self.server.update(dt);
        self.transport.update(dt, &mut self.server).map_err(err)
    }
}

/// The time since `last`, which becomes now: renet's update takes the step.
fn since(last: &mut Instant) -> Duration {
    let now = Instant::now();
    let dt = now - *last;
    *last = now;
    dt
}

struct ClientSide {
    client: RenetClient,
    transport: NetcodeClientTransport,
    last: Instant,
}

impl ClientSide {
    fn connect(server: SocketAddr) -> Result<ClientSide, String> {
        let socket = UdpSocket::bind("127.0.0.1:0").map_err(err)?;
        let transport = NetcodeClientTransport::new(
            now_since_epoch(),
            ClientAuthentication::Unsecure {
                protocol_id: PROTOCOL_ID,
                client_id: 1,
                server_addr: server,
                user_data: None,
            },
            socket,
        )
        .map_err(err)?;
        Ok(ClientSide {
            client: RenetClient::new(ConnectionConfig::default()),
            transport,
            last: Instant::now(),
        })
    }

    fn update(&mut self) -> Result<(), String> {
        let dt = since(&mut self.last);
        self.client.update(dt);
        self.transport.update(dt, &mut self.client).map_err(err)
    }

    fn send_packets(&mut self) {
        // A full kernel buffer is an error here; renet resends what was lost.
        let _ = self.transport.send_packets(&mut self.client);
    }

    fn wait_connected(&mut self, limit: Duration) -> Result<(), String> {
        let t = Instant::now();
        while !self.client.is_connected() {
            if t.elapsed() > limit {
                return Err("renet did not connect".into());
            }
            self.update()?;
            self.send_packets();
            thread::sleep(Duration::from_millis(1));
        }
        Ok(())
    }
}

/// Binds a server whose netcode tokens accept the address `route` gives for it (a relay's, or
/// its own), which is where the client sends.
fn server_for<R>(
    route: impl FnOnce(SocketAddr) -> Result<(SocketAddr, R), String>,
) -> Result<(ServerSide, SocketAddr, R), String> {
    // The relay's address must be among the server's public addresses, and the relay needs the
    // server's address: bind the socket first, then build the transport.
    let socket = UdpSocket::bind("127.0.0.1:0").map_err(err)?;
    let addr = socket.local_addr().map_err(err)?;
    let (target, relay) = route(addr)?;
    let side = ServerSide {
        server: RenetServer::new(ConnectionConfig::default()),
        transport: NetcodeServerTransport::new(
            ServerConfig {
                current_time: now_since_epoch(),
                max_clients: 4,
                protocol_id: PROTOCOL_ID,
                public_addresses: vec![target],
                authentication: ServerAuthentication::Unsecure,
            },
            socket,
        )
        .map_err(err)?,
        last: Instant::now(),
    };
    Ok((side, target, relay))
}

/// Reliable one-way throughput.
pub fn reliable(p: &Params) -> Result<Outcome, String> {
    let (mut srv_side, target, relay) = server_for(|a| route(a, p.loss, p.seed))?;
    let shared = Shared::new();
    let (sh, size, count, deadline) = (shared.clone(), p.size, p.count, p.deadline);
    let channel: u8 = DefaultChannel::ReliableUnordered.into();
    let srv = super::spawn_server(move || -> Result<(), String> {
        let give_up = Instant::now() + deadline + Duration::from_secs(10);
        let mut clients = Vec::new();
        while !sh.is_done() && Instant::now() < give_up {
            srv_side.update()?;
            while let Some(ev) = srv_side.server.get_event() {
                match ev {
                    ServerEvent::ClientConnected { client_id } => clients.push(client_id),
                    ServerEvent::ClientDisconnected { reason, .. } => {
                        return Err(format!("the server dropped the client: {reason:?}"));
                    }
                }
            }
            for &id in &clients {
                while let Some(m) = srv_side.server.receive_message(id, channel) {
                    if m.len() == size {
                        sh.deliver(count);
                    }
                }
            }
            srv_side.transport.send_packets(&mut srv_side.server);
            thread::yield_now();
        }
        Ok(())
    });
    let client_result = (|| -> Result<(), String> {
        let mut c = ClientSide::connect(target)?;
        c.wait_connected(Duration::from_secs(5))?;
        let msg = bytes::Bytes::from(payload(size, 0));
        shared.start();
        let mut sent = 0u64;
        while !shared.is_done() && !shared.past(deadline) {
            c.update()?;
            while sent < count && c.client.can_send_message(channel, size) {
                c.client.send_message(channel, msg.clone());
                sent += 1;
            }
            c.send_packets();
            thread::yield_now();
        }
        Ok(())
    })();
    shared.finish(srv, relay, client_result, count, deadline)
}

/// Unreliable echo.
pub fn rtt(p: &RttParams) -> Result<Vec<f64>, String> {
    let (mut srv_side, addr, _relay) = server_for(|a| route(a, 0.0, 0))?;
    let shared = Shared::new();
    let sh = shared.clone();
    let channel: u8 = DefaultChannel::Unreliable.into();
    let give_up = Instant::now() + p.deadline + Duration::from_secs(10);
    let srv = super::spawn_server(move || -> Result<(), String> {
        let mut clients = Vec::new();
        while !sh.is_done() && Instant::now() < give_up {
            srv_side.update()?;
            while let Some(ev) = srv_side.server.get_event() {
                if let ServerEvent::ClientConnected { client_id } = ev {
                    clients.push(client_id);
                }
            }
            for &id in &clients {
                while let Some(m) = srv_side.server.receive_message(id, channel) {
                    srv_side.server.send_message(id, channel, m);
                }
            }
            srv_side.transport.send_packets(&mut srv_side.server);
            thread::yield_now();
        }
        Ok(())
    });
    let result = (|| -> Result<Vec<f64>, String> {
        let mut c = ClientSide::connect(addr)?;
        c.wait_connected(Duration::from_secs(5))?;
        ping_loop(
            p,
            &mut c,
            |c, _, msg| {
                c.client.send_message(channel, msg);
                c.send_packets();
                Ok(())
            },
            |c, i| {
                c.update()?;
                while let Some(m) = c.client.receive_message(channel) {
                    if tag_of(&m) == i {
                        return Ok(true);
                    }
                }
                c.send_packets();
                thread::yield_now();
                Ok(false)
            },
        )
    })();
    shared.end(srv, result)
}

fn channel(reliable: bool) -> u8 {
    if reliable {
        DefaultChannel::ReliableUnordered.into()
    } else {
        DefaultChannel::Unreliable.into()
    }
}

/// The server side of the tick case: renet's loop once per tick (`update`, the transport's
/// `update`, read both channels, queue the tick's messages, `send_packets`).
struct TickServer {
    side: ServerSide,
    client: Option<renet::ClientId>,
}

impl Side for TickServer {
    fn turn(&mut self, out: &[Message], received: &mut dyn FnMut(&[u8])) -> Result<(), String> {
        self.side.update()?;
        while let Some(ev) = self.side.server.get_event() {
            match ev {
                ServerEvent::ClientConnected { client_id } => self.client = Some(client_id),
                ServerEvent::ClientDisconnected { reason, .. } => {
                    return Err(format!("the client disconnected: {reason:?}"));
                }
            }
        }
        if let Some(id) = self.client {
            for reliable in [true, false] {
                while let Some(m) = self.side.server.receive_message(id, channel(reliable)) {
                    received(&m);
                }
            }
            for m in out {
                let bytes = bytes::Bytes::copy_from_slice(&m.bytes);
                self.side
                    .server
                    .send_message(id, channel(m.reliable), bytes);
            }
        } else if !out.is_empty() {
            return Err("no client".into());
        }
        self.side.transport.send_packets(&mut self.side.server);
        Ok(())
    }

    fn ready(&self) -> bool {
        self.client.is_some()
    }
}

/// The client side of the tick case, as [`TickServer`].
struct TickClient {
    side: ClientSide,
}

impl Side for TickClient {
    fn turn(&mut self, out: &[Message], received: &mut dyn FnMut(&[u8])) -> Result<(), String> {
        self.side.update()?;
        if self.side.client.is_disconnected() {
            return Err(format!(
                "disconnected: {:?}",
                self.side.client.disconnect_reason()
            ));
        }
        for reliable in [true, false] {
            while let Some(m) = self.side.client.receive_message(channel(reliable)) {
                received(&m);
            }
        }
        for m in out {
            let bytes = bytes::Bytes::copy_from_slice(&m.bytes);
            self.side.client.send_message(channel(m.reliable), bytes);
        }
        self.side.send_packets();
        Ok(())
    }
}

/// The tick case.
pub fn tick(plan: &TickPlan) -> Result<TickOutcome, String> {
    let (side, _, relay) = server_for(|a| {
        let relay = Relay::spawn(a, 0.0, 0).map_err(err)?;
        Ok((relay.addr(), relay))
    })?;
    let server = TickServer { side, client: None };
    run_pair(plan, relay, server, |addr, _| {
        let mut side = ClientSide::connect(addr)?;
        side.wait_connected(Duration::from_secs(5))?;
        Ok(TickClient { side })
    })
}
