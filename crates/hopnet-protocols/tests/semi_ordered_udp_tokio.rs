//! A semi-ordered UDP server and client under hopnet's tokio driver, over loopback with 10 % of
//! the datagrams lost both ways: the same machines and the same check as under the blocking driver.

use std::time::{Duration, Instant};

use hopnet::tokio::Driver;

mod common;
use common::lossy;
use hopnet_protocols::semi_ordered_udp::{Client, ClientMode, Config, EchoCheck, Event, Server};

#[test]
fn echoes_come_back_under_the_tokio_driver() {
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
        let mut check = EchoCheck::new(count, 200, ClientMode::Mixed);
        let deadline = Instant::now() + Duration::from_secs(20);
        let serve = async {
            loop {
                server.poll(Duration::from_millis(5)).await.unwrap();
            }
        };
        let play = async {
            let mut next = 0;
            while !(next == count && check.all_reliable_back()) && Instant::now() < deadline {
                while next < count {
                    let payload = check.payload(next);
                    let mode = check.mode(next);
                    if driver
                        .machine()
                        .send(Instant::now(), mode, true, &payload)
                        .is_err()
                    {
                        break;
                    }
                    check.sent();
                    next += 1;
                }
                driver.poll(Duration::from_millis(5)).await.unwrap();
                while let Some(event) = driver.machine().poll_event() {
                    if let Event::Delivered {
                        reliability,
                        payload,
                        ..
                    } = event
                    {
                        check.echo(reliability, &payload);
                    }
                }
            }
        };
        tokio::select! {
            () = serve => unreachable!("the server serves until the client is done"),
            () = play => {}
        }
        assert!(check.succeeded(), "{:?}", check.summary());
        let summary = check.summary();
        assert_eq!(summary.sent, count, "{summary:?}");
        assert_eq!(summary.reliable, count / 3 * 2, "{summary:?}");
        assert!(summary.echoed >= summary.reliable, "{summary:?}");
        let stats = server.machine().stats();
        assert_eq!((stats.dropped, stats.malformed), (0, 0), "{stats:?}");
    });
}
