//! A datagram as a raw-IP packet: the IP and UDP headers a socket never shows, synthesized
//! around the payload with the real addresses and ports, so that tshark and any pcap reader
//! see UDP between the two peers. And the way back, for a recording read again.

use std::net::{IpAddr, Ipv6Addr, SocketAddr};

use etherparse::{NetSlice, PacketBuilder, SlicedPacket, TransportSlice};

/// The hop limit written into every synthesized header: the packet never travelled as such.
const TTL: u8 = 64;

/// Writes `payload` from `from` to `to` as an IPv4 or IPv6 packet with a UDP header into
/// `out` (cleared first). A family mix (an IPv6 socket and an IPv4 peer) is written as IPv6,
/// the IPv4 address mapped. Fails only for a payload too large for one IP packet.
pub(crate) fn write(
    from: SocketAddr,
    to: SocketAddr,
    payload: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), etherparse::err::packet::BuildWriteError> {
    out.clear();
    let builder = match (from.ip(), to.ip()) {
        (IpAddr::V4(a), IpAddr::V4(b)) => PacketBuilder::ipv4(a.octets(), b.octets(), TTL),
        (a, b) => PacketBuilder::ipv6(v6(a).octets(), v6(b).octets(), TTL),
    };
    builder.udp(from.port(), to.port()).write(out, payload)
}

fn v6(ip: IpAddr) -> Ipv6Addr {
    match ip {
        IpAddr::V4(v4) => v4.to_ipv6_mapped(),
        IpAddr::V6(v6) => v6,
    }
}

/// The source, destination and UDP payload of a raw-IP packet; `None` for anything that is
/// not UDP over IP.
pub(crate) fn read(packet: &[u8]) -> Option<(SocketAddr, SocketAddr, &[u8])> {
    let sliced = SlicedPacket::from_ip(packet).ok()?;
    let (src, dst) = match sliced.net? {
        NetSlice::Ipv4(ip) => (
            IpAddr::V4(ip.header().source_addr()),
            IpAddr::V4(ip.header().destination_addr()),
        ),
        NetSlice::Ipv6(ip) => (
            unmapped(ip.header().source_addr()),
            unmapped(ip.header().destination_addr()),
        ),
        _ => return None,
    };
    let TransportSlice::Udp(udp) = sliced.transport? else {
        return None;
    };
    Some((
        SocketAddr::new(src, udp.source_port()),
        SocketAddr::new(dst, udp.destination_port()),
        udp.payload(),
    ))
}

/// An IPv4-mapped address as the IPv4 one it was written from.
fn unmapped(ip: Ipv6Addr) -> IpAddr {
    match ip.to_ipv4_mapped() {
        Some(v4) => IpAddr::V4(v4),
        None => IpAddr::V6(ip),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_packet_reads_back_with_its_addresses_and_payload() {
        let cases: [(&str, &str); 3] = [
            ("10.0.0.2:40002", "10.0.0.1:7000"),
            ("[::1]:5000", "[2001:db8::7]:7777"),
            ("[::]:5000", "192.0.2.9:7777"),
        ];
        let mut out = Vec::new();
        for (from, to) in cases {
            let (from, to): (SocketAddr, SocketAddr) = (from.parse().unwrap(), to.parse().unwrap());
            write(from, to, b"hello", &mut out).unwrap();
            let (a, b, payload) = read(&out).unwrap();
            let unmap = |s: SocketAddr| SocketAddr::new(unmapped(v6(s.ip())), s.port());
            assert_eq!((a, b, payload), (unmap(from), unmap(to), &b"hello"[..]));
        }
    }

    #[test]
    fn an_ipv4_packet_has_ipv4_and_udp_headers() {
        let mut out = Vec::new();
        let (from, to) = (
            "10.0.0.2:40002".parse().unwrap(),
            "10.0.0.1:7000".parse().unwrap(),
        );
        write(from, to, &[7; 10], &mut out).unwrap();
        assert_eq!(out.len(), 20 + 8 + 10);
        assert_eq!(out[0] >> 4, 4, "IPv4");
        assert_eq!(out[9], 17, "UDP");
        assert_eq!(&out[20..22], &40002u16.to_be_bytes());
    }

    #[test]
    fn garbage_is_not_a_packet() {
        assert!(read(&[]).is_none());
        assert!(read(&[0x45, 0, 0]).is_none());
    }
}
