//! The game client's `--secure` options (hopnet over netcode 1.02), the same as the echo
//! example's: `--secure --token-file T`, or `--secure --key-file F --protocol-id N` to mint a
//! token here (local play).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::SystemTime;

use hopnet::Client;
use hopnet::record::RecordConfig;
use hopnet::secure::{ConnectToken, ConnectTokenBuilder, Key};

#[path = "protocol_id.rs"]
mod protocol_id;
use protocol_id::parse_u64;

/// How the client connects.
#[derive(clap::Args, Debug)]
pub struct SecureClientArgs {
    /// Connect over netcode 1.02 (needs --token-file, or --key-file and --protocol-id).
    #[arg(long)]
    pub secure: bool,
    /// A connect token, its 2,048 bytes raw.
    #[arg(long, requires = "secure", conflicts_with_all = ["key_file", "protocol_id"])]
    pub token_file: Option<PathBuf>,
    /// The server's private key, to mint a token here (local play).
    #[arg(long, requires_all = ["secure", "protocol_id"])]
    pub key_file: Option<PathBuf>,
    /// The game's netcode protocol id (decimal, or hexadecimal with 0x), for that token.
    #[arg(long, value_parser = parse_u64, requires_all = ["secure", "key_file"])]
    pub protocol_id: Option<u64>,
}

impl SecureClientArgs {
    /// Connects to `server`, secure or plain as asked (a token file's servers win over
    /// `server`), recording from the first datagram if `record` says so.
    pub fn connect(
        &self,
        server: SocketAddr,
        config: hopnet::Config,
        record: Option<RecordConfig>,
    ) -> Result<Client, String> {
        let token = match (
            self.secure,
            &self.token_file,
            &self.key_file,
            self.protocol_id,
        ) {
            (false, ..) => {
                let client = match record {
                    Some(record) => Client::connect_recorded(server, config, record),
                    None => Client::connect(server, config),
                };
                return client.map_err(|e| e.to_string());
            }
            (true, Some(path), None, None) => {
                let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
                ConnectToken::from_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()))?
            }
            (true, None, Some(path), Some(protocol_id)) => {
                let key = Key::read_file(path).map_err(|e| format!("{}: {e}", path.display()))?;
                ConnectTokenBuilder::new(protocol_id, local_client_id(), [server])
                    .issue(&key, SystemTime::now())
                    .map_err(|e| e.to_string())?
            }
            (true, ..) => {
                return Err("--secure needs --token-file, or --key-file and --protocol-id".into());
            }
        };
        match record {
            Some(record) => Client::connect_secure_recorded(token, config, record),
            None => Client::connect_secure(token, config),
        }
        .map_err(|e| e.to_string())
    }
}

/// A client id for a token minted here: the clock's nanoseconds and the process id, so that
/// two local players differ (netcode refuses a second connection with the same id).
fn local_client_id() -> u64 {
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    nanos ^ (u64::from(std::process::id()) << 32)
}
