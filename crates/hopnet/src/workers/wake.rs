//! Waking a worker that sleeps in poll(2): a datagram on a Unix socket pair, one end polled by
//! the worker beside its UDP socket. The game writes only when the worker said it was going to
//! sleep ([`Wake::sleeping`]), so a game that queues to a busy worker makes no system call.

use std::io;
use std::os::unix::net::UnixDatagram;
use std::sync::atomic::{AtomicBool, Ordering, fence};

/// The game's side of a worker's wake-up.
#[derive(Debug)]
pub(crate) struct Wake {
    /// Set by the worker before it sleeps, cleared by whoever wakes it.
    sleeping: AtomicBool,
    tx: UnixDatagram,
}

/// The worker's side: the end it polls.
#[derive(Debug)]
pub(crate) struct Alarm {
    rx: UnixDatagram,
}

pub(crate) fn pair() -> io::Result<(Wake, Alarm)> {
    let (tx, rx) = UnixDatagram::pair()?;
    tx.set_nonblocking(true)?;
    rx.set_nonblocking(true)?;
    Ok((
        Wake {
            sleeping: AtomicBool::new(false),
            tx,
        },
        Alarm { rx },
    ))
}

impl Wake {
    /// Wakes the worker if it sleeps, after the caller has queued what it must see. A full
    /// socket means a wake-up is already waiting.
    pub(crate) fn wake(&self) {
        // Pairs with the fence in `Alarm::may_sleep`: either the worker sees what was queued
        // before this, or this sees it sleeping.
        fence(Ordering::SeqCst);
        if self.sleeping.load(Ordering::SeqCst) && self.sleeping.swap(false, Ordering::SeqCst) {
            let _ = self.tx.send(&[1]);
        }
    }

    /// Wakes the worker whether or not it said it sleeps (its queue is full and the game waits
    /// on it).
    pub(crate) fn force(&self) {
        self.sleeping.store(false, Ordering::SeqCst);
        let _ = self.tx.send(&[1]);
    }
}

impl Alarm {
    /// Says the worker is about to sleep; it must then look at its queues once more before it
    /// does.
    pub(crate) fn may_sleep(&self, wake: &Wake) {
        wake.sleeping.store(true, Ordering::SeqCst);
        fence(Ordering::SeqCst);
    }

    /// The worker is awake again: clears the flag and reads the wake-ups that came.
    pub(crate) fn awake(&self, wake: &Wake) {
        wake.sleeping.store(false, Ordering::SeqCst);
        let mut buf = [0u8; 64];
        while self.rx.recv(&mut buf).is_ok() {}
    }

    /// What poll(2) watches.
    pub(crate) fn socket(&self) -> &UnixDatagram {
        &self.rx
    }
}
