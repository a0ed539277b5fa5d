//! What the child does to itself between fork and exec.
//!
//! The server is multi-threaded, so after fork only async-signal-safe work is allowed: no
//! allocation, no locks. Everything (paths as C strings, the id maps, the Landlock ruleset
//! descriptor, the compiled seccomp program) is prepared by the parent in [`Confinement`];
//! [`Confinement::apply`] only issues system calls.

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};

use seccompiler::BpfProgram;

/// One step of [`Confinement::apply`]; a failure names the step that failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Step {
    Namespaces = 1,
    IdentityMaps,
    Scratch,
    Capabilities,
    NoNewPrivileges,
    Landlock,
    Descriptors,
    Limits,
    Seccomp,
}

impl Step {
    const ALL: [Step; 9] = [
        Step::Namespaces,
        Step::IdentityMaps,
        Step::Scratch,
        Step::Capabilities,
        Step::NoNewPrivileges,
        Step::Landlock,
        Step::Descriptors,
        Step::Limits,
        Step::Seccomp,
    ];

    pub(crate) fn describe(self) -> &'static str {
        match self {
            Step::Namespaces => "creating user, mount, network, IPC and UTS namespaces",
            Step::IdentityMaps => "mapping the user into its namespace",
            Step::Scratch => "mounting the private scratch tmpfs",
            Step::Capabilities => "dropping capabilities",
            Step::NoNewPrivileges => "setting no_new_privs and the parent-death signal",
            Step::Landlock => "enforcing the Landlock ruleset",
            Step::Descriptors => "closing inherited file descriptors",
            Step::Limits => "setting resource limits",
            Step::Seccomp => "installing the seccomp filter",
        }
    }

    pub(crate) fn mechanism(self) -> &'static str {
        match self {
            Step::Namespaces | Step::IdentityMaps => "user and network namespaces",
            Step::Scratch => "a private tmpfs mount",
            Step::Capabilities | Step::NoNewPrivileges => "capability dropping",
            Step::Landlock => "Landlock",
            Step::Descriptors => "close_range",
            Step::Limits => "resource limits",
            Step::Seccomp => "seccomp filtering",
        }
    }
}

/// std passes only an `i32` errno from the child back to `spawn`, so the failed step rides
/// in the high bits. Errors that are not ours (the exec itself) have no step.
const STEP_SHIFT: u32 = 16;

pub(crate) fn encode_failure(step: Step, errno: i32) -> io::Error {
    io::Error::from_raw_os_error(((step as i32) << STEP_SHIFT) | (errno & 0xffff))
}

/// Splits an error from `spawn` into the step that failed (if it was ours) and the errno.
pub(crate) fn decode_failure(error: &io::Error) -> (Option<Step>, io::Error) {
    let Some(raw) = error.raw_os_error() else {
        return (None, io::Error::new(error.kind(), error.to_string()));
    };
    let step_number = raw >> STEP_SHIFT;
    let step = Step::ALL.into_iter().find(|s| *s as i32 == step_number);
    match step {
        Some(step) => (Some(step), io::Error::from_raw_os_error(raw & 0xffff)),
        None => (None, io::Error::from_raw_os_error(raw)),
    }
}

/// A resource limit: (resource, soft, hard).
pub(crate) type Limit = (libc::__rlimit_resource_t, u64, u64);

const PROC_SETGROUPS: &CStr = c"/proc/self/setgroups";
const PROC_UID_MAP: &CStr = c"/proc/self/uid_map";
const PROC_GID_MAP: &CStr = c"/proc/self/gid_map";
const DENY: &CStr = c"deny";
const ROOT: &CStr = c"/";
const TMPFS: &CStr = c"tmpfs";
const HOSTNAME: &CStr = c"sandbox";

/// Lowest priority above idle, so a busy sandbox slows requests as little as possible.
const NICENESS: libc::c_int = 10;

