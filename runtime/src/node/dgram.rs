//! Ops behind `node:dgram`: UDP sockets as resources in the `OpState` resource table, made,
//! bound and tuned as libuv does (socket options set before `bind`, TTLs checked the way
//! `uv_udp_set_ttl` checks them, multicast groups by address and interface), sends tried at
//! once as `uv_udp_try_send` does and waited for only when the kernel's buffer is full, and
//! a receive op that js/node/dgram.js keeps pending while a socket is bound. Errors are
//! `<CODE> <errno> <text>` (`EADDRINUSE 98 address already in use`): the JS side knows the
//! syscall, the address and the port, and builds Node's message from them.

use std::borrow::Cow;
use std::cell::RefCell;
use std::ffi::{CStr, CString};
use std::io;
use std::mem::ManuallyDrop;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
use std::os::fd::{AsRawFd, FromRawFd, RawFd};
use std::rc::Rc;

use deno_core::{
    op2, CancelHandle, CancelTryFuture, JsBuffer, OpState, RcRef, Resource, ResourceId, ToJsBuffer,
};
use deno_error::JsErrorBox;
use serde::Serialize;
use tokio::io::Interest;
use tokio::net::UdpSocket;

/// The largest datagram a receive takes: more than UDP's largest payload (65,507 bytes over
/// IPv4, 65,527 over IPv6).
const MAX_DATAGRAM: usize = 64 * 1024;

/// `bind` flags, as js/node/dgram.js passes them (libuv's `UV_UDP_REUSEADDR`, `UV_UDP_IPV6ONLY`).
const REUSE_ADDR: u32 = 1;
const IPV6_ONLY: u32 = 2;

struct UdpResource {
    socket: UdpSocket,
    ipv6: bool,
    cancel: CancelHandle,
}

impl Resource for UdpResource {
    fn name(&self) -> Cow<'_, str> {
        "udpSocket".into()
    }
    fn close(self: Rc<Self>) {
        self.cancel.cancel();
        if Rc::strong_count(&self) > 1 {
            // A pending receive (or send) still holds the socket until the loop polls it again.
            // libuv closes the descriptor at once, and a port closed under Node is free to bind
            // again straight away: so an unbound socket takes the descriptor's place (dup3
            // swaps it atomically), which releases the bound one now while the descriptor the
            // pending ops and tokio's registration refer to stays valid until they let go.
            // SAFETY: plain system calls on a descriptor this resource owns.
            unsafe {
                let placeholder =
                    libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
                if placeholder >= 0 {
                    libc::dup3(placeholder, self.fd(), libc::O_CLOEXEC);
                    libc::close(placeholder);
                }
            }
        }
    }
}

impl UdpResource {
    fn fd(&self) -> RawFd {
        self.socket.as_raw_fd()
    }

    /// The socket as std's, for the calls made at once (a non-blocking `sendto`, `connect`).
    fn with_std<R>(&self, f: impl FnOnce(&std::net::UdpSocket) -> R) -> R {
        // SAFETY: the descriptor stays open (owned by `self.socket`) for the whole call, and
        // ManuallyDrop keeps this second owner from closing it.
        let socket = ManuallyDrop::new(unsafe { std::net::UdpSocket::from_raw_fd(self.fd()) });
        f(&socket)
    }
}

/// libuv's name and text for an OS error, with the codes UDP adds to net's.
fn error(e: &io::Error) -> JsErrorBox {
    let errno = e.raw_os_error().unwrap_or(libc::EIO);
    let (code, text) = match errno {
        libc::EMSGSIZE => ("EMSGSIZE", "message too long"),
        libc::ENOBUFS => ("ENOBUFS", "no buffer space available"),
        libc::EAFNOSUPPORT => ("EAFNOSUPPORT", "address family not supported"),
        libc::ENODEV => ("ENODEV", "no such device"),
        libc::ENOPROTOOPT => ("ENOPROTOOPT", "protocol not available"),
        libc::EOPNOTSUPP => ("ENOTSUP", "operation not supported on socket"),
        libc::ENETDOWN => ("ENETDOWN", "network is down"),
        libc::EDESTADDRREQ => ("EDESTADDRREQ", "destination address required"),
        libc::EISCONN => ("EISCONN", "socket is already connected"),
        _ => super::uv(e),
    };
    // Errors libuv has no name for are EIO, with EIO's number.
    let errno = if code == "EIO" { libc::EIO } else { errno };
    JsErrorBox::generic(format!("{code} {errno} {text}"))
}

