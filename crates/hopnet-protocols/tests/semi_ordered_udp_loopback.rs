//! Semi-ordered UDP over real loopback sockets through 10 % loss both ways (hopnet's
//! impairment on the server's and the clients' drivers): echoes and forwards.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use hopnet::Driver;

mod common;
use common::semi_ordered::{send_what_fits, take_echoes};
use common::{Served, lossy};
use hopnet_protocols::semi_ordered_udp::{
    Client, ClientMode, Config, EchoCheck, Event, Reliability, Server,
};

fn client(server: SocketAddr, config: Config, seed: u64) -> Driver<Client> {
    let mut driver =
        Driver::bind("127.0.0.1:0", Client::new(server, config, Instant::now())).unwrap();
    driver.set_impairment(lossy(seed));
    driver
}

fn echo_run(server: SocketAddr, config: Config, mode: ClientMode, count: u32, seed: u64) {
    let mut driver = client(server, config, seed);
    let mut check = EchoCheck::new(count, 200, mode);
    let mut next = 0;
    let deadline = Instant::now() + Duration::from_secs(20);
    while !(next == count && check.all_reliable_back()) {
        assert!(Instant::now() < deadline, "{mode:?}: {:?}", check.summary());
        send_what_fits(driver.machine(), &mut check, &mut next, count);
        driver.poll(Duration::from_millis(5)).unwrap();
        take_echoes(driver.machine(), &mut check);
    }
    assert!(check.succeeded(), "{mode:?}: {:?}", check.summary());
}

#[test]
fn echoes_come_back_through_ten_percent_loss_both_ways() {
    let served = Served::start(Server::new(Config::default()));
    let addr = served.addr;
    for (seed, mode) in [
        ClientMode::Mixed,
        ClientMode::SemiOrdered,
        ClientMode::Unordered,
    ]
    .into_iter()
    .enumerate()
    {
        echo_run(addr, Config::default(), mode, 400, seed as u64 + 1);
    }
    let stats = served.stop().stats();
    assert!(stats.delivered >= 1200 - 400 / 3, "{stats:?}");
    assert_eq!((stats.dropped, stats.malformed), (0, 0));
}

#[test]
fn the_wrap_over_loopback() {
    let config = Config::starting_at(0xff_ff80);
    let served = Served::start(Server::new(config.clone()));
    echo_run(served.addr, config, ClientMode::Mixed, 400, 11);
    served.stop();
}

#[test]
fn forwards_reach_a_second_client_through_loss() {
    let served = Served::start(Server::new(Config::default()));
    let addr = served.addr;
    let mut a = client(addr, Config::default(), 21);
    let mut b = client(addr, Config::default(), 22);
    // b makes itself known first, then a sends packages for everyone else.
    b.machine()
        .send(Instant::now(), Reliability::Unordered, true, b"hello")
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while b.machine().unconfirmed() > 0 {
        assert!(Instant::now() < deadline);
        b.poll(Duration::from_millis(5)).unwrap();
    }
    let count = 300u32;
    for i in 0..count {
        let mode = [Reliability::Unordered, Reliability::SemiOrdered][i as usize % 2];
        a.machine()
            .send(Instant::now(), mode, false, &i.to_be_bytes())
            .unwrap();
    }
    let mut got = Vec::new();
    while got.len() < count as usize {
        assert!(Instant::now() < deadline, "{} forwarded", got.len());
        a.poll(Duration::from_millis(2)).unwrap();
        b.poll(Duration::from_millis(2)).unwrap();
        while let Some(Event::Delivered {
            reliability,
            payload,
            ..
        }) = b.machine().poll_event()
        {
            if payload != b"hello" {
                let i = u32::from_be_bytes(payload[..4].try_into().unwrap());
                if reliability == Reliability::SemiOrdered {
                    let before = got.iter().filter(|&&j| j < i).count();
                    assert_eq!(before, i as usize, "{i} came before a package sent earlier");
                }
                got.push(i);
            }
        }
        while let Some(Event::Delivered { payload, .. }) = a.machine().poll_event() {
            assert!(payload.is_empty(), "nothing comes back to the sender");
        }
    }
    got.sort_unstable();
    got.dedup();
    assert_eq!(got.len(), count as usize);
    let stats = served.stop().stats();
    assert_eq!(stats.forwarded, u64::from(count));
}
