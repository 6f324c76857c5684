//! Captures made by the tests: the datagrams the real hopnet machines send each other in the
//! simulator, with their virtual times, written as a pcap of Ethernet frames (as tcpdump writes
//! on a Linux loopback) or a pcapng of raw IPv4 packets (as a recording may be).

use pcap_file::DataLink;
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::pcapng::PcapNgWriter;
use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketBlock;
use pcap_file::pcapng::blocks::interface_description::{
    InterfaceDescriptionBlock, InterfaceDescriptionOption,
};
use std::borrow::Cow;
use std::net::{IpAddr, SocketAddr};
use std::path::Path;
use std::time::Duration;

/// One datagram on the wire.
#[derive(Debug, Clone)]
pub struct Datagram {
    pub time: Duration,
    pub src: SocketAddr,
    pub dst: SocketAddr,
    pub bytes: Vec<u8>,
}

fn v4(addr: SocketAddr) -> [u8; 4] {
    match addr.ip() {
        IpAddr::V4(ip) => ip.octets(),
        IpAddr::V6(_) => panic!("the tests' captures are IPv4"),
    }
}

/// The IPv4 packet (with its header checksum) of a UDP datagram (UDP checksum 0: none).
fn ipv4(d: &Datagram) -> Vec<u8> {
    let udp_len = 8 + d.bytes.len();
    let total = 20 + udp_len;
    let mut p = vec![
        0x45,
        0,
        (total >> 8) as u8,
        total as u8,
        0,
        0,
        0x40,
        0,
        64,
        17,
        0,
        0,
    ];
    p.extend_from_slice(&v4(d.src));
    p.extend_from_slice(&v4(d.dst));
    let sum = p
        .chunks(2)
        .map(|w| u32::from(u16::from_be_bytes([w[0], w[1]])))
        .sum::<u32>();
    let sum = (sum & 0xffff) + (sum >> 16);
    let sum = !((sum & 0xffff) + (sum >> 16)) as u16;
    p[10..12].copy_from_slice(&sum.to_be_bytes());
    p.extend_from_slice(&d.src.port().to_be_bytes());
    p.extend_from_slice(&d.dst.port().to_be_bytes());
    p.extend_from_slice(&(udp_len as u16).to_be_bytes());
    p.extend_from_slice(&[0, 0]);
    p.extend_from_slice(&d.bytes);
    p
}

/// A pcap of Ethernet frames, microsecond timestamps from 2026-01-01.
pub fn write_pcap(path: &Path, datagrams: &[Datagram]) {
    let file = std::fs::File::create(path).unwrap();
    let header = PcapHeader {
        datalink: DataLink::ETHERNET,
        ..PcapHeader::default()
    };
    let mut w = PcapWriter::with_header(file, header).unwrap();
    for d in datagrams {
        let mut frame = vec![0u8; 12];
        frame.extend_from_slice(&[0x08, 0x00]);
        frame.extend_from_slice(&ipv4(d));
        let time = EPOCH + d.time;
        w.write_packet(&PcapPacket::new(time, frame.len() as u32, &frame))
            .unwrap();
    }
}

/// 2026-01-01T00:00:00Z.
pub const EPOCH: Duration = Duration::from_secs(1_767_225_600);

/// A pcapng of raw IPv4 packets with nanosecond timestamps (`if_tsresol` 9).
pub fn write_pcapng(path: &Path, datagrams: &[Datagram]) {
    let file = std::fs::File::create(path).unwrap();
    let mut w = PcapNgWriter::new(file).unwrap();
    let interface = InterfaceDescriptionBlock {
        linktype: DataLink::IPV4,
        snaplen: 0xffff,
        options: vec![InterfaceDescriptionOption::IfTsResol(9)],
    };
    w.write_pcapng_block(interface).unwrap();
    for d in datagrams {
        let packet = ipv4(d);
        let block = EnhancedPacketBlock {
            interface_id: 0,
            timestamp: EPOCH + d.time,
            original_len: packet.len() as u32,
            data: Cow::Owned(packet),
            options: vec![],
        };
        w.write_pcapng_block(block).unwrap();
    }
}
