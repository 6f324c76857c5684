use rabbit::Rabbit;

#[derive(Rabbit)]
enum Never {}

fn main() {}
