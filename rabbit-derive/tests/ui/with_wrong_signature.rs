use rabbit::Rabbit;

mod angle {
    pub fn encode(value: f32, w: &mut rabbit::BitWriter<'_>) -> rabbit::Result<()> {
        w.write_bits(value as u64, 9);
        Ok(())
    }

    pub fn decode(r: &mut rabbit::BitReader<'_>) -> rabbit::Result<f32> {
        Ok(r.read_bits(9)? as f32)
    }
}

#[derive(Rabbit)]
struct Heading {
    #[rabbit(with = "angle")]
    degrees: f32,
}

fn main() {}
