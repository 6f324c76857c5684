//! The floor of secure mode, both crates side by side (`bench::cipher`): what one core's
//! ChaCha20-Poly1305 seals and opens per second with no protocol at all, RustCrypto's as
//! hopnet called it before issue 38 and `ring`'s as it calls it now.
//!
//! `cipher-floor [--datagrams N] [--rounds N] [--size BYTES]...` (defaults: 200,000 datagrams,
//! 5 rounds, the crates alternating, sizes 1,219, 340 and 64 bytes). Prints a Markdown table of
//! the medians. On a shared machine run it as the transport suite is run: `chrt -f 1`.

use bench::cipher::{SIZES, measure, table};
use bench::report::machine;

fn main() {
    let mut datagrams: u64 = 200_000;
    let mut rounds: usize = 5;
    let mut sizes: Vec<usize> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| -> usize {
            match args.next().and_then(|v| v.parse().ok()) {
                Some(v) => v,
                None => {
                    eprintln!("{name} takes a number");
                    std::process::exit(2);
                }
            }
        };
        match a.as_str() {
            "--datagrams" => datagrams = value("--datagrams").max(1) as u64,
            "--rounds" => rounds = value("--rounds").max(1),
            "--size" => match value("--size") {
                size @ 17..=65_536 => sizes.push(size),
                _ => {
                    eprintln!("--size is 17 to 65,536 bytes (a datagram holds its 16-byte tag)");
                    std::process::exit(2);
                }
            },
            other => {
                eprintln!(
                    "unknown argument {other:?}: cipher-floor [--datagrams N] [--rounds N] [--size BYTES]..."
                );
                std::process::exit(2);
            }
        }
    }
    if sizes.is_empty() {
        sizes = SIZES.to_vec();
    }
    println!("machine: {}", machine());
    println!(
        "\n## ChaCha20-Poly1305 on one core, median of {rounds} alternating rounds of {datagrams} datagrams\n"
    );
    print!("{}", table(&measure(&sizes, datagrams, rounds)));
}
