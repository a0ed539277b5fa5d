//! Watching one child: feed it the payload, collect its two output streams up to their
//! caps, enforce the wall clock, then kill whatever is left and reap it.
//!
//! One thread and `poll(2)` over the pipes and a pidfd: no helper threads to leak, and the
//! wall clock is exact to the millisecond.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::process::Child;
use std::time::{Duration, Instant};

use crate::SandboxError;

/// Why the parent stopped the child before it finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stopped {
    WallClock,
    /// The stream that went over its cap.
    Output,
}

/// How the child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    Exited(i32),
    Signaled(i32),
}

#[derive(Debug)]
pub(crate) struct Finished {
    pub results: Vec<u8>,
    pub output: Vec<u8>,
    pub stopped: Option<Stopped>,
    pub ending: Ending,
    pub cpu_time: Duration,
}

pub(crate) struct Caps {
    pub wall_clock: Duration,
    /// Bytes of the result stream (stdout) kept before the child is stopped.
    pub results: usize,
    /// Bytes of the learner's output (stderr) kept before the child is stopped.
    pub output: usize,
}

const READ_CHUNK: usize = 16 * 1024;

pub(crate) fn supervise(mut child: Child, payload: &[u8], caps: &Caps) -> Result<Finished, SandboxError> {
    let started = Instant::now();
    let pid = child.id() as libc::pid_t;
    let result = watch(&mut child, pid, payload, caps, started);
    // Whatever happened, nothing of the run may outlive this call. The child leads its own
    // process group; killing the group before reaping the leader means the group id
    // cannot have been reused by then.
    // SAFETY: plain system call.
    unsafe { libc::kill(-pid, libc::SIGKILL) };
    let (ending, cpu_time) = reap(pid)?;
    let (results, output, stopped) = result?;
    Ok(Finished { results, output, stopped, ending, cpu_time })
}

type Collected = (Vec<u8>, Vec<u8>, Option<Stopped>);

