//! The relay's contact with Linux: packet sockets on its veth ends, the
//! monotonic clock, waiting for the next frame or deadline, and the
//! signals that end it. Everything else in the relay is plain Rust.
//!
//! AF_PACKET sockets rather than TUN devices: a veth pair gives each host
//! an ordinary Ethernet interface (the hosts' stacks see what they see on
//! a NIC, tcpdump works there as anywhere), the relay's end needs no
//! device of its own, and one socket per host reads and writes whole
//! frames with no header to add or strip.

use satcp_core::engine::{Duration, SimTime};
use std::ffi::CString;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

// linux/if_packet.h
const PACKET_STATISTICS: libc::c_int = 6;
const PACKET_IGNORE_OUTGOING: libc::c_int = 23;

fn check(r: libc::c_int, what: &str) -> io::Result<libc::c_int> {
    if r < 0 {
        let e = io::Error::last_os_error();
        return Err(io::Error::new(e.kind(), format!("{what}: {e}")));
    }
    Ok(r)
}

/// A packet socket bound to one interface: reads every frame the host on
/// its other end sends, writes frames to it.
pub struct PacketSocket {
    fd: libc::c_int,
}

impl PacketSocket {
    /// Opens the socket on interface `ifname`, non-blocking, with buffers
    /// of `buffer_bytes` each way.
    pub fn open(ifname: &str, buffer_bytes: usize) -> io::Result<PacketSocket> {
        let name = CString::new(ifname).map_err(io::Error::other)?;
        // SAFETY: plain system calls on a descriptor this function owns.
        unsafe {
            let index = libc::if_nametoindex(name.as_ptr());
            if index == 0 {
                return Err(io::Error::other(format!("no interface {ifname}")));
            }
            // Protocol 0: no frame is queued before the socket is bound to
            // its interface.
            let fd = check(
                libc::socket(
                    libc::AF_PACKET,
                    libc::SOCK_RAW | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
                    0,
                ),
                "socket(AF_PACKET)",
            )?;
            let s = PacketSocket { fd };
            // The frames this socket writes are not read back.
            s.set(
                libc::SOL_PACKET,
                PACKET_IGNORE_OUTGOING,
                1,
                "PACKET_IGNORE_OUTGOING",
            )?;
            s.set(libc::SOL_SOCKET, libc::SO_TIMESTAMPNS, 1, "SO_TIMESTAMPNS")?;
            let bytes = buffer_bytes as libc::c_int;
            s.set(
                libc::SOL_SOCKET,
                libc::SO_RCVBUFFORCE,
                bytes,
                "SO_RCVBUFFORCE",
            )?;
            s.set(
                libc::SOL_SOCKET,
                libc::SO_SNDBUFFORCE,
                bytes,
                "SO_SNDBUFFORCE",
            )?;
            let mut addr: libc::sockaddr_ll = std::mem::zeroed();
            addr.sll_family = libc::AF_PACKET as u16;
            addr.sll_protocol = (libc::ETH_P_ALL as u16).to_be();
            addr.sll_ifindex = index as i32;
            check(
                libc::bind(
                    fd,
                    &addr as *const libc::sockaddr_ll as *const libc::sockaddr,
                    std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t,
                ),
                "bind",
            )?;
            Ok(s)
        }
    }

    fn set(
        &self,
        level: libc::c_int,
        opt: libc::c_int,
        v: libc::c_int,
        what: &str,
    ) -> io::Result<()> {
        // SAFETY: v outlives the call; its size is passed.
        let r = unsafe {
            libc::setsockopt(
                self.fd,
                level,
                opt,
                &v as *const libc::c_int as *const libc::c_void,
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            )
        };
        check(r, what).map(|_| ())
    }

    pub fn fd(&self) -> libc::c_int {
        self.fd
    }

    /// The next frame waiting, into `buf`: its length and the wall-clock
    /// time the kernel received it (ns; SO_TIMESTAMPNS, so that a relay
    /// that wakes up late still knows when the frame came); None when none
    /// waits.
    pub fn recv(&self, buf: &mut [u8]) -> io::Result<Option<(usize, Option<u64>)>> {
        let mut iov = libc::iovec {
            iov_base: buf.as_mut_ptr().cast(),
            iov_len: buf.len(),
        };
        let mut control = [0u64; 8];
        // SAFETY: msghdr points at iov and control, both valid for the call.
        let (n, msg) = unsafe {
            let mut msg: libc::msghdr = std::mem::zeroed();
            msg.msg_iov = &mut iov;
            msg.msg_iovlen = 1;
            msg.msg_control = control.as_mut_ptr().cast();
            msg.msg_controllen = std::mem::size_of_val(&control) as _;
            let n = libc::recvmsg(self.fd, &mut msg, libc::MSG_TRUNC);
            (n, msg)
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            return match e.kind() {
                io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(None),
                _ => Err(e),
            };
        }
        let mut at = None;
        // SAFETY: the control messages the kernel wrote into `control`.
        unsafe {
            let mut c = libc::CMSG_FIRSTHDR(&msg);
            while !c.is_null() {
                if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SO_TIMESTAMPNS {
                    let ts = std::ptr::read_unaligned(libc::CMSG_DATA(c) as *const libc::timespec);
                    at = Some(ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64);
                }
                c = libc::CMSG_NXTHDR(&msg, c);
            }
        }
        Ok(Some((n as usize, at)))
    }