fn errno(code: i32) -> io::Error {
    io::Error::from_raw_os_error(code)
}

fn check(rc: libc::c_int) -> io::Result<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

fn setsockopt<T>(fd: RawFd, level: libc::c_int, name: libc::c_int, value: &T) -> io::Result<()> {
    // SAFETY: `value` points at a `T` of the size passed.
    check(unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            value as *const T as *const libc::c_void,
            std::mem::size_of::<T>() as libc::socklen_t,
        )
    })
}

/// An interface's index by name, 0 when there is none (libuv ignores an unknown zone too).
fn if_index(name: &str) -> u32 {
    CString::new(name).map_or(0, |name| {
        // SAFETY: a NUL-terminated string.
        unsafe { libc::if_nametoindex(name.as_ptr()) }
    })
}

fn if_name(index: u32) -> Option<String> {
    let mut buf = [0 as libc::c_char; libc::IF_NAMESIZE];
    // SAFETY: the buffer holds IF_NAMESIZE bytes, as if_indextoname requires.
    let name = unsafe { libc::if_indextoname(index, buf.as_mut_ptr()) };
    if name.is_null() {
        return None;
    }
    // SAFETY: if_indextoname wrote a NUL-terminated name into `buf`.
    Some(
        unsafe { CStr::from_ptr(buf.as_ptr()) }
            .to_string_lossy()
            .into_owned(),
    )
}

/// An IPv6 address with an optional `%zone` (an interface name), as `uv_ip6_addr` reads it.
fn parse_v6(text: &str) -> Option<(Ipv6Addr, u32)> {
    let (addr, zone) = match text.split_once('%') {
        Some((addr, zone)) => (addr, if_index(zone)),
        None => (text, 0),
    };
    Some((addr.parse().ok()?, zone))
}

/// `ip:port` in the socket's own family (`uv_ip4_addr`/`uv_ip6_addr`); anything else is EINVAL.
fn socket_addr(ipv6: bool, ip: &str, port: u16) -> io::Result<SocketAddr> {
    if ipv6 {
        let (addr, scope) = parse_v6(ip).ok_or_else(|| errno(libc::EINVAL))?;
        Ok(SocketAddr::V6(SocketAddrV6::new(addr, port, 0, scope)))
    } else {
        let addr: Ipv4Addr = ip.parse().map_err(|_| errno(libc::EINVAL))?;
        Ok(SocketAddr::V4(SocketAddrV4::new(addr, port)))
    }
}

fn in6_addr(addr: &Ipv6Addr) -> libc::in6_addr {
    // SAFETY: in6_addr is plain bytes.
    let mut out: libc::in6_addr = unsafe { std::mem::zeroed() };
    out.s6_addr = addr.octets();
    out
}

fn in_addr(addr: &Ipv4Addr) -> libc::in_addr {
    libc::in_addr {
        s_addr: u32::from_ne_bytes(addr.octets()),
    }
}

