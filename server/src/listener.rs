//! The HTTP API's listening socket: bound at the configured address, with the TCP congestion
//! control the operator chose (`TCP_CONGESTION`), which Linux hands on to every connection the
//! socket accepts. It sets nothing per connection (`TCP_NODELAY` is set as each one is accepted,
//! in `startup`) and leaves the host's default alone when the setting is unset.

use std::{io, net::TcpListener};

use socket2::SockRef;

/// Why the listening socket could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum ListenerError {
    #[error("cannot bind {addr}: {source}")]
    Bind { addr: String, source: io::Error },
    #[error("TCP_CONGESTION={name}: {source} (the kernel offers those in net.ipv4.tcp_allowed_congestion_control)")]
    Congestion { name: String, source: io::Error },
}

/// Binds `addr` and, when `congestion` names an algorithm, makes it the congestion control of the
/// socket and so of the connections it accepts. Returns the socket and the port it got (`0` in
/// `addr` picks a free one).
pub fn bind(addr: &str, congestion: Option<&str>) -> Result<(TcpListener, u16), ListenerError> {
    let bind_error = |source| ListenerError::Bind { addr: addr.to_string(), source };
    let listener = TcpListener::bind(addr).map_err(bind_error)?;
    let port = listener.local_addr().map_err(bind_error)?.port();
    if let Some(name) = congestion {
        SockRef::from(&listener)
            .set_tcp_congestion(name.as_bytes())
            .map_err(|source| ListenerError::Congestion { name: name.to_string(), source })?;
    }
    Ok((listener, port))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpStream;

    fn congestion_of(socket: SockRef<'_>) -> String {
        let name = socket.tcp_congestion().expect("TCP_CONGESTION");
        String::from_utf8_lossy(&name).trim_end_matches('\0').to_string()
    }

    /// An algorithm other than the host's default, so that the test shows the setting took.
    fn not_the_default() -> &'static str {
        let plain = TcpListener::bind("127.0.0.1:0").expect("bind");
        if congestion_of(SockRef::from(&plain)) == "reno" {
            "cubic"
        } else {
            "reno"
        }
    }

    #[test]
    fn accepted_connections_inherit_the_chosen_congestion_control() {
        let name = not_the_default();
        let (listener, port) = bind("127.0.0.1:0", Some(name)).expect("bind");
        let _client = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        let (accepted, _) = listener.accept().expect("accept");
        assert_eq!(congestion_of(SockRef::from(&listener)), name);
        assert_eq!(congestion_of(SockRef::from(&accepted)), name, "the connection has it too");
    }

    #[test]
    fn unset_keeps_the_hosts_default() {
        let plain = TcpListener::bind("127.0.0.1:0").expect("bind");
        let (listener, _) = bind("127.0.0.1:0", None).expect("bind");
        assert_eq!(congestion_of(SockRef::from(&listener)), congestion_of(SockRef::from(&plain)));
    }

    #[test]
    fn an_unknown_algorithm_is_refused_with_its_name() {
        let err = bind("127.0.0.1:0", Some("no-such-algorithm")).expect_err("refused");
        assert!(matches!(&err, ListenerError::Congestion { name, .. } if name == "no-such-algorithm"), "{err}");
        assert!(err.to_string().contains("TCP_CONGESTION=no-such-algorithm"), "{err}");
    }

    #[test]
    fn a_taken_address_is_a_bind_error() {
        let taken = TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = taken.local_addr().expect("addr").to_string();
        assert!(matches!(bind(&addr, None), Err(ListenerError::Bind { .. })));
    }
}
