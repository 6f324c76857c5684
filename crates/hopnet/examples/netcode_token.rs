//! Issues a netcode 1.02 connect token, as a game's backend would, and writes its 2,048 bytes
//! raw to a file (the token file a secure client reads).
//!
//! ```text
//! cargo run -p hopnet --example netcode_token -- --key-file server.key --protocol-id 7 \
//!     --client-id 42 --server 127.0.0.1:40000 [--server ADDR ...] \
//!     --expire-secs 30 --timeout-secs 5 --out client.token
//! cargo run -p hopnet --example netcode_token -- --new-key server.key
//! ```
//!
//! The key file holds the private key shared with the servers: 64 hexadecimal characters, a
//! newline optional. `--new-key F` writes a fresh random one and exits.

mod common;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::SystemTime;

use clap::Parser;
use common::{parse_u64, read_key};
use hopnet::secure::{ConnectTokenBuilder, Key};

#[derive(Parser)]
#[command(about = "Issue a netcode 1.02 connect token (2,048 bytes, raw)")]
struct Args {
    /// Write a fresh random private key to this file and exit.
    #[arg(long, exclusive = true)]
    new_key: Option<PathBuf>,
    /// The private key shared with the servers (64 hex characters).
    #[arg(long, required_unless_present = "new_key")]
    key_file: Option<PathBuf>,
    /// The game's protocol id (decimal, or hexadecimal with 0x).
    #[arg(long, value_parser = parse_u64, required_unless_present = "new_key")]
    protocol_id: Option<u64>,
    /// The player's id, unique among connected players.
    #[arg(long, value_parser = parse_u64, required_unless_present = "new_key")]
    client_id: Option<u64>,
    /// A server the client may connect to, tried in order (1 to 32).
    #[arg(long = "server", required_unless_present = "new_key")]
    servers: Vec<SocketAddr>,
    /// Seconds until servers refuse the token.
    #[arg(long, default_value_t = 30)]
    expire_secs: u64,
    /// Seconds of silence before either end drops the connection (negative: never, for
    /// development).
    #[arg(long, default_value_t = 5, allow_hyphen_values = true)]
    timeout_secs: i32,
    /// Where to write the token.
    #[arg(long, required_unless_present = "new_key")]
    out: Option<PathBuf>,
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("netcode_token: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> Result<(), String> {
    if let Some(path) = args.new_key {
        return Key::generate()
            .write_file(&path)
            .map_err(|e| format!("{}: {e}", path.display()));
    }
    let (Some(key_file), Some(protocol_id), Some(client_id), Some(out)) =
        (args.key_file, args.protocol_id, args.client_id, args.out)
    else {
        return Err("--key-file, --protocol-id, --client-id and --out are required".into());
    };
    let key = read_key(&key_file)?;
    let token = ConnectTokenBuilder::new(protocol_id, client_id, args.servers)
        .expire_seconds(args.expire_secs)
        .timeout_seconds(args.timeout_secs)
        .issue(&key, SystemTime::now())
        .and_then(|token| token.to_bytes())
        .map_err(|e| e.to_string())?;
    std::fs::write(&out, token).map_err(|e| format!("{}: {e}", out.display()))
}