/// Makes a socket of `addr`'s family, sets the options `bind` must come after, and binds it.
fn bind_socket(addr: SocketAddr, flags: u32) -> io::Result<std::net::UdpSocket> {
    // libuv refuses UV_UDP_IPV6ONLY on an IPv4 address.
    if flags & IPV6_ONLY != 0 && addr.is_ipv4() {
        return Err(errno(libc::EINVAL));
    }
    let domain = if addr.is_ipv4() {
        libc::AF_INET
    } else {
        libc::AF_INET6
    };
    let kind = libc::SOCK_DGRAM | libc::SOCK_CLOEXEC | libc::SOCK_NONBLOCK;
    // SAFETY: plain system call.
    let fd = unsafe { libc::socket(domain, kind, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a descriptor just made and owned by nothing else; closed if anything below fails.
    let socket = unsafe { std::net::UdpSocket::from_raw_fd(fd) };
    let one: libc::c_int = 1;
    if flags & REUSE_ADDR != 0 {
        setsockopt(fd, libc::SOL_SOCKET, libc::SO_REUSEADDR, &one)?;
    }
    if flags & IPV6_ONLY != 0 {
        setsockopt(fd, libc::IPPROTO_IPV6, libc::IPV6_V6ONLY, &one)?;
    }
    // SAFETY: the sockaddr structs are plain data, zeroed before their fields are set, and
    // passed with their own sizes.
    let rc = unsafe {
        match addr {
            SocketAddr::V4(a) => {
                let mut sin: libc::sockaddr_in = std::mem::zeroed();
                sin.sin_family = libc::AF_INET as libc::sa_family_t;
                sin.sin_port = a.port().to_be();
                sin.sin_addr = in_addr(a.ip());
                libc::bind(
                    fd,
                    &sin as *const libc::sockaddr_in as *const libc::sockaddr,
                    std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
                )
            }
            SocketAddr::V6(a) => {
                let mut sin6: libc::sockaddr_in6 = std::mem::zeroed();
                sin6.sin6_family = libc::AF_INET6 as libc::sa_family_t;
                sin6.sin6_port = a.port().to_be();
                sin6.sin6_addr = in6_addr(a.ip());
                sin6.sin6_scope_id = a.scope_id();
                libc::bind(
                    fd,
                    &sin6 as *const libc::sockaddr_in6 as *const libc::sockaddr,
                    std::mem::size_of::<libc::sockaddr_in6>() as libc::socklen_t,
                )
            }
        }
    };
    check(rc)?;
    Ok(socket)
}

fn resource(state: &OpState, rid: ResourceId) -> Result<Rc<UdpResource>, JsErrorBox> {
    state
        .resource_table
        .get::<UdpResource>(rid)
        .map_err(JsErrorBox::from_err)
}

/// Makes and binds a UDP socket of the family `ipv6` says to `ip:port` (`flags`: REUSE_ADDR,
/// IPV6_ONLY); returns its resource id.
#[op2(fast)]
#[smi]
pub fn op_dgram_bind(
    state: &mut OpState,
    ipv6: bool,
    #[string] ip: &str,
    #[smi] port: u32,
    #[smi] flags: u32,
) -> Result<ResourceId, JsErrorBox> {
    super::permission::net(state, ip, Some(port as u16))?;
    let addr = socket_addr(ipv6, ip, port as u16).map_err(|e| error(&e))?;
    let socket = bind_socket(addr, flags).map_err(|e| error(&e))?;
    let socket = UdpSocket::from_std(socket).map_err(|e| error(&e))?;
    Ok(state.resource_table.add(UdpResource {
        socket,
        ipv6,
        cancel: CancelHandle::new(),
    }))
}

/// An address as Node shows it: a link-local IPv6 address with its interface (`fe80::1%eth0`).
#[derive(Serialize)]
pub struct Address {
    address: String,
    family: &'static str,
    port: u16,
}

impl From<SocketAddr> for Address {
    fn from(addr: SocketAddr) -> Self {
        let (address, family) = match addr {
            SocketAddr::V4(a) => (a.ip().to_string(), "IPv4"),
            SocketAddr::V6(a) => {
                let mut text = a.ip().to_string();
                if a.ip().segments()[0] & 0xffc0 == 0xfe80 && a.scope_id() > 0 {
                    if let Some(name) = if_name(a.scope_id()) {
                        text = format!("{text}%{name}");
                    }
                }
                (text, "IPv6")
            }
        };
        Address {
            address,
            family,
            port: addr.port(),
        }
    }
}

/// The socket's own address, or its peer's (`peer`) once connected.
#[op2]
#[serde]
pub fn op_dgram_address(
    state: &mut OpState,
    #[smi] rid: ResourceId,
    peer: bool,
) -> Result<Address, JsErrorBox> {
    let r = resource(state, rid)?;
    let addr = if peer {
        r.socket.peer_addr()
    } else {
        r.socket.local_addr()
    };
    addr.map(Address::from).map_err(|e| error(&e))
}

/// One datagram and where it came from.
#[derive(Serialize)]
pub struct Datagram {
    data: ToJsBuffer,
    address: String,
    family: &'static str,
    port: u16,
}

/// The next datagram; rejects once the socket is closed. A connected socket's pending ICMP
/// error (ECONNREFUSED) rejects one receive, as recvmsg reports it to libuv: the wait is for
/// the socket's error readiness as well as for data, since tokio's `recv_from` does not wake
/// on an error alone (libuv's poll wakes the reader on POLLERR).
#[op2]
#[serde]
pub async fn op_dgram_recv(
    state: Rc<RefCell<OpState>>,
    #[smi] rid: ResourceId,
) -> Result<Datagram, JsErrorBox> {
    let r = resource(&state.borrow(), rid)?;
    let cancel = RcRef::map(&r, |r| &r.cancel);
    let mut buf = vec![0; MAX_DATAGRAM];
    let receive = async {
        loop {
            tokio::select! {
                biased;
                received = r.socket.recv_from(&mut buf) => return received,
                ready = r.socket.ready(Interest::ERROR) => {
                    ready?;
                    if let Some(e) = r.socket.take_error()? {
                        return Err(e);
                    }
                    // Nothing pending: clear the readiness tokio keeps, and wait again.
                    let _ = r.socket.try_io(Interest::ERROR, || {
                        Err::<(), _>(io::ErrorKind::WouldBlock.into())
                    });
                }
            }
        }
    };
    let (n, from) = receive.try_or_cancel(cancel).await.map_err(|e| error(&e))?;
    buf.truncate(n);
    let from = Address::from(from);
    Ok(Datagram {
        data: buf.into(),
        address: from.address,
        family: from.family,
        port: from.port,
    })
}

/// Sends one datagram at once if the kernel takes it: the bytes sent, or -1 when it would
/// block (then `op_dgram_send_async`). An empty `ip` sends to the connected peer.
#[op2(fast)]
pub fn op_dgram_send(
    state: &mut OpState,
    #[smi] rid: ResourceId,
    #[buffer] data: &[u8],
    #[string] ip: &str,
    #[smi] port: u32,
) -> Result<i32, JsErrorBox> {
    super::permission::net(state, ip, Some(port as u16))?;
    let r = resource(state, rid)?;
    let sent = if ip.is_empty() {
        r.with_std(|s| s.send(data))
    } else {
        let addr = socket_addr(r.ipv6, ip, port as u16).map_err(|e| error(&e))?;
        r.with_std(|s| s.send_to(data, addr))
    };
    match sent {
        Ok(n) => Ok(n as i32),
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(-1),
        Err(e) => Err(error(&e)),
    }
}

/// Sends one datagram once the socket can take it; the bytes sent.
#[op2]
pub async fn op_dgram_send_async(
    state: Rc<RefCell<OpState>>,
    #[smi] rid: ResourceId,
    #[buffer] data: JsBuffer,
    #[string] ip: String,
    #[smi] port: u32,
) -> Result<u32, JsErrorBox> {
    super::permission::check_rc(&state, |p| p.check_net(&ip, Some(port as u16)))?;
    let r = resource(&state.borrow(), rid)?;
    let cancel = RcRef::map(&r, |r| &r.cancel);
    let sent = if ip.is_empty() {
        r.socket.send(&data).try_or_cancel(cancel).await
    } else {
        let addr = socket_addr(r.ipv6, &ip, port as u16).map_err(|e| error(&e))?;
        r.socket.send_to(&data, addr).try_or_cancel(cancel).await
    };
    sent.map(|n| n as u32).map_err(|e| error(&e))
}

/// Connects the socket to `ip:port`, or with an empty `ip` dissolves the association
/// (`connect` with AF_UNSPEC, as `uv_udp_connect(handle, NULL)`).
#[op2(fast)]
pub fn op_dgram_connect(
    state: &mut OpState,
    #[smi] rid: ResourceId,
    #[string] ip: &str,
    #[smi] port: u32,
) -> Result<(), JsErrorBox> {
    super::permission::net(state, ip, Some(port as u16))?;
    let r = resource(state, rid)?;
    if !ip.is_empty() {
        let addr = socket_addr(r.ipv6, ip, port as u16).map_err(|e| error(&e))?;
        return r.with_std(|s| s.connect(addr)).map_err(|e| error(&e));
    }
    // SAFETY: a zeroed sockaddr with family AF_UNSPEC, passed with its size.
    let rc = unsafe {
        let mut addr: libc::sockaddr = std::mem::zeroed();
        addr.sa_family = libc::AF_UNSPEC as libc::sa_family_t;
        libc::connect(
            r.fd(),
            &addr,
            std::mem::size_of::<libc::sockaddr>() as libc::socklen_t,
        )
    };
    match check(rc) {
        Err(e) if e.raw_os_error() != Some(libc::EAFNOSUPPORT) => Err(error(&e)),
        _ => Ok(()),
    }
}

/// The integer options: 0 broadcast, 1 TTL (1–255), 2 multicast TTL (0–255), 3 multicast
/// loopback; the IPv6 option on an IPv6 socket, as libuv picks them.
#[op2(fast)]
pub fn op_dgram_set_option(
    state: &mut OpState,
    #[smi] rid: ResourceId,
    #[smi] option: u32,
    #[smi] value: i32,
) -> Result<(), JsErrorBox> {
    let r = resource(state, rid)?;
    let (level, v4, v6, range) = match option {
        0 => (
            libc::SOL_SOCKET,
            libc::SO_BROADCAST,
            libc::SO_BROADCAST,
            None,
        ),
        1 => (
            libc::IPPROTO_IP,
            libc::IP_TTL,
            libc::IPV6_UNICAST_HOPS,
            Some(1..=255),
        ),
        2 => (
            libc::IPPROTO_IP,
            libc::IP_MULTICAST_TTL,
            libc::IPV6_MULTICAST_HOPS,
            Some(0..=255),
        ),
        3 => (
            libc::IPPROTO_IP,
            libc::IP_MULTICAST_LOOP,
            libc::IPV6_MULTICAST_LOOP,
            Some(0..=255),
        ),
        _ => return Err(error(&errno(libc::EINVAL))),
    };
    if range.is_some_and(|range| !range.contains(&value)) {
        return Err(error(&errno(libc::EINVAL)));
    }
    let (level, name) = match (r.ipv6, level) {
        (true, libc::IPPROTO_IP) => (libc::IPPROTO_IPV6, v6),
        _ => (level, v4),
    };
    setsockopt(r.fd(), level, name, &(value as libc::c_int)).map_err(|e| error(&e))
}

/// `uv_recv_buffer_size`/`uv_send_buffer_size`: sets the size unless it is 0, then answers it
/// (the size asked for, or when reading, what the kernel reports: twice what was set).
#[op2(fast)]
pub fn op_dgram_buffer_size(
    state: &mut OpState,
    #[smi] rid: ResourceId,
    recv: bool,
    size: u32,
) -> Result<u32, JsErrorBox> {
    let r = resource(state, rid)?;
    let name = if recv {
        libc::SO_RCVBUF
    } else {
        libc::SO_SNDBUF
    };
    if size != 0 {
        setsockopt(r.fd(), libc::SOL_SOCKET, name, &(size as libc::c_int))
            .map_err(|e| error(&e))?;
        return Ok(size);
    }
    let mut value: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: `value` and `len` are valid for getsockopt to write.
    let rc = unsafe {
        libc::getsockopt(
            r.fd(),
            libc::SOL_SOCKET,
            name,
            &mut value as *mut libc::c_int as *mut libc::c_void,
            &mut len,
        )
    };
    check(rc).map_err(|e| error(&e))?;
    Ok(value as u32)
}

/// The interface outgoing multicast leaves by: an IPv4 address (IP_MULTICAST_IF), or an IPv6
/// one whose zone names the interface (IPV6_MULTICAST_IF).
#[op2(fast)]
pub fn op_dgram_multicast_interface(
    state: &mut OpState,
    #[smi] rid: ResourceId,
    #[string] iface: &str,
) -> Result<(), JsErrorBox> {
    let r = resource(state, rid)?;
    let set = if let Ok(v4) = iface.parse::<Ipv4Addr>() {
        setsockopt(
            r.fd(),
            libc::IPPROTO_IP,
            libc::IP_MULTICAST_IF,
            &in_addr(&v4),
        )
    } else if let Some((_, scope)) = parse_v6(iface) {
        setsockopt(
            r.fd(),
            libc::IPPROTO_IPV6,
            libc::IPV6_MULTICAST_IF,
            &(scope as libc::c_int),
        )
    } else {
        Err(errno(libc::EINVAL))
    };
    set.map_err(|e| error(&e))
}

/// Joins (or with `join` false, leaves) multicast group `group`, on the interface of address
/// `iface` (IPv4) or of `iface`'s zone (IPv6), else the one the system picks.
#[op2]
pub fn op_dgram_membership(
    state: &mut OpState,
    #[smi] rid: ResourceId,
    #[string] group: &str,
    #[string] iface: Option<String>,
    join: bool,
) -> Result<(), JsErrorBox> {
    let r = resource(state, rid)?;
    let set = if let Ok(group) = group.parse::<Ipv4Addr>() {
        (|| {
            let interface = match &iface {
                Some(iface) => iface.parse().map_err(|_| errno(libc::EINVAL))?,
                None => Ipv4Addr::UNSPECIFIED,
            };
            let mreq = libc::ip_mreq {
                imr_multiaddr: in_addr(&group),
                imr_interface: in_addr(&interface),
            };
            let name = if join {
                libc::IP_ADD_MEMBERSHIP
            } else {
                libc::IP_DROP_MEMBERSHIP
            };
            setsockopt(r.fd(), libc::IPPROTO_IP, name, &mreq)
        })()
    } else if let Some((group, _)) = parse_v6(group) {
        (|| {
            let interface = match &iface {
                Some(iface) => parse_v6(iface).ok_or_else(|| errno(libc::EINVAL))?.1,
                None => 0,
            };
            let mreq = libc::ipv6_mreq {
                ipv6mr_multiaddr: in6_addr(&group),
                ipv6mr_interface: interface,
            };
            let name = if join {
                libc::IPV6_ADD_MEMBERSHIP
            } else {
                libc::IPV6_DROP_MEMBERSHIP
            };
            setsockopt(r.fd(), libc::IPPROTO_IPV6, name, &mreq)
        })()
    } else {
        Err(errno(libc::EINVAL))
    };
    set.map_err(|e| error(&e))
}

/// Closes a socket; its pending receive and sends reject. Closing twice is harmless.
#[op2(fast)]
pub fn op_dgram_close(state: &mut OpState, #[smi] rid: ResourceId) {
    if let Ok(resource) = state.resource_table.take_any(rid) {
        resource.close();
    }
}

deno_core::extension!(
    paseo_dgram,
    ops = [
        op_dgram_bind,
        op_dgram_address,
        op_dgram_recv,
        op_dgram_send,
        op_dgram_send_async,
        op_dgram_connect,
        op_dgram_set_option,
        op_dgram_buffer_size,
        op_dgram_multicast_interface,
        op_dgram_membership,
        op_dgram_close,
    ],
);