    /// Writes one frame; false if the kernel had no room for it.
    pub fn send(&self, frame: &[u8]) -> io::Result<bool> {
        // SAFETY: frame is valid for its length.
        let n = unsafe { libc::send(self.fd, frame.as_ptr().cast(), frame.len(), 0) };
        if n < 0 {
            let e = io::Error::last_os_error();
            return match e.raw_os_error() {
                Some(libc::EAGAIN) | Some(libc::ENOBUFS) => Ok(false),
                _ => Err(e),
            };
        }
        Ok(true)
    }

    /// Frames the kernel dropped because this socket's buffer was full,
    /// since the last call.
    pub fn drops(&self) -> u64 {
        let mut stats = [0u32; 2]; // struct tpacket_stats { tp_packets, tp_drops }
        let mut len = std::mem::size_of_val(&stats) as libc::socklen_t;
        // SAFETY: stats is valid for len bytes.
        let r = unsafe {
            libc::getsockopt(
                self.fd,
                libc::SOL_PACKET,
                PACKET_STATISTICS,
                stats.as_mut_ptr().cast(),
                &mut len,
            )
        };
        if r < 0 {
            0
        } else {
            stats[1] as u64
        }
    }
}

impl Drop for PacketSocket {
    fn drop(&mut self) {
        // SAFETY: the descriptor is this socket's own.
        unsafe { libc::close(self.fd) };
    }
}

fn clock(id: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid timespec.
    unsafe { libc::clock_gettime(id, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The emulation's clock: CLOCK_MONOTONIC from the moment it starts (the
/// schedules' time zero), and the wall-clock time of that moment (the
/// captures' timestamps).
pub struct RealClock {
    origin: u64,
    pub wall_origin_ns: u64,
}

impl RealClock {
    pub fn start() -> RealClock {
        RealClock {
            origin: clock(libc::CLOCK_MONOTONIC),
            wall_origin_ns: clock(libc::CLOCK_REALTIME),
        }
    }
    pub fn now(&self) -> SimTime {
        SimTime(clock(libc::CLOCK_MONOTONIC) - self.origin)
    }
    /// A wall-clock time (ns) on the emulation's clock, at most `now`.
    pub fn at_wall(&self, wall_ns: u64, now: SimTime) -> SimTime {
        SimTime(wall_ns.saturating_sub(self.wall_origin_ns).min(now.0))
    }
}

/// Waits until one of `fds` is readable or `timeout` has passed (None:
/// until a frame or a signal); fills `ready` with the readable ones.
pub fn wait(
    fds: &[libc::c_int],
    timeout: Option<Duration>,
    ready: &mut Vec<usize>,
) -> io::Result<()> {
    let mut polls: Vec<libc::pollfd> = fds
        .iter()
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    let ts = timeout.map(|d| libc::timespec {
        tv_sec: (d.0 / 1_000_000_000) as libc::time_t,
        tv_nsec: (d.0 % 1_000_000_000) as libc::c_long,
    });
    let ts_ptr = ts
        .as_ref()
        .map_or(std::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: polls and ts are valid for the call.
    let r = unsafe {
        libc::ppoll(
            polls.as_mut_ptr(),
            polls.len() as libc::nfds_t,
            ts_ptr,
            std::ptr::null(),
        )
    };
    ready.clear();
    if r < 0 {
        let e = io::Error::last_os_error();
        return if e.kind() == io::ErrorKind::Interrupted {
            Ok(())
        } else {
            Err(e)
        };
    }
    for (i, p) in polls.iter().enumerate() {
        if p.revents != 0 {
            ready.push(i);
        }
    }
    Ok(())
}

/// The priority the relay asks for under SCHED_FIFO: above every ordinary
/// process (a build, the hosts' own programs), so that it wakes up when a
/// packet is due; the kernel's real-time throttling (by default 5 % of
/// each second left to others) keeps a runaway relay from freezing the
/// machine.
const REALTIME_PRIORITY: libc::c_int = 10;

/// Runs the relay under SCHED_FIFO; false if the kernel refused.
pub fn realtime_priority() -> bool {
    let param = libc::sched_param {
        sched_priority: REALTIME_PRIORITY,
    };
    // SAFETY: param is valid for the call.
    unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) == 0 }
}

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::Relaxed);
}

/// SIGTERM, SIGINT and SIGHUP end the relay (it then writes its summary);
/// so does its parent's death (the controller that started it), so that a
/// controller killed with SIGKILL leaves no relay behind. Timer slack of
/// 1 ns: the kernel wakes the relay when asked, not up to 50 µs later.
pub fn install_stop_handlers() {
    // SAFETY: the handler only stores to an atomic; prctl takes plain ints.
    unsafe {
        for sig in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
            libc::signal(sig, on_signal as *const () as libc::sighandler_t);
        }
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
        libc::prctl(libc::PR_SET_TIMERSLACK, 1);
        // The parent may have died before the request took effect.
        if libc::getppid() == 1 {
            STOP.store(true, Ordering::Relaxed);
        }
    }
}

pub fn stop_requested() -> bool {
    STOP.load(Ordering::Relaxed)
}
