//! The spatial rule of relevance: whether an entity at one place is in view of a client
//! looking from another. The game implements [`Spatial`] or takes one of the common rules.

/// A point in the game's world (a 2D game leaves `z` at zero).
pub type Position = [f32; 3];

/// Whether an entity at `entity` is relevant to a client whose point of view is `viewer`.
///
/// Called for every client and every entity each tick, so it should be cheap. Rooms are
/// checked first: an entity in no room with the client is never asked about.
///
/// ```
/// use hopnet_sync::replicate::{Position, Spatial};
///
/// /// Only what is in front of the viewer (larger x).
/// struct Ahead;
/// impl Spatial for Ahead {
///     fn in_scope(&self, viewer: Position, entity: Position) -> bool {
///         entity[0] >= viewer[0]
///     }
/// }
/// assert!(Ahead.in_scope([0.0; 3], [1.0, 0.0, 0.0]));
/// ```
pub trait Spatial: Send + Sync {
    /// Whether the entity is in the client's scope.
    fn in_scope(&self, viewer: Position, entity: Position) -> bool;
}

/// No spatial rule: every entity sharing a room with the client is in its scope (a
/// [`Replicator`](super::server::Replicator)'s rule unless it is given another).
///
/// ```
/// use hopnet_sync::replicate::{Everywhere, Spatial};
///
/// assert!(Everywhere.in_scope([0.0; 3], [1e9, -1e9, 0.0]));
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Everywhere;

impl Spatial for Everywhere {
    fn in_scope(&self, _viewer: Position, _entity: Position) -> bool {
        true
    }
}

/// Entities within a distance of the viewer.
///
/// ```
/// use hopnet_sync::replicate::{Radius, Spatial};
///
/// let near = Radius(10.0);
/// assert!(near.in_scope([0.0; 3], [6.0, 8.0, 0.0]));
/// assert!(!near.in_scope([0.0; 3], [6.0, 8.1, 0.0]));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Radius(pub f32);

impl Spatial for Radius {
    fn in_scope(&self, viewer: Position, entity: Position) -> bool {
        distance_squared(viewer, entity) <= self.0 * self.0
    }
}

/// Entities in the viewer's cell of a grid or in the cells around it: the world is cut into
/// cubes of side `cell` (squares, for a 2D game), and a client sees its own cell and `reach`
/// cells further each way. Cheaper to reason about than a radius (a whole cell comes or
/// goes), and how an interest-management grid works.
///
/// ```
/// use hopnet_sync::replicate::{Grid, Spatial};
///
/// let grid = Grid { cell: 10.0, reach: 1 };
/// assert!(grid.in_scope([5.0, 5.0, 0.0], [19.0, -9.0, 0.0])); // the next cells
/// assert!(!grid.in_scope([5.0, 5.0, 0.0], [21.0, 5.0, 0.0])); // two cells away
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Grid {
    /// A cell's side.
    pub cell: f32,
    /// How many cells each way past the viewer's own are in view.
    pub reach: u32,
}

impl Grid {
    /// The cell a point is in.
    pub fn cell_of(&self, p: Position) -> [i64; 3] {
        // `as` saturates (and maps NaN to 0): a point far outside the world is in the edge cell.
        p.map(|v| (v / self.cell).floor() as i64)
    }
}

impl Spatial for Grid {
    fn in_scope(&self, viewer: Position, entity: Position) -> bool {
        let (a, b) = (self.cell_of(viewer), self.cell_of(entity));
        let reach = i64::from(self.reach);
        (0..3).all(|i| a[i].abs_diff(b[i]) <= reach as u64)
    }
}

/// The squared straight-line distance between two points.
pub(crate) fn distance_squared(a: Position, b: Position) -> f32 {
    (0..3).map(|i| (a[i] - b[i]) * (a[i] - b[i])).sum()
}