fn watch(
    child: &mut Child,
    pid: libc::pid_t,
    payload: &[u8],
    caps: &Caps,
    started: Instant,
) -> Result<Collected, SandboxError> {
    let deadline = started + caps.wall_clock;
    let mut stdin: Option<OwnedFd> = child.stdin.take().map(OwnedFd::from);
    let mut stdout = Stream::new(child.stdout.take().map(OwnedFd::from), caps.results);
    let mut stderr = Stream::new(child.stderr.take().map(OwnedFd::from), caps.output);
    let exit = pidfd_open(pid).map_err(SandboxError::io("watching the sandboxed process"))?;
    for fd in [stdin.as_ref(), stdout.fd.as_ref(), stderr.fd.as_ref()].into_iter().flatten() {
        set_nonblocking(fd.as_raw_fd()).map_err(SandboxError::io("setting up the pipes"))?;
    }

    let mut written = 0;
    let mut exited = false;
    loop {
        if exited && stdout.fd.is_none() && stderr.fd.is_none() {
            return Ok((stdout.data, stderr.data, None));
        }
        let now = Instant::now();
        if now >= deadline {
            // After the exit only buffered output remains; its late arrival is no limit.
            let stopped = (!exited).then_some(Stopped::WallClock);
            return Ok((stdout.data, stderr.data, stopped));
        }
        let timeout_ms = (deadline - now).as_millis().min(i32::MAX as u128) as i32 + 1;

        let mut fds = Vec::with_capacity(4);
        let mut push = |fd: Option<&OwnedFd>, events: libc::c_short| {
            if let Some(fd) = fd {
                fds.push(libc::pollfd { fd: fd.as_raw_fd(), events, revents: 0 });
            }
        };
        push(stdin.as_ref(), libc::POLLOUT);
        push(stdout.fd.as_ref(), libc::POLLIN);
        push(stderr.fd.as_ref(), libc::POLLIN);
        push((!exited).then_some(&exit), libc::POLLIN);

        // SAFETY: `fds` is a valid array of pollfd for its length.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, timeout_ms) };
        if ready < 0 {
            let error = io::Error::last_os_error();
            if error.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(SandboxError::Io { context: "waiting for the sandboxed process", source: error });
        }
        let ready_fds: Vec<RawFd> = fds.iter().filter(|p| p.revents != 0).map(|p| p.fd).collect();
        let is_ready = |fd: Option<&OwnedFd>| fd.is_some_and(|fd| ready_fds.contains(&fd.as_raw_fd()));

        if is_ready(stdin.as_ref()) {
            let done = match stdin.as_ref().map(|fd| write_some(fd, &payload[written..])) {
                Some(Ok(n)) => {
                    written += n;
                    written >= payload.len()
                }
                // The child closed its end or died: it will not read the rest.
                Some(Err(_)) => true,
                None => true,
            };
            if done {
                // Closing our end is the child's end of input.
                stdin = None;
            }
        }
        let mut over_cap = false;
        for stream in [&mut stdout, &mut stderr] {
            if is_ready(stream.fd.as_ref()) && stream.drain() == Drain::OverCap {
                over_cap = true;
            }
        }
        if over_cap {
            return Ok((stdout.data, stderr.data, Some(Stopped::Output)));
        }
        if !exited && ready_fds.contains(&exit.as_raw_fd()) {
            exited = true;
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Drain {
    Open,
    OverCap,
}

/// One output pipe and what has been read from it.
struct Stream {
    fd: Option<OwnedFd>,
    data: Vec<u8>,
    cap: usize,
}

impl Stream {
    fn new(fd: Option<OwnedFd>, cap: usize) -> Self {
        Stream { fd, data: Vec::new(), cap }
    }

    /// Reads what is available; closes the stream at end of file.
    fn drain(&mut self) -> Drain {
        let Some(fd) = self.fd.as_ref() else {
            return Drain::Open;
        };
        let mut buffer = [0u8; READ_CHUNK];
        loop {
            // SAFETY: reads into a valid stack buffer of the given length.
            let n = unsafe { libc::read(fd.as_raw_fd(), buffer.as_mut_ptr().cast(), buffer.len()) };
            if n > 0 {
                let n = n as usize;
                let room = self.cap.saturating_sub(self.data.len());
                self.data.extend_from_slice(&buffer[..n.min(room)]);
                if n > room {
                    return Drain::OverCap;
                }
                continue;
            }
            if n == 0 {
                self.fd = None;
                return Drain::Open;
            }
            let error = io::Error::last_os_error();
            match error.kind() {
                io::ErrorKind::Interrupted => continue,
                io::ErrorKind::WouldBlock => return Drain::Open,
                _ => {
                    self.fd = None;
                    return Drain::Open;
                }
            }
        }
    }
}

fn write_some(fd: &OwnedFd, bytes: &[u8]) -> io::Result<usize> {
    if bytes.is_empty() {
        return Ok(0);
    }
    loop {
        // SAFETY: writes from a valid buffer of the given length.
        let n = unsafe { libc::write(fd.as_raw_fd(), bytes.as_ptr().cast(), bytes.len()) };
        if n >= 0 {
            return Ok(n as usize);
        }
        let error = io::Error::last_os_error();
        match error.kind() {
            io::ErrorKind::Interrupted => continue,
            io::ErrorKind::WouldBlock => return Ok(0),
            _ => return Err(error),
        }
    }
}

fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor we own.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: as above.
    if unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

fn pidfd_open(pid: libc::pid_t) -> io::Result<OwnedFd> {
    // SAFETY: plain system call; the child is not reaped yet, so the pid is still ours.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0u32) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the kernel just returned this descriptor to us.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// Waits for the (killed) child and returns how it ended and the CPU time it used.
fn reap(pid: libc::pid_t) -> Result<(Ending, Duration), SandboxError> {
    let mut status: libc::c_int = 0;
    // SAFETY: zeroed rusage is a valid value for the kernel to overwrite.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: valid pointers to locals; the pid is our own child.
        let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if rc == pid {
            break;
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(SandboxError::Io { context: "reaping the sandboxed process", source: error });
        }
    }
    let ending = if libc::WIFSIGNALED(status) {
        Ending::Signaled(libc::WTERMSIG(status))
    } else {
        Ending::Exited(libc::WEXITSTATUS(status))
    };
    let cpu_time = timeval(usage.ru_utime) + timeval(usage.ru_stime);
    Ok((ending, cpu_time))
}

fn timeval(time: libc::timeval) -> Duration {
    Duration::from_secs(time.tv_sec.max(0) as u64) + Duration::from_micros(time.tv_usec.max(0) as u64)
}
