//! How far the client's picture of the world was from the instance's: for each SPRITE, the
//! distance between where the client showed that entity when the SPRITE came and where the
//! SPRITE says it is. The distances are kept up to a bound, so a long session (or a peer
//! flooding SPRITEs) holds bounded memory; the largest is kept whatever the count.

/// Distances kept for the percentiles; beyond, only the count and the largest.
pub const MAX_ERROR_SAMPLES: usize = 65_536;

/// The distances between what the client showed and what the SPRITEs said.
#[derive(Debug, Clone, Default)]
pub struct PositionError {
    samples: Vec<f64>,
    count: u64,
    sum: f64,
    max: f64,
}

/// [`PositionError`] summed up: the figures the example prints.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ErrorSummary {
    /// SPRITEs measured.
    pub count: u64,
    /// The mean distance (0 when none was measured).
    pub mean: f64,
    /// The median distance (0 when none was measured).
    pub p50: f64,
    /// The 99th percentile.
    pub p99: f64,
    /// The largest.
    pub max: f64,
}

impl PositionError {
    /// One SPRITE's distance. A distance that is not finite (no position reaches it, but a
    /// sum of absurd ones could) is counted as the largest possible.
    pub fn record(&mut self, distance: f64) {
        let distance = if distance.is_finite() {
            distance.max(0.0)
        } else {
            f64::MAX
        };
        self.count += 1;
        self.sum += distance;
        self.max = self.max.max(distance);
        if self.samples.len() < MAX_ERROR_SAMPLES {
            self.samples.push(distance);
        }
    }

    /// SPRITEs measured.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The median, 99th percentile and largest distance (the percentiles over the first
    /// [`MAX_ERROR_SAMPLES`]).
    pub fn summary(&self) -> ErrorSummary {
        // Selected rather than sorted: a session's progress asks for this often.
        let mut samples = self.samples.clone();
        let mut at = |q: f64| {
            if samples.is_empty() {
                return 0.0;
            }
            // Nearest rank: the smallest value at or above a share `q` of the samples.
            let rank = (q * samples.len() as f64).ceil() as usize;
            let index = rank.clamp(1, samples.len()) - 1;
            *samples.select_nth_unstable_by(index, f64::total_cmp).1
        };
        ErrorSummary {
            count: self.count,
            mean: if self.count == 0 {
                0.0
            } else {
                self.sum / self.count as f64
            },
            p50: at(0.5),
            p99: at(0.99),
            max: self.max,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_by_nearest_rank() {
        let mut e = PositionError::default();
        for d in (1..=100).rev() {
            e.record(f64::from(d));
        }
        let s = e.summary();
        assert_eq!((s.count, s.p50, s.p99, s.max), (100, 50.0, 99.0, 100.0));
        assert_eq!(s.mean, 50.5);
        assert_eq!(PositionError::default().summary(), ErrorSummary::default());
    }

    #[test]
    fn memory_is_bounded_and_the_largest_kept() {
        let mut e = PositionError::default();
        for _ in 0..MAX_ERROR_SAMPLES + 10 {
            e.record(1.0);
        }
        e.record(f64::INFINITY);
        e.record(f64::NAN);
        assert_eq!(e.samples.len(), MAX_ERROR_SAMPLES);
        let s = e.summary();
        assert_eq!(s.count, MAX_ERROR_SAMPLES as u64 + 12);
        assert_eq!((s.p99, s.max), (1.0, f64::MAX));
    }
}
