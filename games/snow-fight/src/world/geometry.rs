//! Points and directions on the ground plane.

use std::ops::{Add, Mul, Sub};

/// A point or a vector on the ground plane. North is `+y`, east is `+x`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Vec2 {
    /// West to east.
    pub x: f32,
    /// South to north.
    pub y: f32,
}

impl Vec2 {
    /// The origin.
    pub const ZERO: Vec2 = Vec2 { x: 0.0, y: 0.0 };

    /// A vector from its coordinates.
    pub const fn new(x: f32, y: f32) -> Self {
        Vec2 { x, y }
    }

    /// Euclidean length.
    pub fn len(self) -> f32 {
        (self.x * self.x + self.y * self.y).sqrt()
    }

    /// Distance to `other`.
    pub fn dist(self, other: Vec2) -> f32 {
        (other - self).len()
    }

    /// This vector scaled to length 1, or zero if it is (nearly) zero.
    pub fn normalized(self) -> Vec2 {
        let len = self.len();
        if len < 1e-6 {
            Vec2::ZERO
        } else {
            self * (1.0 / len)
        }
    }
}

impl Add for Vec2 {
    type Output = Vec2;
    fn add(self, o: Vec2) -> Vec2 {
        Vec2::new(self.x + o.x, self.y + o.y)
    }
}

impl Sub for Vec2 {
    type Output = Vec2;
    fn sub(self, o: Vec2) -> Vec2 {
        Vec2::new(self.x - o.x, self.y - o.y)
    }
}

impl Mul<f32> for Vec2 {
    type Output = Vec2;
    fn mul(self, k: f32) -> Vec2 {
        Vec2::new(self.x * k, self.y * k)
    }
}

/// The spec's `Direction` bitfield: `NORTH = 1`, `WEST = 2`, `SOUTH = 4`, `EAST = 8`.
///
/// Opposite bits cancel out (north and south together is no vertical motion); the other four
/// bits of the byte are kept but mean nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Dir(pub u8);

impl Dir {
    /// Standing still.
    pub const NONE: Dir = Dir(0);
    /// `+y`.
    pub const NORTH: Dir = Dir(1);
    /// `-x`.
    pub const WEST: Dir = Dir(2);
    /// `-y`.
    pub const SOUTH: Dir = Dir(4);
    /// `+x`.
    pub const EAST: Dir = Dir(8);

    /// The raw bits.
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// Whether every bit of `other` is set here.
    pub const fn contains(self, other: Dir) -> bool {
        self.0 & other.0 == other.0
    }

    /// Both directions' bits.
    pub const fn union(self, other: Dir) -> Dir {
        Dir(self.0 | other.0)
    }

    /// The unit vector of this direction (diagonals normalized), or zero.
    pub fn vector(self) -> Vec2 {
        let mut v = Vec2::ZERO;
        if self.contains(Dir::NORTH) {
            v.y += 1.0;
        }
        if self.contains(Dir::SOUTH) {
            v.y -= 1.0;
        }
        if self.contains(Dir::EAST) {
            v.x += 1.0;
        }
        if self.contains(Dir::WEST) {
            v.x -= 1.0;
        }
        v.normalized()
    }

    /// The 8-way direction that best approximates `delta`; components smaller than `deadzone`
    /// are ignored, and a component less than half the other's is dropped (so a mostly
    /// northward delta gives `NORTH`, not `NORTH | EAST`).
    pub fn toward(delta: Vec2, deadzone: f32) -> Dir {
        let (ax, ay) = (delta.x.abs(), delta.y.abs());
        let mut d = Dir::NONE;
        if ax > deadzone && ax * 2.0 >= ay {
            d = d.union(if delta.x > 0.0 { Dir::EAST } else { Dir::WEST });
        }
        if ay > deadzone && ay * 2.0 >= ax {
            d = d.union(if delta.y > 0.0 {
                Dir::NORTH
            } else {
                Dir::SOUTH
            });
        }
        d
    }
}
