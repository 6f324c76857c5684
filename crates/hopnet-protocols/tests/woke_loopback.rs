//! WOKE over real loopback sockets through 10 % loss both ways (hopnet's impairment on the
//! server's and the client's drivers): reliable, split and unreliable commands echoed.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use hopnet::Driver;

mod common;
use common::woke::{send_commands, take_events};
use common::{Served, lossy};
use hopnet_protocols::woke::{Client, Config, EchoCheck, Server};

fn echo_run(server: SocketAddr, count: u32, size: usize, reliable: bool, seed: u64) -> EchoCheck {
    let mut driver = Driver::bind(
        "127.0.0.1:0",
        Client::new(server, Config::default(), Instant::now()),
    )
    .unwrap();
    driver.set_impairment(lossy(seed));
    let mut check = EchoCheck::new(count, size, reliable);
    let mut next = 0;
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut linger = None;
    loop {
        let now = Instant::now();
        assert!(now < deadline, "{:?}", check.summary());
        if next == count
            && (check.all_back() || !reliable)
            && *linger.get_or_insert(now + Duration::from_millis(300)) <= now
        {
            break;
        }
        send_commands(driver.machine(), &mut check, &mut next, count, reliable);
        driver.poll(Duration::from_millis(5)).unwrap();
        take_events(driver.machine(), &mut check);
    }
    driver.machine().close(Instant::now());
    driver.flush().unwrap();
    check
}

#[test]
fn echoes_come_back_through_ten_percent_loss_both_ways() {
    let served = Served::start(Server::new(Config::default()));
    let addr = served.addr;
    let check = echo_run(addr, 400, 100, true, 1);
    assert!(check.succeeded(), "{:?}", check.summary());
    let check = echo_run(addr, 8, 5_000, true, 2);
    assert!(check.succeeded(), "split: {:?}", check.summary());
    let check = echo_run(addr, 60, 40, false, 3);
    let s = check.summary();
    assert!(
        s.echoed >= 30 && check.corrupt() == 0 && s.duplicates == 0,
        "{s:?}"
    );
    let stats = served.stop().stats();
    assert_eq!(stats.connected, 3);
    assert!(stats.delivered >= 408 + 30, "{stats:?}");
}
