//! A semi-ordered UDP server and client under hopnet's tokio driver, over loopback with 10 % of
//! the datagrams lost both ways: the same machines and the same check as under the blocking driver.

use std::time::{Duration, Instant};

use hopnet::tokio::Driver;

mod common;
use common::on_tokio;
use common::semi_ordered::{send_what_fits, take_echoes};
use hopnet_protocols::semi_ordered_udp::{Client, ClientMode, Config, EchoCheck, Server};

#[test]
fn echoes_come_back_under_the_tokio_driver() {
    let count = 300;
    let mut check = EchoCheck::new(count, 200, ClientMode::Mixed);
    let deadline = Instant::now() + Duration::from_secs(20);
    let play = async |driver: &mut Driver<Client>| {
        let mut next = 0;
        while !(next == count && check.all_reliable_back()) && Instant::now() < deadline {
            send_what_fits(driver.machine(), &mut check, &mut next, count);
            driver.poll(Duration::from_millis(5)).await.unwrap();
            take_echoes(driver.machine(), &mut check);
        }
    };
    let stats = on_tokio(
        Server::new(Config::default()),
        |addr| Client::new(addr, Config::default(), Instant::now()),
        play,
        |server| server.stats(),
    );
    assert!(check.succeeded(), "{:?}", check.summary());
    let summary = check.summary();
    assert_eq!(summary.sent, count, "{summary:?}");
    assert_eq!(summary.reliable, count / 3 * 2, "{summary:?}");
    assert!(summary.echoed >= summary.reliable, "{summary:?}");
    assert_eq!((stats.dropped, stats.malformed), (0, 0), "{stats:?}");
}