/// Everything the child needs, prepared by the parent.
pub(crate) struct Confinement {
    pub uid_map: CString,
    pub gid_map: CString,
    pub scratch: CString,
    pub tmpfs_options: CString,
    pub landlock_ruleset: OwnedFd,
    /// Rights granted beneath the scratch tmpfs, once it is mounted.
    pub scratch_access: u64,
    pub limits: Vec<Limit>,
    pub seccomp: BpfProgram,
}

impl Confinement {
    /// Runs in the child after fork. Async-signal-safe: system calls on prepared data only.
    pub(crate) fn apply(&self) -> io::Result<()> {
        // The user namespace takes away every capability in the host's namespaces; the
        // others give the child no network, private mounts, SysV IPC and hostname.
        let namespaces =
            libc::CLONE_NEWUSER | libc::CLONE_NEWNS | libc::CLONE_NEWNET | libc::CLONE_NEWIPC | libc::CLONE_NEWUTS;
        // SAFETY: plain system call.
        check(Step::Namespaces, unsafe { libc::unshare(namespaces) })?;
        // The host's name is none of the code's business.
        // SAFETY: valid buffer and length.
        check(Step::Namespaces, unsafe { libc::sethostname(HOSTNAME.as_ptr(), HOSTNAME.to_bytes().len()) })?;

        write_file(Step::IdentityMaps, PROC_SETGROUPS, DENY)?;
        write_file(Step::IdentityMaps, PROC_UID_MAP, &self.uid_map)?;
        write_file(Step::IdentityMaps, PROC_GID_MAP, &self.gid_map)?;

        self.mount_scratch()?;
        self.grant_scratch()?;
        drop_capabilities()?;

        // SAFETY: plain system calls with integer arguments.
        check(Step::NoNewPrivileges, unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) })?;
        // If the server dies, so does the code it was running.
        check(Step::NoNewPrivileges, unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) })?;

        // SAFETY: the descriptor is a Landlock ruleset owned by `self`.
        check(Step::Landlock, unsafe {
            libc::syscall(libc::SYS_landlock_restrict_self, self.landlock_ruleset.as_raw_fd(), 0u32) as libc::c_int
        })?;

        // Close-on-exec rather than close: std still needs its own pipe to report a failed
        // exec, and the server may hold descriptors opened without O_CLOEXEC.
        // SAFETY: plain system call.
        check(Step::Descriptors, unsafe {
            libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, libc::CLOSE_RANGE_CLOEXEC) as libc::c_int
        })?;

        for &(resource, soft, hard) in &self.limits {
            let limit = libc::rlimit { rlim_cur: soft, rlim_max: hard };
            // SAFETY: `limit` is a valid rlimit on the stack.
            check(Step::Limits, unsafe { libc::setrlimit(resource, &limit) })?;
        }
        // SAFETY: plain system call.
        check(Step::Limits, unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, NICENESS) })?;

        let program = libc::sock_fprog {
            len: u16::try_from(self.seccomp.len()).map_err(|_| encode_failure(Step::Seccomp, libc::E2BIG))?,
            filter: self.seccomp.as_ptr() as *mut libc::sock_filter,
        };
        // SAFETY: `program` points at the prepared instructions, which outlive the call;
        // seccompiler's sock_filter has the kernel's layout.
        check(Step::Seccomp, unsafe {
            libc::syscall(libc::SYS_seccomp, libc::SECCOMP_SET_MODE_FILTER, 0u32, &program as *const libc::sock_fprog)
                as libc::c_int
        })
    }

    fn mount_scratch(&self) -> io::Result<()> {
        let null = std::ptr::null::<libc::c_char>();
        // Keep the private tmpfs from propagating back to the host's mount table.
        // SAFETY: valid C strings or null for every pointer.
        check(Step::Scratch, unsafe {
            libc::mount(null, ROOT.as_ptr(), null, libc::MS_REC | libc::MS_PRIVATE, std::ptr::null())
        })?;
        // A tmpfs bounds what code can write (size and inode count) and disappears with
        // the namespace; the host directory underneath stays empty.
        check(Step::Scratch, unsafe {
            libc::mount(
                TMPFS.as_ptr(),
                self.scratch.as_ptr(),
                TMPFS.as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                self.tmpfs_options.as_ptr().cast(),
            )
        })?;
        check(Step::Scratch, unsafe { libc::chdir(self.scratch.as_ptr()) })
    }

    /// Adds the rule for the freshly mounted scratch tmpfs (the child's working directory)
    /// to the ruleset the parent built.
    fn grant_scratch(&self) -> io::Result<()> {
        // SAFETY: valid C string; O_PATH needs no mode.
        let dir = unsafe { libc::open(c".".as_ptr(), libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC) };
        if dir < 0 {
            return Err(encode_failure(Step::Landlock, last_errno()));
        }
        let rule = LandlockPathBeneath { allowed_access: self.scratch_access, parent_fd: dir };
        // SAFETY: `rule` has the kernel's packed layout and lives across the call.
        let rc = unsafe {
            libc::syscall(
                libc::SYS_landlock_add_rule,
                self.landlock_ruleset.as_raw_fd(),
                LANDLOCK_RULE_PATH_BENEATH,
                &rule as *const LandlockPathBeneath,
                0u32,
            )
        };
        let errno = last_errno();
        // SAFETY: closes the descriptor opened above.
        unsafe { libc::close(dir) };
        if rc < 0 {
            return Err(encode_failure(Step::Landlock, errno));
        }
        Ok(())
    }
}

