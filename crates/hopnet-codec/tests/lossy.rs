//! Property tests of the lossy float codecs: smallest-three quaternions, octahedral unit
//! vectors and quantized vectors decode within their stated error over the whole range, the
//! edge cases included; every bit string decodes without a panic; refused values are errors;
//! in a `#[rabbit(delta)]` container a value whose written bits did not change costs nothing
//! but the container's bit.
#![cfg(feature = "derive")]

use hopnet_codec::codec::{
    FieldCodec, FieldDecode, Octahedral, Quantize, QuantizeAxes, SmallestThree,
};
use hopnet_codec::schema::Encoding;
use hopnet_codec::{BitReader, BitWriter, Rabbit, delta};
use proptest::prelude::*;

fn encode<C: FieldCodec<T>, T>(value: &T) -> hopnet_codec::Result<Vec<u8>> {
    let mut buf = Vec::new();
    let mut w = BitWriter::new(&mut buf);
    C::encode(value, &mut w)?;
    w.finish();
    Ok(buf)
}

fn decode<C: FieldDecode<T>, T>(bytes: &[u8]) -> hopnet_codec::Result<T> {
    C::decode(&mut BitReader::new(bytes))
}

fn unit<const N: usize>(v: [f64; N]) -> Option<[f64; N]> {
    let norm = v.iter().map(|c| c * c).sum::<f64>().sqrt();
    (norm > 1e-3).then(|| v.map(|c| c / norm))
}

/// The rotation between two unit quaternions, in radians: `4·asin(chord / 2)` with the chord
/// to the nearer of `b` and `-b` (stabler than `acos` of the dot product near zero).
fn rotation_between(a: [f64; 4], b: [f64; 4]) -> f64 {
    let chord = |s: f64| {
        (0..4)
            .map(|i| (a[i] - s * b[i]).powi(2))
            .sum::<f64>()
            .sqrt()
    };
    4.0 * (chord(1.0).min(chord(-1.0)) / 2.0).min(1.0).asin()
}

/// The angle between two unit vectors, in radians.
fn angle_between(a: [f64; 3], b: [f64; 3]) -> f64 {
    let chord = (0..3).map(|i| (a[i] - b[i]).powi(2)).sum::<f64>().sqrt();
    2.0 * (chord / 2.0).min(1.0).asin()
}

/// `f32` rounding of the input and of the decoded components, beyond the codec's own bound.
const F32_SLACK: f64 = 1e-6;

