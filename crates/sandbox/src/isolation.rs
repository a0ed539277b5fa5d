//! What the kernel offers, checked once so a host without it fails closed at start-up.

use std::fmt;
use std::io;

use crate::SandboxError;

const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
const SECCOMP_GET_ACTION_AVAIL: libc::c_uint = 2;

/// The isolation layers in force for every run.
///
/// Always: user, mount, network, IPC and UTS namespaces; a private tmpfs as the working
/// directory; Landlock on the filesystem; a seccomp filter; resource limits. Newer
/// Landlock versions add layers, recorded here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Isolation {
    /// The Landlock ABI version the kernel reports (1 = Linux 5.13).
    pub landlock_abi: u32,
}

impl Isolation {
    /// Landlock also refuses TCP `bind` and `connect` (ABI 4, Linux 6.7).
    pub fn landlock_network(&self) -> bool {
        self.landlock_abi >= 4
    }

    /// Landlock also stops signals to, and abstract sockets of, processes outside the
    /// sandbox (ABI 6, Linux 6.12).
    pub fn landlock_scopes(&self) -> bool {
        self.landlock_abi >= 6
    }
}

impl fmt::Display for Isolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "user, mount, network, IPC and UTS namespaces; private tmpfs scratch; \
             Landlock ABI {} (files",
            self.landlock_abi
        )?;
        if self.landlock_network() {
            write!(f, ", TCP")?;
        }
        if self.landlock_scopes() {
            write!(f, ", signals, abstract sockets")?;
        }
        write!(
            f,
            "); seccomp filter (no processes, exec, sockets, signals, namespaces); \
             rlimits (CPU, address space, file size, open files)"
        )
    }
}

pub(crate) fn detect() -> Result<Isolation, SandboxError> {
    let landlock_abi = landlock_abi()?;
    check_seccomp()?;
    check_user_namespaces()?;
    Ok(Isolation { landlock_abi })
}

fn landlock_abi() -> Result<u32, SandboxError> {
    // SAFETY: with a null attribute and the VERSION flag the call only returns a number.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    if abi >= 1 {
        return u32::try_from(abi).map_err(|_| unavailable("Landlock", "implausible ABI version"));
    }
    let error = io::Error::last_os_error();
    let reason = match error.raw_os_error() {
        Some(libc::ENOSYS) => "the kernel was built without it (Linux 5.13 or newer with \
                               CONFIG_SECURITY_LANDLOCK is needed)"
            .to_string(),
        Some(libc::EOPNOTSUPP) => "it is built in but disabled; add landlock to the lsm= \
                                   kernel parameter"
            .to_string(),
        _ => error.to_string(),
    };
    Err(unavailable("Landlock", &reason))
}

fn check_seccomp() -> Result<(), SandboxError> {
    let errno_action: u32 = libc::SECCOMP_RET_ERRNO;
    // SAFETY: the kernel only reads the u32 we point to.
    let rc = unsafe { libc::syscall(libc::SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0u32, &errno_action as *const u32) };
    if rc == 0 {
        return Ok(());
    }
    let error = io::Error::last_os_error();
    Err(unavailable("seccomp filtering", &format!("{error}; a kernel with CONFIG_SECCOMP_FILTER is needed")))
}

fn check_user_namespaces() -> Result<(), SandboxError> {
    // The authoritative check is the self-test run in `Sandbox::new`; this one only turns
    // the common "disabled by sysctl" case into a precise message.
    match std::fs::read_to_string("/proc/sys/user/max_user_namespaces") {
        Ok(value) if value.trim() == "0" => {
            Err(unavailable("user namespaces", "/proc/sys/user/max_user_namespaces is 0"))
        }
        Ok(_) => Ok(()),
        Err(e) => {
            Err(unavailable("user namespaces", &format!("/proc/sys/user/max_user_namespaces cannot be read: {e}")))
        }
    }
}

fn unavailable(mechanism: &str, reason: &str) -> SandboxError {
    SandboxError::Unavailable { mechanism: mechanism.to_string(), reason: reason.to_string() }
}
