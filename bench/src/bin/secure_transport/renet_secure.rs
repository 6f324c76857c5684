//! renet 2 with its netcode transport in secure mode (`renet_netcode`: the server given a
//! private key, `ServerAuthentication::Secure`; the client a connect token from
//! `ConnectToken::generate`, `ClientAuthentication::Secure`). The loops are those of the
//! suite's `renet` peer (`bench::transport::renet_peer`, which authenticates unsecurely); only
//! the authentication differs.

use std::net::{SocketAddr, UdpSocket};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bench::transport::{Outcome, Params, RttParams, Shared, payload, ping_loop, route, tag_of};
use renet::{ConnectionConfig, DefaultChannel, RenetClient, RenetServer, ServerEvent};
use renet_netcode::{
    ClientAuthentication, ConnectToken, NetcodeClientTransport, NetcodeServerTransport,
    ServerAuthentication, ServerConfig, generate_random_bytes,
};

const PROTOCOL_ID: u64 = 7;

fn err(e: impl std::fmt::Debug) -> String {
    format!("{e:?}")
}

fn now_since_epoch() -> Duration {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
}

fn since(last: &mut Instant) -> Duration {
    let now = Instant::now();
    let dt = now - *last;
    *last = now;
    dt
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

struct ClientSide {
    client: RenetClient,
    transport: NetcodeClientTransport,
    last: Instant,
}

impl ClientSide {
    fn connect(server: SocketAddr, private_key: &[u8; 32]) -> Result<ClientSide, String> {
        let socket = UdpSocket::bind("127.0.0.1:0").map_err(err)?;
        let connect_token = ConnectToken::generate(
            now_since_epoch(),
            PROTOCOL_ID,
            300,
            1,
            15,
            vec![server],
            None,
            private_key,
        )
        .map_err(err)?;
        let transport = NetcodeClientTransport::new(
            now_since_epoch(),
            ClientAuthentication::Secure { connect_token },
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

/// A secure server whose tokens name the address `route` gives for it (a relay's, or its
/// own), which is where the client sends; and its private key.
fn server_for<R>(
    route: impl FnOnce(SocketAddr) -> Result<(SocketAddr, R), String>,
) -> Result<(ServerSide, SocketAddr, R, [u8; 32]), String> {
    let socket = UdpSocket::bind("127.0.0.1:0").map_err(err)?;
    let addr = socket.local_addr().map_err(err)?;
    let (target, relay) = route(addr)?;
    let private_key: [u8; 32] = generate_random_bytes();
    let side = ServerSide {
        server: RenetServer::new(ConnectionConfig::default()),
        transport: NetcodeServerTransport::new(
            ServerConfig {
                current_time: now_since_epoch(),
                max_clients: 4,
                protocol_id: PROTOCOL_ID,
                public_addresses: vec![target],
                authentication: ServerAuthentication::Secure { private_key },
            },
            socket,
        )
        .map_err(err)?,
        last: Instant::now(),
    };
    Ok((side, target, relay, private_key))
}

/// Reliable one-way throughput.
pub fn reliable(p: &Params) -> Result<Outcome, String> {
    let (mut srv_side, target, relay, key) = server_for(|a| route(a, p.loss, p.seed))?;
    let shared = Shared::new();
    let (sh, size, count, deadline) = (shared.clone(), p.size, p.count, p.deadline);
    let channel: u8 = DefaultChannel::ReliableUnordered.into();
    let srv = bench::transport::spawn_server(move || -> Result<(), String> {
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
        let mut c = ClientSide::connect(target, &key)?;
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
    let (mut srv_side, addr, _relay, key) = server_for(|a| route(a, 0.0, 0))?;
    let shared = Shared::new();
    let sh = shared.clone();
    let channel: u8 = DefaultChannel::Unreliable.into();
    let give_up = Instant::now() + p.deadline + Duration::from_secs(10);
    let srv = bench::transport::spawn_server(move || -> Result<(), String> {
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
        let mut c = ClientSide::connect(addr, &key)?;
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