const LANDLOCK_RULE_PATH_BENEATH: libc::c_uint = 1;

/// `struct landlock_path_beneath_attr`, packed as in the kernel's header.
#[repr(C, packed)]
struct LandlockPathBeneath {
    allowed_access: u64,
    parent_fd: i32,
}

/// Empties the bounding set, so the interpreter starts with no capability at all, even
/// inside its own user namespace.
fn drop_capabilities() -> io::Result<()> {
    for capability in 0..64 {
        // SAFETY: plain system call.
        let rc = unsafe { libc::prctl(libc::PR_CAPBSET_DROP, capability, 0, 0, 0) };
        if rc != 0 {
            let errno = last_errno();
            // EINVAL: past the last capability this kernel knows.
            if errno == libc::EINVAL && capability > 0 {
                return Ok(());
            }
            return Err(encode_failure(Step::Capabilities, errno));
        }
    }
    Ok(())
}

fn write_file(step: Step, path: &CStr, content: &CStr) -> io::Result<()> {
    // SAFETY: valid C string, no mode needed without O_CREAT.
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(encode_failure(step, last_errno()));
    }
    let bytes = content.to_bytes();
    // SAFETY: writes from a valid buffer of the given length to the descriptor just opened.
    let written = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
    let write_errno = last_errno();
    // SAFETY: closes the descriptor opened above.
    unsafe { libc::close(fd) };
    if written != bytes.len() as isize {
        return Err(encode_failure(step, write_errno));
    }
    Ok(())
}

fn check(step: Step, rc: libc::c_int) -> io::Result<()> {
    if rc < 0 {
        Err(encode_failure(step, last_errno()))
    } else {
        Ok(())
    }
}

fn last_errno() -> i32 {
    // SAFETY: errno is thread-local and always readable.
    unsafe { *libc::__errno_location() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_step_survives_the_trip_through_an_errno() {
        let error = encode_failure(Step::Landlock, libc::EPERM);
        let (step, cause) = decode_failure(&error);
        assert_eq!(step, Some(Step::Landlock));
        assert_eq!(cause.raw_os_error(), Some(libc::EPERM));
    }

    #[test]
    fn an_exec_failure_has_no_step() {
        let error = io::Error::from_raw_os_error(libc::ENOENT);
        let (step, cause) = decode_failure(&error);
        assert_eq!(step, None);
        assert_eq!(cause.raw_os_error(), Some(libc::ENOENT));
    }
}
