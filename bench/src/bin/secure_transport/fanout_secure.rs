//! `fanout-1000` in secure mode: the suite's case (`bench::transport::fanout`) with the server
//! made by `Server::bind_secure` and the clients `SecureClient`s, each with a connect token
//! of its own. The server's loop, the clients' loop (one thread, one epoll set, a socket per
//! client on an address of its own in 127.0.0.0/8) and the measure (the server thread's CPU
//! time per second of wall time over the ticks) are the suite's; the suite's check that no
//! datagram is left queued after a tick is replaced here by the count of snapshots that arrived.

use std::io;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, UdpSocket};
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant, SystemTime};

use bench::transport::fanout::FanoutPlan;
use bench::transport::hopnet_peer::{Flavor, config};
use bench::transport::{noise, spawn_server};
use hopnet::Server;
use hopnet::secure::{ConnectTokenBuilder, Key, SecureClient};
use hopnet::{Config, ConnectionId, Delivery, Event, Machine, Payload};
use rustix::event::{Timespec, epoll};

const PROTOCOL_ID: u64 = 7;
const SWEEP: Duration = Duration::from_millis(10);
const EVENTS: usize = 1024;

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

fn thread_cpu() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(
        t.tv_sec.max(0) as u64,
        t.tv_nsec.clamp(0, 999_999_999) as u32,
    )
}

fn sleep_until(t: Instant) {
    let now = Instant::now();
    if t > now {
        std::thread::sleep(t - now);
    }
}

fn client_addr(i: usize) -> SocketAddr {
    let (x, y) = (1 + i / 250, 1 + i % 250);
    let x = u8::try_from(x).unwrap_or(u8::MAX);
    SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::new(127, 0, x, y as u8), 0))
}

/// What one run measured.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    pub cpu: Duration,
    pub wall: Duration,
    pub clients: usize,
    pub arrived: u64,
    pub expected: u64,
    pub late: u32,
    pub failures: u64,
    /// Datagrams the server received over the ticks (the clients' keep-alives).
    pub received: u64,
}

impl Outcome {
    /// The server's CPU nanoseconds per second of wall time.
    pub fn cpu_per_second(&self) -> f64 {
        self.cpu.as_nanos() as f64 / self.wall.as_secs_f64().max(1e-9)
    }
}

#[derive(Default)]
struct Sync {
    connected: OnceLock<usize>,
    done: AtomicBool,
    accepted: AtomicUsize,
    abort: AtomicBool,
}

struct ServerSide {
    cpu: Duration,
    wall: Duration,
    late: u32,
    failures: u64,
    received: u64,
}

fn serve(mut server: Server, plan: &FanoutPlan, sync: &Sync) -> Result<ServerSide, String> {
    let give_up = Instant::now() + plan.setup + Duration::from_secs(5);
    let mut ids: Vec<ConnectionId> = Vec::with_capacity(plan.clients);
    loop {
        server.poll(Duration::from_millis(5)).map_err(err)?;
        while let Some(ev) = server.poll_event() {
            if ev.event == Event::Connected {
                ids.push(ev.connection);
            }
        }
        if sync.connected.get().is_some_and(|&n| ids.len() >= n) {
            break;
        }
        if sync.abort.load(Ordering::Relaxed) {
            return Err("the clients failed".into());
        }
        if Instant::now() > give_up {
            return Err(format!("{} connections accepted", ids.len()));
        }
    }
    sync.accepted.store(ids.len(), Ordering::Relaxed);
    let (mut late, mut failures) = (0, 0);
    let start = Instant::now() + Duration::from_millis(20);
    sleep_until(start);
    let cpu_start = thread_cpu();
    let received_before = server.socket_stats().received;
    for k in 0..plan.ticks {
        if sync.abort.load(Ordering::Relaxed) {
            return Err("the clients failed".into());
        }
        sleep_until(start + plan.period * k);
        let began = Instant::now();
        server.poll(Duration::ZERO).map_err(err)?;
        while let Some(ev) = server.poll_event() {
            if let Event::Disconnected { .. } = ev.event {
                failures += 1;
                ids.retain(|&id| id != ev.connection);
            }
        }
        let snapshot = Payload::from(noise(plan.size, u64::from(k)));
        for &id in &ids {
            if server
                .machine()
                .send_payload(id, &snapshot, Delivery::Unreliable)
                .is_err()
            {
                failures += 1;
            }
        }
        server.flush().map_err(err)?;
        if began.elapsed() > plan.period {
            late += 1;
        }
    }
    sleep_until(start + plan.period * plan.ticks);
    Ok(ServerSide {
        cpu: thread_cpu().saturating_sub(cpu_start),
        wall: Instant::now().saturating_duration_since(start),
        late,
        failures: failures + server.socket_stats().send_errors,
        received: server.socket_stats().received - received_before,
    })
}

struct PoolClient {
    socket: UdpSocket,
    conn: SecureClient,
}

/// The secure clients, their epoll set and what they have seen.
struct Pool {
    epoll: OwnedFd,
    clients: Vec<PoolClient>,
    events: Vec<epoll::Event>,
    rx: Vec<u8>,
    tx: Vec<u8>,
    next_sweep: Instant,
    size: usize,
    connected: usize,
    snapshots: u64,
}

