//! The packets of a capture file, pcap or pcapng (told apart by their first four bytes), each
//! with its time and its link type, read with the `pcap-file` crate.

use pcap_file::DataLink;
use pcap_file::pcap::PcapReader;
use pcap_file::pcapng::PcapNgReader;
use pcap_file::pcapng::blocks::Block;
use pcap_file::pcapng::blocks::interface_description::InterfaceDescriptionOption;
use std::io::Read;

/// One captured frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Packet {
    /// Seconds since the Unix epoch.
    pub time: f64,
    /// What the frame starts with.
    pub link: DataLink,
    /// The frame's captured bytes.
    pub data: Vec<u8>,
}

/// The packets of a pcap or pcapng stream, in file order.
pub(crate) enum Packets<R: Read> {
    Pcap(PcapReader<R>),
    PcapNg {
        reader: PcapNgReader<R>,
        /// Per interface of the current section: its link type and seconds per timestamp unit.
        interfaces: Vec<(DataLink, f64)>,
    },
}

/// A pcapng file's first four bytes (the section header block's type).
const PCAPNG_MAGIC: [u8; 4] = [0x0a, 0x0d, 0x0d, 0x0a];

/// A stream whose first four bytes were read to tell the formats apart, and put back.
pub(crate) type Peeked<R> = std::io::Chain<std::io::Cursor<[u8; 4]>, R>;

/// Reads the file header of either format.
pub(crate) fn open<R: Read>(mut input: R) -> Result<Packets<Peeked<R>>, String> {
    let mut magic = [0u8; 4];
    input
        .read_exact(&mut magic)
        .map_err(|e| format!("not a pcap or pcapng file: {e}"))?;
    let pcapng = magic == PCAPNG_MAGIC;
    let input = std::io::Cursor::new(magic).chain(input);
    if pcapng {
        let reader = PcapNgReader::new(input).map_err(|e| format!("not a pcapng file: {e}"))?;
        // The first section's header block was read by `new`: its interfaces follow.
        Ok(Packets::PcapNg {
            reader,
            interfaces: Vec::new(),
        })
    } else {
        let reader = PcapReader::new(input)
            .map_err(|e| format!("not a pcap or pcapng file (first bytes {magic:02x?}): {e}"))?;
        Ok(Packets::Pcap(reader))
    }
}

impl<R: Read> Packets<R> {
    /// The next packet; `None` at the end; an error where the file stops making sense.
    pub(crate) fn next_packet(&mut self) -> Option<Result<Packet, String>> {
        match self {
            Packets::Pcap(reader) => {
                let link = reader.header().datalink;
                let packet = match reader.next_packet()? {
                    Ok(p) => p,
                    Err(e) => return Some(Err(e.to_string())),
                };
                Some(Ok(Packet {
                    time: packet.timestamp.as_secs_f64(),
                    link,
                    data: packet.data.into_owned(),
                }))
            }
            Packets::PcapNg { reader, interfaces } => loop {
                let block = match reader.next_block()? {
                    Ok(b) => b,
                    Err(e) => return Some(Err(e.to_string())),
                };
                match block {
                    Block::SectionHeader(_) => interfaces.clear(),
                    Block::InterfaceDescription(idb) => {
                        // Units of a timestamp: 10^-6 s unless `if_tsresol` says otherwise
                        // (its top bit set: a power of two).
                        let mut unit = 1e-6;
                        for option in &idb.options {
                            if let InterfaceDescriptionOption::IfTsResol(r) = option {
                                unit = if r & 0x80 != 0 {
                                    2f64.powi(-i32::from(r & 0x7f))
                                } else {
                                    10f64.powi(-i32::from(*r))
                                };
                            }
                        }
                        interfaces.push((idb.linktype, unit));
                    }
                    Block::EnhancedPacket(epb) => {
                        let Some(&(link, unit)) = interfaces.get(epb.interface_id as usize) else {
                            return Some(Err(format!(
                                "a packet names interface {}, which the file never described",
                                epb.interface_id
                            )));
                        };
                        // `pcap-file` hands the raw 64-bit timestamp over as nanoseconds.
                        let raw = epb.timestamp.as_nanos() as f64;
                        return Some(Ok(Packet {
                            time: raw * unit,
                            link,
                            data: epb.data.into_owned(),
                        }));
                    }
                    Block::SimplePacket(spb) => {
                        let Some(&(link, _)) = interfaces.first() else {
                            return Some(Err(
                                "a packet before any interface description".to_string()
                            ));
                        };
                        return Some(Ok(Packet {
                            time: 0.0,
                            link,
                            data: spb.data.into_owned(),
                        }));
                    }
                    _ => {}
                }
            },
        }
    }
}
