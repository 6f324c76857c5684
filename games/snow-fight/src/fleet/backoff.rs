//! How long to wait before calling a lost SDK server again: doubling from a short first wait
//! to a ceiling, so that a sidecar that restarts is found again within moments while one that
//! is gone for long is not called hundreds of times a second.

use std::time::Duration;

/// Waits that double from `first` up to `most`, until [`Backoff::reset`].
///
/// ```
/// use std::time::Duration;
/// use snow_fight::fleet::Backoff;
///
/// let mut backoff = Backoff::new(Duration::from_millis(100), Duration::from_millis(300));
/// assert_eq!(backoff.next_wait(), Duration::from_millis(100));
/// assert_eq!(backoff.next_wait(), Duration::from_millis(200));
/// assert_eq!(backoff.next_wait(), Duration::from_millis(300));
/// backoff.reset();
/// assert_eq!(backoff.next_wait(), Duration::from_millis(100));
/// ```
#[derive(Clone, Debug)]
pub struct Backoff {
    first: Duration,
    most: Duration,
    next: Duration,
}

impl Backoff {
    /// Waits from `first`, doubling, never above `most`.
    pub fn new(first: Duration, most: Duration) -> Backoff {
        Backoff {
            first,
            most,
            next: first.min(most),
        }
    }

    /// The wait before the next attempt; the one after it is twice as long.
    pub fn next_wait(&mut self) -> Duration {
        let wait = self.next;
        self.next = (self.next * 2).min(self.most);
        wait
    }

    /// After a success: the next failure waits the shortest time again.
    pub fn reset(&mut self) {
        self.next = self.first.min(self.most);
    }
}

impl Default for Backoff {
    /// From 100 ms up to 5 s.
    fn default() -> Backoff {
        Backoff::new(Duration::from_millis(100), Duration::from_secs(5))
    }
}
