//! An R-TYPE instance and a player under hopnet's tokio driver, over loopback with 10 % of the
//! datagrams lost both ways: the same machines as under the blocking driver.

use std::time::{Duration, Instant};

mod common;
use common::lossy;

use hopnet::tokio::Driver;
use hopnet_protocols::rtype::{Instance, InstanceClient, Phase, moves};

#[test]
fn a_player_plays_under_the_tokio_driver() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut instance = Driver::bind("127.0.0.1:0", Instance::new(5)).await.unwrap();
        instance.set_impairment(lossy(1));
        let server = instance.local_addr().unwrap();
        let client = InstanceClient::new(server, 5, moves(30), Instant::now());
        let mut player = Driver::bind("127.0.0.1:0", client).await.unwrap();
        player.set_impairment(lossy(2));
        let deadline = Instant::now() + Duration::from_secs(30);
        let serve = async {
            loop {
                instance.poll(Duration::from_millis(50)).await.unwrap();
            }
        };
        let play = async {
            while *player.machine().phase() != Phase::Done && Instant::now() < deadline {
                player.poll(Duration::from_millis(50)).await.unwrap();
            }
        };
        tokio::select! {
            () = serve => unreachable!("the instance serves until the player is done"),
            () = play => {}
        }
        let c = player.machine();
        assert_eq!(*c.phase(), Phase::Done);
        assert_eq!(c.moves_done(), 30);
        assert!(c.stats().checks >= 1);
    });
}
