//! Where a client binds: an address of the server's family, any port.

/// The first server a token names: a secure client binds an address of its family.
pub(crate) fn first_server(
    token: &hopnet_proto::secure::ConnectToken,
) -> Result<std::net::SocketAddr, hopnet_proto::Error> {
    token
        .server_addresses()
        .first()
        .copied()
        .ok_or(hopnet_proto::Error::InvalidConfig(
            "a connect token names at least one server",
        ))
}

/// The unspecified address of `server`'s family, any port: where a client binds.
pub(crate) fn any_local(server: std::net::SocketAddr) -> std::net::SocketAddr {
    if server.is_ipv4() {
        ([0, 0, 0, 0], 0).into()
    } else {
        ([0u16; 8], 0).into()
    }
}
