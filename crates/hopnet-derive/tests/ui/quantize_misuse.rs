use hopnet_codec::Rabbit;

#[derive(Rabbit)]
struct Positions {
    // Not a float.
    #[rabbit(quantize(range = "0.0..=1.0", precision = 0.1))]
    count: u32,
    // Finer than an `f32` holds at 10,000.
    #[rabbit(quantize(range = "-10000.0..=10000.0", precision = 0.0001))]
    fine: f32,
    // Empty range.
    #[rabbit(quantize(range = "1.0..=1.0", precision = 0.1))]
    empty: f32,
    // No precision.
    #[rabbit(quantize(range = "0.0..=1.0"))]
    coarse: f32,
    // A precision that is no step.
    #[rabbit(quantize(range = "0.0..=1.0", precision = -0.5))]
    negative: f32,
    // Two encodings.
    #[rabbit(quantize(range = "0.0..=1.0", precision = 0.5), with = "m")]
    both: f32,
    // Without its options.
    #[rabbit(quantize = "0..=1")]
    bare: f64,
}

fn main() {}
