//! Lossy floats: `quantize` on floats and vectors, `quaternion`, `unit_vector`.
//!
//! A game's state is mostly floats, and most of their bits are noise no player sees. These
//! attributes write a float, a vector, a rotation or a direction in the bits its precision
//! needs, each with a maximum error stated below and checked by property tests over the whole
//! range. All of them are field encodings like `range` or `varint`: checked at compile time,
//! recorded in the schema, and in a `#[rabbit(delta)]` container a field whose written bits did
//! not change is unchanged (one bit), so a body at rest costs nothing but that bit.
//!
//! | attribute | on | bits | maximum error |
//! |---|---|---|---|
//! | `quantize(range = "A..=B", precision = P)` | `f32`, `f64` | `⌈log2((B - A) / P + 1)⌉` | `P / 2` |
//! | the same | `[f32; N]`, `[f64; N]` | `N` times that | `P / 2` an axis, `√N · P / 2` in length |
//! | `quantize(..., x(...), y(...), ...)` | `[f32; N]`, `[f64; N]`, `N` ≤ 4 | the sum of the axes' | each axis's `P / 2` |
//! | `quaternion(bits = B)`, `B` 4..=20 | `[f32; 4]` or a [`Quaternion`] | `2 + 3B` | `4·asin(e·√(1 + R²) / 2)` ≈ `2·√6 / (2^B - 2)` rad |
//! | `unit_vector(bits = B)`, `B` 4..=24 | `[f32; 3]` or a [`UnitVector`] | `2B` | `2·asin(3·s / (2·√2))` ≈ `2.12·s` rad, `s = 2 / (2^B - 2)` |
//!
//! The common settings, as figures: a position in a 30 m pile to the millimetre
//! (`range = "-15.0..=15.0", precision = 0.001`) takes 15 bits an axis, 45 a position, and is
//! off by at most 0.5 mm an axis (0.87 mm in length); a rotation at Glenn Fiedler's 9 bits a
//! component takes 29 bits and is off by at most 0.553° (measured over two million random
//! rotations: at most 0.501°, 0.32° at the 99th percentile); at 10 bits, 32 bits and 0.275°; a
//! direction at 12 bits a coordinate takes 24 bits and is off by at most 0.0594°. Each codec
//! type's page derives its formula: [`Quantize`], [`QuantizeAxes`], [`SmallestThree`],
//! [`Octahedral`].
//!
//! # `#[rabbit(quantize(...))]` on vectors: one grid, or one per axis
//!
//! On an array of floats, `quantize` puts every axis on the grid given
//! ([`Quantize`](crate::codec::Quantize), as for one float: see
//! [`delta`](super::delta#rabbitquantizerange--ab-precision--p-floats-on-a-grid)). For axes
//! that differ, `x(...)`, `y(...)`, `z(...)` and `w(...)` give an axis its own `range`, its own
//! `precision` or both; what an axis does not give it takes from the whole's, and an array of
//! one to four axes may give each its own and the whole none. Each grid is checked against the
//! float type as for one float.
//!
//! # `#[rabbit(quaternion(bits = B))]`: smallest three
//!
//! A unit quaternion `(x, y, z, w)` has one component of magnitude at least 1/2, and the other
//! three lie within `±1/√2`; as `q` and `-q` are one rotation, the largest can be made positive
//! and left off: the index of the largest in 2 bits, then the other three on a grid of
//! `2^B - 1` points over `±1/√2` ([`SmallestThree`]). The value is normalized before it is
//! encoded; a quaternion of zero length, infinite or NaN is an encode error. Any bits decode to
//! a unit quaternion. A field's type is `[f32; 4]` in the order `x, y, z, w`, or a type of the
//! game that implements [`Quaternion`] (its docs show how, and what to do about a type of
//! another crate such as glam's `Quat`).
//!
//! Near a tie for the largest component, a decoded rotation may re-encode choosing the other
//! (an equally close encoding): keep as a delta's baseline the value as sent, as the
//! [`delta`](super::delta) page advises for quantized floats; a body at rest then costs one bit.
//!
//! # `#[rabbit(unit_vector(bits = B))]`: octahedral directions
//!
//! A direction is scaled onto the octahedron `|x| + |y| + |z| = 1`, whose upper half lies over
//! the diamond `|u| + |v| ≤ 1` and whose lower half folds out over the diamond's edges to fill
//! the square; `u` and `v` are then written on a grid of `2^B - 1` points over `[-1, 1]`
//! ([`Octahedral`]). The error is nearly the same everywhere on the sphere, unlike a pair of
//! angles'. A field's type is `[f32; 3]` or a type of the game that implements [`UnitVector`].
//!
//! # Example: Fiedler's cube
//!
//! ```
//! use hopnet_codec::Rabbit;
//!
//! #[derive(Rabbit, Debug, Clone, PartialEq)]
//! #[rabbit(delta)]
//! struct Cube {
//!     // x, y, z, w: 29 bits.
//!     #[rabbit(quaternion(bits = 9))]
//!     orientation: [f32; 4],
//!     // A 30 m floor to the millimetre, 15 bits an axis; height 0 to 8 m, 13 bits.
//!     #[rabbit(quantize(range = "-15.0..=15.0", precision = 0.001, y(range = "0.0..=8.0")))]
//!     position: [f32; 3],
//!     // Where it is pushed: 24 bits.
//!     #[rabbit(unit_vector(bits = 12))]
//!     push: [f32; 3],
//!     // Metres a second, by centimetres: 13 bits an axis.
//!     #[rabbit(quantize(range = "-32.0..=32.0", precision = 0.01))]
//!     velocity: [f32; 3],
//! }
//!
//! let cube = Cube {
//!     orientation: [0.1, 0.6, 0.0, 0.79],
//!     position: [1.2345, 0.5, -14.999],
//!     push: [0.6, 0.0, -0.8],
//!     velocity: [0.0, -9.81, 0.25],
//! };
//! // 29 + 43 + 24 + 39 = 135 bits where the floats take 416.
//! let bytes = hopnet_codec::to_bytes(&cube)?;
//! assert_eq!(bytes.len(), 17);
//! let sent: Cube = hopnet_codec::from_bytes(&bytes)?;
//! assert!((sent.position[0] - 1.2345).abs() <= 0.0005);
//!
//! // At rest, or moved by less than its grids tell apart: one bit.
//! let mut settled = sent.clone();
//! settled.position[0] += 0.0002;
//! assert_eq!(hopnet_codec::delta::to_bytes(&settled, &sent)?, [0]);
//! # Ok::<(), hopnet_codec::Error>(())
//! ```
//!
//! # Misuse
//!
//! Compile errors, at the token: `quaternion` on anything but `[f32; 4]` (or a type the
//! spelling cannot judge, which then needs [`Quaternion`]), `unit_vector` on anything but
//! `[f32; 3]` (or a [`UnitVector`]); bits outside 4..=20 (`quaternion`) or 4..=24
//! (`unit_vector`), or none; an unknown option; a grid per axis on a field that is no array of
//! one to four, an axis past the array's last, an axis given twice, an axis left without a
//! range or a precision; and every misuse of `quantize` on one float (an empty range, no
//! precision, a precision finer than the float type holds, reported at the axis that has it).
//!
//! [`Quantize`]: crate::codec::Quantize
//! [`QuantizeAxes`]: crate::codec::QuantizeAxes
//! [`SmallestThree`]: crate::codec::SmallestThree
//! [`Octahedral`]: crate::codec::Octahedral
//! [`Quaternion`]: crate::codec::Quaternion
//! [`UnitVector`]: crate::codec::UnitVector
