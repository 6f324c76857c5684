//! The game server's `--secure` options (hopnet over netcode 1.02), the same as the echo
//! example's: `--secure --key-file F --protocol-id N`.

use std::net::SocketAddr;
use std::path::PathBuf;

use hopnet::Server;
use hopnet::secure::Key;

#[path = "protocol_id.rs"]
mod protocol_id;
use protocol_id::parse_u64;

/// How the server listens.
#[derive(clap::Args, Debug)]
pub struct SecureServerArgs {
    /// Serve over netcode 1.02: only clients with a connect token sealed under the key connect
    /// (needs --key-file and --protocol-id).
    #[arg(long, requires_all = ["key_file", "protocol_id"])]
    pub secure: bool,
    /// The private key shared with whoever issues tokens: 64 hexadecimal characters.
    #[arg(long, requires = "secure")]
    pub key_file: Option<PathBuf>,
    /// The game's netcode protocol id (decimal, or hexadecimal with 0x).
    #[arg(long, value_parser = parse_u64, requires = "secure")]
    pub protocol_id: Option<u64>,
}

impl SecureServerArgs {
    /// Binds `addr`, secure or plain as asked.
    pub fn bind(&self, addr: SocketAddr, config: hopnet::Config) -> Result<Server, String> {
        match (self.secure, &self.key_file, self.protocol_id) {
            (false, ..) => Server::bind(addr, config).map_err(|e| e.to_string()),
            (true, Some(path), Some(protocol_id)) => {
                let key = Key::read_file(path).map_err(|e| format!("{}: {e}", path.display()))?;
                Server::bind_secure(addr, config, protocol_id, key).map_err(|e| e.to_string())
            }
            (true, ..) => Err("--secure needs --key-file and --protocol-id".into()),
        }
    }
}