fn check_quaternion<const B: u32>(q: [f64; 4]) -> Result<(), TestCaseError> {
    let q32 = q.map(|c| c as f32);
    let bytes = encode::<SmallestThree<B>, [f32; 4]>(&q32)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    let back: [f32; 4] =
        decode::<SmallestThree<B>, _>(&bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let back = back.map(f64::from);
    let norm = back.iter().map(|c| c * c).sum::<f64>().sqrt();
    prop_assert!((norm - 1.0).abs() < 1e-6, "decoded {back:?} is not unit");
    let err = rotation_between(q32.map(f64::from), back);
    let bound = SmallestThree::<B>::max_error_radians() + F32_SLACK;
    prop_assert!(
        err <= bound,
        "{B} bits: {q:?} came back as {back:?}, {err} rad off (bound {bound})"
    );
    // q and -q are one rotation: the same bits.
    let minus = encode::<SmallestThree<B>, [f32; 4]>(&q32.map(|c| -c))
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(minus, bytes);
    Ok(())
}

fn check_direction<const B: u32>(v: [f64; 3]) -> Result<(), TestCaseError> {
    let v32 = v.map(|c| c as f32);
    let bytes =
        encode::<Octahedral<B>, [f32; 3]>(&v32).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let back: [f32; 3] =
        decode::<Octahedral<B>, _>(&bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let back = back.map(f64::from);
    let norm = back.iter().map(|c| c * c).sum::<f64>().sqrt();
    prop_assert!((norm - 1.0).abs() < 1e-6, "decoded {back:?} is not unit");
    let exact = unit(v32.map(f64::from)).expect("a unit vector stays non-zero in f32");
    let err = angle_between(exact, back);
    let bound = Octahedral::<B>::max_error_radians() + F32_SLACK;
    prop_assert!(
        err <= bound,
        "{B} bits: {v:?} came back as {back:?}, {err} rad off (bound {bound})"
    );
    Ok(())
}

fn any_quaternion() -> impl Strategy<Value = [f64; 4]> {
    [-1.0..=1.0f64, -1.0..=1.0f64, -1.0..=1.0f64, -1.0..=1.0f64]
        .prop_filter_map("too short to normalize", unit)
}

/// Quaternions with two, three or four components of equal magnitude (the largest tied), and
/// components at `±1/√2`, each with random signs.
fn tied_quaternion() -> impl Strategy<Value = [f64; 4]> {
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let shapes = prop_oneof![
        Just([h, h, 0.0, 0.0]),
        Just([0.5, 0.5, 0.5, 0.5]),
        Just([1.0, 1.0, 1.0, 0.0]),
        Just([1.0, 0.0, 0.0, 0.0]),
        (0.0..1.0f64).prop_map(|t| [1.0, 1.0, t, 0.0]),
        (0.0..1.0f64, 0.0..1.0f64).prop_map(|(s, t)| [1.0, 1.0, s, t]),
        (-1e-3..1e-3f64).prop_map(move |d| [h + d, h - d, 0.0, 0.0]),
    ];
    (shapes, any::<[bool; 4]>(), 0..24usize).prop_filter_map(
        "too short to normalize",
        |(shape, signs, order)| {
            let mut idx = [0, 1, 2, 3];
            // One of the 24 orders of the components.
            let mut rest = order;
            for i in (1..4).rev() {
                idx.swap(i, rest % (i + 1));
                rest /= i + 1;
            }
            let q: [f64; 4] = std::array::from_fn(|i| {
                let c = shape[idx[i]];
                if signs[i] { -c } else { c }
            });
            unit(q)
        },
    )
}

fn any_direction() -> impl Strategy<Value = [f64; 3]> {
    [-1.0..=1.0f64, -1.0..=1.0f64, -1.0..=1.0f64].prop_filter_map("too short", unit)
}

/// Axes, diagonals, the equator and the octahedron's edges, with random signs (`-0.0` too).
fn edge_direction() -> impl Strategy<Value = [f64; 3]> {
    let shapes = prop_oneof![
        Just([1.0, 0.0, 0.0]),
        Just([0.0, 1.0, 0.0]),
        Just([0.0, 0.0, 1.0]),
        Just([1.0, 1.0, 1.0]),
        (0.0..1.0f64).prop_map(|t| [t, 1.0 - t, 0.0]),
        (0.0..1.0f64).prop_map(|t| [t, 0.0, 1.0 - t]),
        (0.0..1e-4f64).prop_map(|t| [0.5, 0.5, t]),
    ];
    (shapes, any::<[bool; 3]>()).prop_filter_map("too short", |(v, signs)| {
        unit(std::array::from_fn(|i| if signs[i] { -v[i] } else { v[i] }))
    })
}

proptest! {
    #[test]
    fn quaternions_decode_within_the_stated_error(q in any_quaternion()) {
        check_quaternion::<4>(q)?;
        check_quaternion::<9>(q)?;
        check_quaternion::<12>(q)?;
        check_quaternion::<20>(q)?;
    }

    #[test]
    fn quaternions_with_tied_or_extreme_components_too(q in tied_quaternion()) {
        check_quaternion::<4>(q)?;
        check_quaternion::<9>(q)?;
        check_quaternion::<16>(q)?;
    }

    #[test]
    fn a_decoded_rotation_re_encodes_as_itself_away_from_ties(q in any_quaternion()) {
        // Near a tie for the largest component, the decoded one may be re-encoded from the
        // other (as close) component instead.
        let mut sorted = q.map(f64::abs);
        sorted.sort_by(f64::total_cmp);
        prop_assume!(sorted[3] - sorted[2] > 4.0 * SmallestThree::<9>::step());
        let bytes = encode::<SmallestThree<9>, [f32; 4]>(&q.map(|c| c as f32)).unwrap();
        let back: [f32; 4] = decode::<SmallestThree<9>, _>(&bytes).unwrap();
        prop_assert_eq!(encode::<SmallestThree<9>, [f32; 4]>(&back).unwrap(), bytes);
    }

    #[test]
    fn any_bits_decode_to_a_unit_quaternion(word in any::<u64>()) {
        let bytes = word.to_le_bytes();
        for q in [
            decode::<SmallestThree<9>, [f32; 4]>(&bytes).unwrap(),
            decode::<SmallestThree<20>, [f32; 4]>(&bytes).unwrap(),
        ] {
            let norm = q.iter().map(|&c| f64::from(c).powi(2)).sum::<f64>().sqrt();
            prop_assert!((norm - 1.0).abs() < 1e-6, "{q:?}");
        }
        // Too few bits: an error, not a panic.
        prop_assert!(decode::<SmallestThree<9>, [f32; 4]>(&bytes[..3]).is_err());
    }

    #[test]
    fn directions_decode_within_the_stated_error(v in any_direction()) {
        check_direction::<4>(v)?;
        check_direction::<8>(v)?;
        check_direction::<12>(v)?;
        check_direction::<24>(v)?;
    }

    #[test]
    fn directions_on_edges_and_axes_too(v in edge_direction()) {
        check_direction::<4>(v)?;
        check_direction::<12>(v)?;
        check_direction::<16>(v)?;
    }

    #[test]
    fn any_bits_decode_to_a_unit_vector(word in any::<u64>()) {
        let bytes = word.to_le_bytes();
        for v in [
            decode::<Octahedral<12>, [f32; 3]>(&bytes).unwrap(),
            decode::<Octahedral<24>, [f32; 3]>(&bytes).unwrap(),
        ] {
            let norm = v.iter().map(|&c| f64::from(c).powi(2)).sum::<f64>().sqrt();
            prop_assert!((norm - 1.0).abs() < 1e-6, "{v:?}");
        }
        prop_assert!(decode::<Octahedral<12>, [f32; 3]>(&bytes[..2]).is_err());
    }

    #[test]
    fn positions_decode_within_half_a_step(p in [-15.0005..=15.0005f32, -15.0005..=15.0005f32, -15.0005..=15.0005f32]) {
        let bytes = encode::<Pile, [f32; 3]>(&p).unwrap();
        prop_assert_eq!(bytes.len(), 6); // 45 bits
        let back: [f32; 3] = decode::<Pile, _>(&bytes).unwrap();
        for (a, b) in p.iter().zip(back) {
            prop_assert!((f64::from(*a) - f64::from(b)).abs() <= 0.0005 + 1e-6, "{p:?} -> {back:?}");
        }
    }

    #[test]
    fn per_axis_grids_decode_within_each_half_step(
        x in -15.0..=15.0f64, y in 0.0..=8.0f64, z in -15.0..=15.0f64,
    ) {
        let bytes = encode::<Floor, [f64; 3]>(&[x, y, z]).unwrap();
        let back: [f64; 3] = decode::<Floor, _>(&bytes).unwrap();
        prop_assert!((x - back[0]).abs() <= 0.0005 + 1e-9);
        prop_assert!((y - back[1]).abs() <= 0.005 + 1e-9);
        prop_assert!((z - back[2]).abs() <= 0.0005 + 1e-9);
    }

    #[test]
    fn any_bits_decode_to_a_position_or_an_error(word in any::<u64>()) {
        let bytes = word.to_le_bytes();
        // 30,001 points in 15 bits: an index past the last is an error, never a panic.
        let indices = (0..3).map(|i| (word >> (15 * i)) & 0x7fff);
        let past_end = indices.clone().any(|k| k > 30_000);
        match decode::<Pile, [f32; 3]>(&bytes) {
            Ok(p) => {
                prop_assert!(!past_end);
                prop_assert!(p.iter().all(|c| (-15.0..=15.0).contains(c)));
            }
            Err(_) => prop_assert!(past_end),
        }
        let _ = decode::<Floor, [f32; 3]>(&bytes);
    }
}

type Pile = Quantize<{ f64::to_bits(-15.0) }, { f64::to_bits(15.0) }, { f64::to_bits(0.001) }>;
type Height = Quantize<{ f64::to_bits(0.0) }, { f64::to_bits(8.0) }, { f64::to_bits(0.01) }>;
type Floor = QuantizeAxes<(Pile, Height, Pile)>;

#[test]
fn the_identity_and_the_axes_decode_exactly() {
    for q in [
        [0.0, 0.0, 0.0, 1.0],
        [0.0, 0.0, -1.0, 0.0],
        [1.0, 0.0, 0.0, 0.0],
    ] {
        let bytes = encode::<SmallestThree<9>, [f32; 4]>(&q).unwrap();
        let back: [f32; 4] = decode::<SmallestThree<9>, _>(&bytes).unwrap();
        // The largest made positive.
        assert_eq!(back, q.map(f32::abs), "{q:?}");
    }
    for v in [
        [0.0, 0.0, 1.0],
        [0.0, 0.0, -1.0],
        [1.0, 0.0, 0.0],
        [0.0, -1.0, 0.0],
    ] {
        let bytes = encode::<Octahedral<12>, [f32; 3]>(&v).unwrap();
        let back: [f32; 3] = decode::<Octahedral<12>, _>(&bytes).unwrap();
        assert_eq!(back.map(|c| c + 0.0), v, "{v:?}");
    }
}

#[test]
fn refused_values_are_errors() {
    for q in [
        [0.0; 4],
        [f32::NAN, 0.0, 0.0, 1.0],
        [f32::INFINITY, 0.0, 0.0, 0.0],
    ] {
        assert!(encode::<SmallestThree<9>, [f32; 4]>(&q).is_err(), "{q:?}");
    }
    for v in [
        [0.0; 3],
        [f32::NAN, 0.0, 1.0],
        [0.0, f32::NEG_INFINITY, 0.0],
    ] {
        assert!(encode::<Octahedral<12>, [f32; 3]>(&v).is_err(), "{v:?}");
    }
    assert!(encode::<Pile, [f32; 3]>(&[0.0, 15.01, 0.0]).is_err());
    assert!(encode::<Floor, [f32; 3]>(&[0.0, -0.01, 0.0]).is_err());
    assert!(encode::<Floor, [f32; 3]>(&[0.0, 0.0, f32::NAN]).is_err());
}

#[test]
fn the_stated_figures() {
    let deg = |r: f64| r.to_degrees();
    assert_eq!(
        format!("{:.3}", SmallestThree::<9>::max_error_degrees()),
        "0.553"
    );
    assert_eq!(
        format!("{:.3}", SmallestThree::<10>::max_error_degrees()),
        "0.275"
    );
    assert_eq!(
        format!("{:.3}", SmallestThree::<12>::max_error_degrees()),
        "0.069"
    );
    assert_eq!(
        format!("{:.4}", Octahedral::<12>::max_error_degrees()),
        "0.0594"
    );
    assert_eq!(
        format!("{:.3}", Octahedral::<8>::max_error_degrees()),
        "0.957"
    );
    assert_eq!(
        format!("{:.4}", Octahedral::<16>::max_error_degrees()),
        "0.0037"
    );
    // The approximations the docs give beside the formulas.
    let b9 = 2.0 * 6f64.sqrt() / 510.0;
    assert!((deg(b9) / SmallestThree::<9>::max_error_degrees() - 1.0).abs() < 0.01);
    assert!(
        (Octahedral::<12>::max_error_radians() / (2.12 * Octahedral::<12>::step()) - 1.0).abs()
            < 0.01
    );
    assert_eq!(
        <SmallestThree<9> as FieldCodec<[f32; 4]>>::MAX_BITS,
        Some(29)
    );
    assert_eq!(<Octahedral<12> as FieldCodec<[f32; 3]>>::MAX_BITS, Some(24));
}

/// Fiedler's cube: orientation, position, a flag.
#[derive(Rabbit, Debug, Clone, PartialEq)]
#[rabbit(delta)]
struct Cube {
    #[rabbit(quaternion(bits = 9))]
    orientation: [f32; 4],
    #[rabbit(quantize(range = "-15.0..=15.0", precision = 0.001, y(range = "0.0..=8.0")))]
    position: [f32; 3],
    #[rabbit(unit_vector(bits = 12))]
    facing: [f32; 3],
    #[rabbit(quantize(range = "-32.0..=32.0", precision = 0.01))]
    velocity: [f64; 3],
    interacting: bool,
}

fn cube() -> Cube {
    Cube {
        orientation: [0.1, 0.6, 0.0, 0.79],
        position: [1.2345, 0.5, -14.999],
        facing: [0.6, 0.0, -0.8],
        velocity: [0.0, -9.81, 0.25],
        interacting: false,
    }
}

#[test]
fn a_cube_takes_what_its_attributes_say() {
    // 29 + (15 + 13 + 15) + 24 + 3 * 13 + 1 bits.
    assert_eq!(
        <Cube as hopnet_codec::Encode>::MAX_BITS,
        Some(29 + 43 + 24 + 39 + 1)
    );
    let bytes = hopnet_codec::to_bytes(&cube()).unwrap();
    assert_eq!(bytes.len(), 17);
    let back: Cube = hopnet_codec::from_bytes(&bytes).unwrap();
    assert!((back.position[0] - 1.2345).abs() <= 0.0005 + 1e-6);
    assert!((back.position[1] - 0.5).abs() <= 0.0005 + 1e-6);
    assert!((back.velocity[1] + 9.81).abs() <= 0.005 + 1e-9);
    // As decoded, it re-encodes as itself.
    assert_eq!(hopnet_codec::to_bytes(&back).unwrap(), bytes);
}

#[test]
fn a_cube_at_rest_costs_one_bit() {
    let sent: Cube = hopnet_codec::from_bytes(&hopnet_codec::to_bytes(&cube()).unwrap()).unwrap();
    assert_eq!(delta::to_bytes(&sent, &sent).unwrap(), [0]);
    // Moved and turned by less than its grids tell apart: still unchanged.
    let mut settled = sent.clone();
    settled.position[0] += 0.0001;
    settled.orientation = settled.orientation.map(|c| c * 1.00001);
    settled.facing[1] += 1e-5;
    settled.velocity[2] -= 0.001;
    assert_eq!(delta::to_bytes(&settled, &sent).unwrap(), [0]);
    // Turned: the change bit, the orientation's bit and its 29 bits, four unchanged bits.
    let mut turned = sent.clone();
    turned.orientation = [0.0, 0.0, 0.0, 1.0];
    let bytes = delta::to_bytes(&turned, &sent).unwrap();
    assert_eq!(bytes.len(), (1 + 5 + 29usize).div_ceil(8));
    let back: Cube = delta::from_bytes(&sent, &bytes).unwrap();
    assert_eq!(back.orientation, [0.0, 0.0, 0.0, 1.0]);
    assert_eq!(back.position, sent.position);
}

#[test]
fn the_schema_names_each_encoding() {
    let schema = <Cube as hopnet_codec::Encode>::schema();
    let Encoding::Type(t) = schema else {
        panic!("{schema:?}")
    };
    let text = format!("{:?}", t.resolve());
    assert!(text.contains("SmallestThree { bits: 9 }"), "{text}");
    assert!(text.contains("Octahedral { bits: 12 }"), "{text}");
    assert!(text.contains("Tuple([Quantized { min: -15.0, max: 15.0, step: 0.001, bits: 15 }, Quantized { min: 0.0, max: 8.0, step: 0.001, bits: 13 }"), "{text}");
    assert!(
        text.contains(
            "Array { item: Quantized { min: -32.0, max: 32.0, step: 0.01, bits: 13 }, len: 3 }"
        ),
        "{text}"
    );
}

proptest! {
    /// Any bytes, as a whole cube or as a cube's delta against one: a value or an error.
    #[test]
    fn any_bytes_decode_to_a_cube_or_an_error(bytes in proptest::collection::vec(any::<u8>(), 0..24)) {
        if let Ok(cube) = hopnet_codec::from_bytes::<Cube>(&bytes) {
            let norm = cube.orientation.iter().map(|&c| f64::from(c).powi(2)).sum::<f64>();
            prop_assert!((norm - 1.0).abs() < 1e-5);
        }
        let _ = delta::from_bytes(&cube(), &bytes);
    }
}
