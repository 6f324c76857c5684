//! A WOKE server and client under hopnet's tokio driver, over loopback with 10 % of the
//! datagrams lost both ways: the same machines and the same check as under the blocking driver.

use std::time::{Duration, Instant};

use hopnet::tokio::Driver;

mod common;
use common::on_tokio;
use common::woke::{send_commands, take_events};
use hopnet_protocols::woke::{Client, Config, EchoCheck, Server};

#[test]
fn reliable_commands_come_back_under_the_tokio_driver() {
    let count = 300;
    let mut check = EchoCheck::new(count, 100, true);
    let deadline = Instant::now() + Duration::from_secs(20);
    let play = async |driver: &mut Driver<Client>| {
        let mut next = 0;
        while !(next == count && check.all_back()) && Instant::now() < deadline {
            send_commands(driver.machine(), &mut check, &mut next, count, true);
            driver.poll(Duration::from_millis(5)).await.unwrap();
            take_events(driver.machine(), &mut check);
        }
        driver.machine().close(Instant::now());
        driver.flush().await.unwrap();
    };
    let stats = on_tokio(
        Server::new(Config::default()),
        |addr| Client::new(addr, Config::default(), Instant::now()),
        play,
        |server| server.stats().clone(),
    );
    assert!(check.succeeded(), "{:?}", check.summary());
    let summary = check.summary();
    assert_eq!(
        (summary.sent, summary.echoed),
        (count, count),
        "{summary:?}"
    );
    assert_ne!(summary.client_id, 0, "{summary:?}");
    assert_eq!(stats.connected, 1, "{stats:?}");
    assert!(stats.delivered >= u64::from(count), "{stats:?}");
    assert_eq!((stats.dropped, stats.malformed), (0, 0), "{stats:?}");
}
