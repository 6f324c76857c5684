//! The `--record FILE` option of the game's server and client: what crosses the driver's
//! socket, both ways, to a rotated pcapng file (hopnet's `record` module), for tshark and for
//! replay.

use std::path::PathBuf;

use hopnet::record::RecordConfig;

/// Recording options.
#[derive(clap::Args, Debug)]
pub struct RecordArgs {
    /// Record every datagram to and from this process's hopnet socket to FILE (pcapng;
    /// FILE.1.pcapng, FILE.2.pcapng... after each 64 MiB, the newest 8 kept).
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// With `--record` in secure mode: record the decrypted hopnet datagrams instead of the
    /// encrypted ones (the file then holds what the players sent, readable by anyone).
    #[arg(long, requires = "record")]
    pub record_decrypted: bool,
}

impl RecordArgs {
    /// The recording asked for, if any.
    pub fn config(&self) -> Option<RecordConfig> {
        let path = self.record.as_ref()?;
        Some(RecordConfig::new(path).decrypted(self.record_decrypted))
    }
}