impl Pool {
    fn connect(
        n: usize,
        server: SocketAddr,
        key: &Key,
        config: &Config,
        size: usize,
    ) -> Result<Pool, String> {
        let epoll = epoll::create(epoll::CreateFlags::CLOEXEC).map_err(err)?;
        let now = Instant::now();
        let mut clients = Vec::with_capacity(n);
        for i in 0..n {
            let addr = client_addr(i);
            let socket = UdpSocket::bind(addr).map_err(|e| format!("bind {addr}: {e}"))?;
            socket.set_nonblocking(true).map_err(err)?;
            epoll::add(
                &epoll,
                &socket,
                epoll::EventData::new_u64(i as u64),
                epoll::EventFlags::IN,
            )
            .map_err(err)?;
            let token = ConnectTokenBuilder::new(PROTOCOL_ID, i as u64, [server])
                .expire_seconds(600)
                .timeout_seconds(15)
                .issue(key, SystemTime::now())
                .map_err(err)?;
            let conn = SecureClient::new(config.clone(), token, now).map_err(err)?;
            clients.push(PoolClient { socket, conn });
        }
        let mut pool = Pool {
            epoll,
            clients,
            events: Vec::with_capacity(EVENTS),
            rx: vec![0; 1 << 16],
            tx: Vec::with_capacity(1 << 16),
            next_sweep: now + SWEEP,
            size,
            connected: 0,
            snapshots: 0,
        };
        for i in 0..n {
            pool.transmit(i, now);
        }
        Ok(pool)
    }

    fn transmit(&mut self, i: usize, now: Instant) {
        let c = &mut self.clients[i];
        while let Some(t) = Machine::poll_transmit(&mut c.conn, now, &mut self.tx, 64) {
            for d in t.split(&self.tx) {
                let _ = c.socket.send_to(d, t.destination);
            }
        }
    }

    fn events(&mut self, i: usize) {
        while let Some(ev) = self.clients[i].conn.poll_event() {
            match ev {
                Event::Connected => self.connected += 1,
                Event::Message { bytes, .. } if bytes.len() == self.size => self.snapshots += 1,
                _ => {}
            }
        }
    }

    fn pump(&mut self, max_wait: Duration) -> Result<(), String> {
        let now = Instant::now();
        let wait = max_wait.min(self.next_sweep.saturating_duration_since(now));
        let timeout = Timespec {
            tv_sec: wait.as_secs().try_into().unwrap_or(i64::MAX),
            tv_nsec: wait.subsec_nanos().into(),
        };
        self.events.clear();
        match epoll::wait(
            &self.epoll,
            rustix::buffer::spare_capacity(&mut self.events),
            Some(&timeout),
        ) {
            Ok(_) | Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(err(e)),
        }
        let now = Instant::now();
        for k in 0..self.events.len() {
            let i = self.events[k].data.u64() as usize;
            let (len, from) = match self.clients[i].socket.recv_from(&mut self.rx) {
                Ok(got) => got,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                Err(e) => return Err(err(e)),
            };
            Machine::handle(&mut self.clients[i].conn, now, from, &self.rx[..len]);
            self.events(i);
            self.transmit(i, now);
        }
        if now >= self.next_sweep {
            for i in 0..self.clients.len() {
                let due = Machine::poll_timeout(&self.clients[i].conn);
                if due.is_some_and(|t| t <= now) {
                    Machine::handle_timeout(&mut self.clients[i].conn, now);
                    self.events(i);
                    self.transmit(i, now);
                }
            }
            self.next_sweep = now + SWEEP;
        }
        Ok(())
    }
}

/// One run: the secure server on its thread, the secure clients on this one.
pub fn run_once(plan: &FanoutPlan) -> Result<Outcome, String> {
    let cfg = config(Flavor::Extended)?;
    let key = Key::generate();
    let server =
        Server::bind_secure("127.0.0.1:0", cfg.clone(), PROTOCOL_ID, key.clone()).map_err(err)?;
    let addr = server.local_addr().map_err(err)?;
    let sync = Arc::new(Sync::default());
    let srv = {
        let (sync, plan) = (sync.clone(), plan.clone());
        spawn_server(move || {
            let r = serve(server, &plan, &sync);
            sync.done.store(true, Ordering::Release);
            r
        })
    };
    let clients = (|| -> Result<Pool, String> {
        let mut pool = Pool::connect(plan.clients, addr, &key, &cfg, plan.size)?;
        let give_up = Instant::now() + plan.setup;
        while pool.connected < pool.clients.len() && Instant::now() < give_up && !srv.is_finished()
        {
            pool.pump(Duration::from_millis(5))?;
        }
        let _ = sync.connected.set(pool.connected);
        while !sync.done.load(Ordering::Acquire) {
            pool.pump(Duration::from_millis(10))?;
        }
        let drain = Instant::now() + plan.drain;
        while Instant::now() < drain {
            pool.pump(Duration::from_millis(10))?;
        }
        Ok(pool)
    })();
    if clients.is_err() {
        sync.abort.store(true, Ordering::Relaxed);
    }
    let server = srv
        .join()
        .unwrap_or_else(|_| Err("server thread panicked".into()));
    let pool = clients.map_err(|e| format!("clients: {e}"))?;
    let server = server.map_err(|e| format!("server: {e}"))?;
    let accepted = sync.accepted.load(Ordering::Relaxed);
    Ok(Outcome {
        cpu: server.cpu,
        wall: server.wall,
        clients: pool.connected,
        arrived: pool.snapshots,
        expected: accepted as u64 * u64::from(plan.ticks),
        late: server.late,
        failures: server.failures,
        received: server.received,
    })
}
