use hopnet_codec::Rabbit;

#[derive(Rabbit)]
struct Body {
    #[rabbit(quaternion(bits = 9))]
    not_a_quaternion: f32,
    #[rabbit(quaternion(bits = 9))]
    doubles: [f64; 4],
    #[rabbit(quaternion(bits = 3))]
    too_few: [f32; 4],
    #[rabbit(quaternion(bits = 9, scale = 2))]
    unknown_option: [f32; 4],
    #[rabbit(quaternion)]
    no_bits: [f32; 4],
    #[rabbit(unit_vector(bits = 12))]
    four_axes: [f32; 4],
    #[rabbit(unit_vector(bits = 30))]
    too_many: [f32; 3],
}

#[derive(Rabbit)]
struct Axes {
    #[rabbit(quantize(range = "0.0..=1.0", precision = 0.1, x(range = "0.0..=2.0")))]
    not_a_vector: f32,
    #[rabbit(quantize(x(range = "0.0..=1.0")))]
    no_precision: [f32; 1],
    #[rabbit(quantize(range = "0.0..=1.0", precision = 0.1, z(precision = 0.5)))]
    past_the_last: [f32; 2],
    #[rabbit(quantize(range = "0.0..=1.0", precision = 0.1, y(precision = 0.5), y(precision = 0.2)))]
    twice: [f32; 2],
    #[rabbit(quantize(x(range = "0.0..=1.0", precision = 0.1), y(range = "-1.0..=1.0", precision = 0.1)))]
    no_grid_for_z: [f32; 3],
    #[rabbit(quantize(range = "0.0..=1.0", precision = 0.1, y(range = "-10000.0..=10000.0", precision = 0.0001)))]
    too_fine: [f32; 2],
    #[rabbit(quantize(range = "0.0..=1.0", precision = 0.1, x(scale = 2)))]
    unknown_axis_option: [f32; 2],
}

fn main() {}
