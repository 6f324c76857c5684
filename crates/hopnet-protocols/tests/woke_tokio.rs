//! A WOKE server and client under hopnet's tokio driver, over loopback with 10 % of the
//! datagrams lost both ways: the same machines and the same check as under the blocking driver.

use std::time::{Duration, Instant};

use hopnet::tokio::Driver;

mod common;
use common::lossy;
use hopnet_protocols::woke::{Client, Config, EchoCheck, Event, MAX_PENDING_RELIABLE, Server};

#[test]
fn reliable_commands_come_back_under_the_tokio_driver() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut server = Driver::bind("127.0.0.1:0", Server::new(Config::default()))
            .await
            .unwrap();
        server.set_impairment(lossy(1));
        let addr = server.local_addr().unwrap();
        let client = Client::new(addr, Config::default(), Instant::now());
        let mut driver = Driver::bind("127.0.0.1:0", client).await.unwrap();
        driver.set_impairment(lossy(2));
        let count = 300;
        let mut check = EchoCheck::new(count, 100, true);
        let deadline = Instant::now() + Duration::from_secs(20);
        let serve = async {
            loop {
                server.poll(Duration::from_millis(5)).await.unwrap();
            }
        };
        let play = async {
            let mut next = 0;
            while !(next == count && check.all_back()) && Instant::now() < deadline {
                while next < count && check.outstanding() < (MAX_PENDING_RELIABLE / 2) as u32 {
                    let (kind, data) = check.command(next);
                    driver.machine().send(kind, &data, true).unwrap();
                    check.sent();
                    next += 1;
                }
                driver.poll(Duration::from_millis(5)).await.unwrap();
                while let Some(event) = driver.machine().poll_event() {
                    match event {
                        Event::Connected(id) => check.connected(id),
                        Event::Command(c) => check.echo(c.kind, &c.data, c.reliable),
                        Event::Closed(reason) => panic!("closed: {reason:?}"),
                    }
                }
            }
            driver.machine().close(Instant::now());
            driver.flush().await.unwrap();
        };
        tokio::select! {
            () = serve => unreachable!("the server serves until the client is done"),
            () = play => {}
        }
        assert!(check.succeeded(), "{:?}", check.summary());
        let summary = check.summary();
        assert_eq!(
            (summary.sent, summary.echoed),
            (count, count),
            "{summary:?}"
        );
        assert_ne!(summary.client_id, 0, "{summary:?}");
        let stats = server.machine().stats();
        assert_eq!(stats.connected, 1, "{stats:?}");
        assert!(stats.delivered >= u64::from(count), "{stats:?}");
        assert_eq!((stats.dropped, stats.malformed), (0, 0), "{stats:?}");
    });
}
