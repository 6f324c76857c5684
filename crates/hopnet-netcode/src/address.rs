//! A server address inside a connect token: a type byte (1 for IPv4, 2 for IPv6), the
//! address's parts, and the port, all little-endian.
//!
//! IPv6 addresses are written as eight 16-bit groups, each little-endian (the standard's
//! `[a] (uint16)`..`[h] (uint16)`), not in network order. A token carries no flow label or
//! scope id, so an IPv6 address read back has both zero.

use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV6};

use super::wire::{Reader, Writer};

const IPV4: u8 = 1;
const IPV6: u8 = 2;

/// The most server addresses a connect token holds.
pub const MAX_SERVER_ADDRESSES: usize = 32;

pub(crate) fn write_address(w: &mut Writer<'_>, address: SocketAddr) {
    match address {
        SocketAddr::V4(v4) => {
            w.u8(IPV4);
            w.bytes(&v4.ip().octets());
            w.u16(v4.port());
        }
        SocketAddr::V6(v6) => {
            w.u8(IPV6);
            for group in v6.ip().segments() {
                w.u16(group);
            }
            w.u16(v6.port());
        }
    }
}

/// `None` for an address type other than 1 or 2, or too few bytes.
pub(crate) fn read_address(r: &mut Reader<'_>) -> Option<SocketAddr> {
    match r.u8()? {
        IPV4 => {
            let ip = Ipv4Addr::from(r.array::<4>()?);
            Some(SocketAddr::new(ip.into(), r.u16()?))
        }
        IPV6 => {
            let mut groups = [0u16; 8];
            for group in &mut groups {
                *group = r.u16()?;
            }
            let ip = Ipv6Addr::from(groups);
            Some(SocketAddr::V6(SocketAddrV6::new(ip, r.u16()?, 0, 0)))
        }
        _ => None,
    }
}

/// Writes the count (a `u32`) and the addresses, as both token parts lay them out.
pub(crate) fn write_addresses(w: &mut Writer<'_>, addresses: &[SocketAddr]) {
    w.u32(addresses.len() as u32);
    for &address in addresses {
        write_address(w, address);
    }
}

/// Reads the count and the addresses; `None` for a count outside 1 to 32 or a bad address.
pub(crate) fn read_addresses(r: &mut Reader<'_>) -> Option<Vec<SocketAddr>> {
    let count = usize::try_from(r.u32()?).ok()?;
    if !(1..=MAX_SERVER_ADDRESSES).contains(&count) {
        return None;
    }
    (0..count).map(|_| read_address(r)).collect()
}

/// The address a server compares with the token's list: an IPv6 address's flow label and
/// scope id are not in a token, so they do not take part.
pub(crate) fn same_address(a: SocketAddr, b: SocketAddr) -> bool {
    a.ip() == b.ip() && a.port() == b.port()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_families_round_trip() {
        let v4: SocketAddr = "127.0.0.1:40000".parse().unwrap();
        let v6: SocketAddr = "[2001:db8::1:2]:50000".parse().unwrap();
        let mut buf = [0u8; 64];
        let mut w = Writer::new(&mut buf);
        write_addresses(&mut w, &[v4, v6]);
        let n = w.finish().unwrap();
        assert_eq!(n, 4 + 7 + 19);
        // IPv4: type 1, octets in order, port little-endian.
        assert_eq!(&buf[4..11], &[1, 127, 0, 0, 1, 0x40, 0x9c]);
        // IPv6: the first group 0x2001 little-endian.
        assert_eq!(&buf[11..14], &[2, 0x01, 0x20]);
        let mut r = Reader::new(&buf[..n]);
        assert_eq!(read_addresses(&mut r), Some(vec![v4, v6]));
    }

    #[test]
    fn counts_and_types_outside_the_standard_are_refused() {
        for count in [0u32, 33, u32::MAX] {
            let bytes = count.to_le_bytes();
            assert_eq!(read_addresses(&mut Reader::new(&bytes)), None);
        }
        for kind in [0u8, 3, 255] {
            let bytes = [1, 0, 0, 0, kind, 1, 2, 3, 4, 5, 6];
            assert_eq!(read_addresses(&mut Reader::new(&bytes)), None);
        }
    }
}
