use hopnet_codec::Rabbit;

mod angle {
    pub fn encode(value: f32, w: &mut hopnet_codec::BitWriter<'_>) -> hopnet_codec::Result<()> {
        w.write_bits(value as u64, 9);
        Ok(())
    }

    pub fn decode(r: &mut hopnet_codec::BitReader<'_>) -> hopnet_codec::Result<f32> {
        Ok(r.read_bits(9)? as f32)
    }
}

#[derive(Rabbit)]
struct Heading {
    #[rabbit(with = "angle")]
    degrees: f32,
}

fn main() {}
