//! The request to drain: Kubernetes sends SIGTERM to a pod it deletes (a fleet scaling down, a
//! node drained) and waits its grace period before SIGKILL. The server takes it as "finish what
//! is in play, then stop", not as "stop now".

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Raised once SIGTERM arrives; never lowered.
///
/// ```no_run
/// use snow_fight::fleet::DrainSignal;
///
/// let drain = DrainSignal::on_sigterm().unwrap();
/// assert!(!drain.requested()); // until `kill -TERM <pid>`
/// ```
#[derive(Clone, Debug)]
pub struct DrainSignal {
    raised: Arc<AtomicBool>,
}

impl DrainSignal {
    /// Raised by SIGTERM from now on, instead of the process being terminated.
    pub fn on_sigterm() -> io::Result<DrainSignal> {
        let raised = Arc::new(AtomicBool::new(false));
        signal_hook::flag::register(signal_hook::consts::SIGTERM, raised.clone())?;
        Ok(DrainSignal { raised })
    }

    /// A signal that only [`DrainSignal::raise`] raises (for tests, or a drain asked for by
    /// other means).
    pub fn manual() -> DrainSignal {
        DrainSignal {
            raised: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Asks to drain.
    pub fn raise(&self) {
        self.raised.store(true, Ordering::SeqCst);
    }

    /// Whether a drain was asked for.
    pub fn requested(&self) -> bool {
        self.raised.load(Ordering::SeqCst)
    }
}
