// A type the derive cannot judge by its name is left to the trait bounds: the error names the
// missing `Quaternion` or `UnitVector` impl and points at the field's type.
use hopnet_codec::Rabbit;

/// A rotation that does not implement `Quaternion`.
pub struct Rotation(pub [f32; 4]);

/// A direction that does not implement `UnitVector`.
pub struct Normal(pub [f32; 3]);

#[derive(Rabbit)]
struct Body {
    #[rabbit(quaternion(bits = 9))]
    rotation: Rotation,
    #[rabbit(unit_vector(bits = 12))]
    normal: Normal,
}

fn main() {}
