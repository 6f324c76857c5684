//! What a run gathers while it measures.

use hopnet_sync::Tick;

/// The samples a run gathers, turned into a [`Report`] at its end.
#[derive(Debug, Default)]
pub(super) struct Samples {
    pub(super) input_to_view: Vec<f64>,
    pub(super) remote_error: Vec<f64>,
    pub(super) shots: u64,
    /// Shots that hit on the shooter's screen: (shooter, tick, target).
    pub(super) seen: Vec<(usize, Tick, usize)>,
}

/// The nearest-rank percentile (0 for no samples).
pub(super) fn percentile(samples: &mut [f64], p: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    samples.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * samples.len() as f64).ceil() as usize;
    samples[rank.clamp(1, samples.len()) - 1]
}
