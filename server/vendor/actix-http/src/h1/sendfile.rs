//! File regions written to the connection with `sendfile(2)` (patched in for supabase-rs).
//!
//! A response body may hand the dispatcher a [`FileRegion`] instead of bytes
//! ([`MessageBody::take_file_region`](crate::body::MessageBody::take_file_region)). On Linux, over
//! a plain TCP stream, the kernel then copies the file's pages to the socket itself: no read into
//! user space, no copy into the write buffer. Anything else (TLS, Unix sockets, other systems)
//! says no here, and the body's bytes are polled as usual.

use std::{
    any::Any,
    io,
    task::{Context, Poll},
};

use crate::body::FileRegion;

/// Whether file regions can be sent to `io` with `sendfile`.
pub(crate) fn supported<T: 'static>(io: &T) -> bool {
    #[cfg(target_os = "linux")]
    {
        (io as &dyn Any).is::<tokio::net::TcpStream>()
    }

    #[cfg(not(target_os = "linux"))]
    {
        let _ = io;
        false
    }
}

/// Writes `region` to `io` until it is empty (`Ready(Ok)`) or the socket is full (`Pending`, with
/// the task woken once it can take more). A file shorter than its region is an error: the
/// response cannot be completed, so the connection must close.
pub(crate) fn poll_send<T: 'static>(
    io: &mut T,
    region: &mut FileRegion,
    cx: &mut Context<'_>,
) -> Poll<io::Result<()>> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd as _;

        use tokio::io::Interest;

        let Some(tcp) = (io as &mut dyn Any).downcast_mut::<tokio::net::TcpStream>() else {
            return Poll::Ready(Err(io::Error::other(
                "a file region on a stream that cannot take one",
            )));
        };
        let socket = tcp.as_raw_fd();

        while !region.is_empty() {
            futures_core::ready!(tcp.poll_write_ready(cx))?;

            match tcp.try_io(Interest::WRITABLE, || send_once(socket, region)) {
                Ok(0) => {
                    return Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the file ended before its region",
                    )));
                }
                Ok(n) => region.advance(n),
                Err(err)
                    if matches!(
                        err.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
                    ) => {}
                Err(err) => return Poll::Ready(Err(err)),
            }
        }

        Poll::Ready(Ok(()))
    }

    #[cfg(not(target_os = "linux"))]
    {
        let _ = (io, region, cx);
        Poll::Ready(Err(io::Error::other("sendfile is only used on Linux")))
    }
}

/// Most bytes asked of one `sendfile` call: the socket's buffer takes less anyway, and a file
/// not in the page cache is read while the worker waits.
#[cfg(target_os = "linux")]
const MAX_STEP: u64 = 4 * 1024 * 1024;

/// One `sendfile` call from the region's offset; how many bytes it wrote.
#[cfg(target_os = "linux")]
fn send_once(socket: std::os::fd::RawFd, region: &FileRegion) -> io::Result<u64> {
    use std::os::fd::AsRawFd as _;

    let mut offset = libc::off_t::try_from(region.offset()).map_err(io::Error::other)?;
    let count = region.len().min(MAX_STEP) as usize;
    // SAFETY: both descriptors are open for the call (the socket is borrowed from its stream, the
    // file from the region, which holds it), and `offset` is a valid `off_t` that sendfile
    // updates in place; no memory of ours is read or written.
    let sent = unsafe { libc::sendfile(socket, region.file().as_raw_fd(), &mut offset, count) };
    if sent < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(sent as u64)
    }
}
