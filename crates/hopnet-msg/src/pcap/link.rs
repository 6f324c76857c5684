//! From a captured frame to the UDP datagram inside it: Ethernet (tcpdump on a Linux loopback
//! or a network card), Linux cooked captures (`-i any`), BSD loopback, and raw IP, over IPv4
//! or IPv6. Anything else (ARP, TCP, IP fragments) is not a datagram of ours: `None`.

use pcap_file::DataLink;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// A UDP datagram and its addresses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Udp<'a> {
    /// Where it came from.
    pub src: SocketAddr,
    /// Where it went.
    pub dst: SocketAddr,
    /// The datagram.
    pub payload: &'a [u8],
}

const ETHERTYPE_IPV4: u16 = 0x0800;
const ETHERTYPE_IPV6: u16 = 0x86dd;
const ETHERTYPE_VLAN: u16 = 0x8100;
const UDP: u8 = 17;

fn be16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*b.get(at)?, *b.get(at + 1)?]))
}

/// The UDP datagram in a frame of link type `link`, if there is one.
///
/// ```
/// use hopnet_msg::pcap::{DataLink, udp};
///
/// // A raw IPv4 packet: 10.0.0.2:40002 to 10.0.0.1:7000, two bytes of payload.
/// let packet = [
///     0x45, 0, 0, 30, 0, 0, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 2, 10, 0, 0, 1,
///     0x9c, 0x42, 0x1b, 0x58, 0, 10, 0, 0, 0xab, 0xcd,
/// ];
/// let d = udp(DataLink::IPV4, &packet).unwrap();
/// assert_eq!((d.dst.port(), d.payload), (7000, &[0xab, 0xcd][..]));
/// ```
pub fn udp(link: DataLink, frame: &[u8]) -> Option<Udp<'_>> {
    match link {
        DataLink::ETHERNET => {
            let mut at = 12;
            let mut ethertype = be16(frame, at)?;
            while ethertype == ETHERTYPE_VLAN {
                at += 4;
                ethertype = be16(frame, at)?;
            }
            by_ethertype(ethertype, frame.get(at + 2..)?)
        }
        DataLink::LINUX_SLL => by_ethertype(be16(frame, 14)?, frame.get(16..)?),
        DataLink::LINUX_SLL2 => by_ethertype(be16(frame, 0)?, frame.get(20..)?),
        // BSD loopback: a 4-byte address family in the capturing host's byte order (NULL) or
        // big-endian (LOOP); IPv4 is 2, IPv6 one of 24, 28, 30.
        DataLink::NULL | DataLink::LOOP => ip(frame.get(4..)?),
        DataLink::RAW | DataLink::IPV4 | DataLink::IPV6 => ip(frame),
        _ => None,
    }
}

fn by_ethertype(ethertype: u16, packet: &[u8]) -> Option<Udp<'_>> {
    match ethertype {
        ETHERTYPE_IPV4 | ETHERTYPE_IPV6 => ip(packet),
        _ => None,
    }
}

/// An IPv4 or IPv6 packet, by its version nibble.
fn ip(packet: &[u8]) -> Option<Udp<'_>> {
    match packet.first()? >> 4 {
        4 => ipv4(packet),
        6 => ipv6(packet),
        _ => None,
    }
}

fn ipv4(p: &[u8]) -> Option<Udp<'_>> {
    let header = usize::from(p.first()? & 0x0f) * 4;
    let total = usize::from(be16(p, 2)?);
    let fragment = be16(p, 6)?;
    // A fragment (more to come, or an offset): not reassembled here.
    if fragment & 0x3fff != 0 || *p.get(9)? != UDP || header < 20 {
        return None;
    }
    let src = Ipv4Addr::new(*p.get(12)?, p[13], p[14], p[15]);
    let dst = Ipv4Addr::new(*p.get(16)?, p[17], p[18], p[19]);
    // The frame may carry padding after the IP packet (Ethernet's minimum size).
    let end = total.min(p.len());
    segment(IpAddr::V4(src), IpAddr::V4(dst), p.get(header..end)?)
}

fn ipv6(p: &[u8]) -> Option<Udp<'_>> {
    if *p.get(6)? != UDP {
        return None;
    }
    let len = usize::from(be16(p, 4)?);
    let addr = |at: usize| -> Option<Ipv6Addr> {
        let bytes: [u8; 16] = p.get(at..at + 16)?.try_into().ok()?;
        Some(Ipv6Addr::from(bytes))
    };
    let end = (40 + len).min(p.len());
    segment(IpAddr::V6(addr(8)?), IpAddr::V6(addr(24)?), p.get(40..end)?)
}

fn segment(src: IpAddr, dst: IpAddr, s: &[u8]) -> Option<Udp<'_>> {
    let len = usize::from(be16(s, 4)?);
    if len < 8 {
        return None;
    }
    Some(Udp {
        src: SocketAddr::new(src, be16(s, 0)?),
        dst: SocketAddr::new(dst, be16(s, 2)?),
        payload: s.get(8..len.min(s.len()))?,
    })
}
