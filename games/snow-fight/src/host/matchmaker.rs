//! Where a player goes when a server hosts several matches: the fullest match that is not
//! full. Filling one match before opening the next gets rounds started soonest (a round waits
//! for its minimum of players) and keeps the players of a half-empty process together rather
//! than alone in separate matches.

/// The placement rule: the fullest match with room, the first of equals.
///
/// ```
/// use snow_fight::host::Matchmaker;
///
/// let rule = Matchmaker::new(2);
/// // Two matches take players, a third (`None`) takes none: its round is over.
/// assert_eq!(rule.place(&[Some(0), Some(1), None]), Some(1));
/// assert_eq!(rule.place(&[Some(2), Some(2)]), None, "all full");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Matchmaker {
    capacity: usize,
}

impl Matchmaker {
    /// A rule for matches of at most `capacity` players.
    pub fn new(capacity: usize) -> Matchmaker {
        Matchmaker { capacity }
    }

    /// The most players a match holds.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The match a newcomer joins, given each match's players (`None`: a match that takes
    /// none, or a free slot); `None` when none has room.
    pub fn place(&self, occupancy: &[Option<usize>]) -> Option<usize> {
        occupancy
            .iter()
            .enumerate()
            .filter_map(|(i, players)| Some((i, (*players)?)))
            .filter(|&(_, players)| players < self.capacity)
            // The fullest; among equals the first, as `max_by_key` would give the last.
            .min_by_key(|&(i, players)| (std::cmp::Reverse(players), i))
            .map(|(i, _)| i)
    }
}

#[cfg(test)]
mod tests {
    use super::Matchmaker;

    #[test]
    fn the_fullest_match_with_room_takes_the_newcomer() {
        let rule = Matchmaker::new(4);
        assert_eq!(rule.place(&[Some(1), Some(3), Some(2)]), Some(1));
        // The fullest is full: the next fullest.
        assert_eq!(rule.place(&[Some(1), Some(4), Some(2)]), Some(2));
    }

    #[test]
    fn among_equals_the_first_takes_the_newcomer() {
        let rule = Matchmaker::new(2);
        assert_eq!(rule.place(&[Some(0), Some(0), Some(0)]), Some(0));
        assert_eq!(rule.place(&[Some(2), Some(1), Some(1)]), Some(1));
    }

    #[test]
    fn a_match_that_takes_no_one_is_passed_over() {
        let rule = Matchmaker::new(2);
        assert_eq!(rule.place(&[None, Some(0)]), Some(1));
        assert_eq!(rule.place(&[None, None]), None);
        assert_eq!(rule.place(&[]), None);
    }

    #[test]
    fn no_room_anywhere_places_no_one() {
        let rule = Matchmaker::new(2);
        assert_eq!(rule.place(&[Some(2), Some(2), Some(3)]), None);
        assert_eq!(Matchmaker::new(0).place(&[Some(0)]), None);
    }

    #[test]
    fn eight_arrivals_fill_four_matches_of_two_in_turn() {
        let rule = Matchmaker::new(2);
        let mut matches = vec![Some(0); 4];
        for _ in 0..8 {
            let i = rule.place(&matches).unwrap();
            matches[i] = matches[i].map(|n| n + 1);
        }
        assert_eq!(matches, vec![Some(2); 4]);
    }
}
