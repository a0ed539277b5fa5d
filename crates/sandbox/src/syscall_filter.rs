//! The seccomp filters: a deny list, because Python's own needs are broad and change with
//! versions, while what hostile code must not do is a short, stable list.
//!
//! Two stages, because a filter cannot forbid `execve` and still let the sandbox exec the
//! interpreter: the first is installed just before exec and refuses everything else; the
//! runner installs the second (no `execve`) as its first act, before any learner code exists
//! in the process. Denied calls fail with EPERM, so Python raises `PermissionError` instead
//! of dying, and a test can name what was refused.

use std::collections::BTreeMap;

use seccompiler::{
    sock_filter, BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

use crate::SandboxError;

/// Refused from just before exec on.
const DENIED_BEFORE_EXEC: &[libc::c_long] = &[
    // New processes and threads. RLIMIT_NPROC does not bind root, so this is the guard.
    #[cfg(target_arch = "x86_64")]
    libc::SYS_fork,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_vfork,
    libc::SYS_clone,
    libc::SYS_clone3,
    libc::SYS_execveat,
    // Signals (the sandbox runs as the server's user, so the kernel alone would allow
    // killing the server) and other ways to reach other processes.
    libc::SYS_kill,
    libc::SYS_tkill,
    libc::SYS_tgkill,
    libc::SYS_rt_sigqueueinfo,
    libc::SYS_rt_tgsigqueueinfo,
    libc::SYS_pidfd_open,
    libc::SYS_pidfd_send_signal,
    libc::SYS_pidfd_getfd,
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_kcmp,
    libc::SYS_setsid,
    libc::SYS_setpgid,
    // Sockets of every family: the network namespace has no route out, this makes sure.
    libc::SYS_socket,
    libc::SYS_socketpair,
    // Namespaces and mounts.
    libc::SYS_unshare,
    libc::SYS_setns,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_chroot,
    libc::SYS_open_tree,
    libc::SYS_move_mount,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_mount_setattr,
    // Raising limits (prlimit64 with a new value is handled below).
    libc::SYS_setrlimit,
    // Memory that RLIMIT_AS does not count: SysV shared memory survives detaching, and a
    // memfd filled with write() is never mapped.
    libc::SYS_memfd_create,
    libc::SYS_shmget,
    libc::SYS_shmat,
    libc::SYS_shmctl,
    libc::SYS_msgget,
    libc::SYS_msgsnd,
    libc::SYS_semget,
    // Kernel attack surface a pure-Python function never needs.
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_keyctl,
    libc::SYS_open_by_handle_at,
    libc::SYS_name_to_handle_at,
    libc::SYS_fanotify_init,
    libc::SYS_personality,
    libc::SYS_mbind,
    libc::SYS_set_mempolicy,
    libc::SYS_migrate_pages,
    libc::SYS_move_pages,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_iopl,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_ioperm,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_modify_ldt,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_uselib,
    // Host administration.
    libc::SYS_reboot,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_swapon,
    libc::SYS_swapoff,
    libc::SYS_acct,
    libc::SYS_settimeofday,
    libc::SYS_clock_settime,
    libc::SYS_clock_adjtime,
    libc::SYS_adjtimex,
    libc::SYS_syslog,
    libc::SYS_sethostname,
    libc::SYS_setdomainname,
    libc::SYS_quotactl,
    libc::SYS_vhangup,
];

/// Refused once the runner has started: nothing may be executed any more.
const DENIED_AFTER_START: &[libc::c_long] = &[libc::SYS_execve, libc::SYS_execveat];

/// On x86_64, x32 system calls carry this bit in their number and would slip past a deny
/// list keyed on the plain numbers; they are refused wholesale.
#[cfg(target_arch = "x86_64")]
const X32_SYSCALL_BIT: u32 = 0x4000_0000;

/// Compiled filters, built once per [`Sandbox`](crate::Sandbox).
#[derive(Debug, Clone)]
pub(crate) struct SyscallFilters {
    pub before_exec: BpfProgram,
    pub after_start: BpfProgram,
}

pub(crate) fn build() -> Result<SyscallFilters, SandboxError> {
    let mut before_exec_rules: BTreeMap<i64, Vec<SeccompRule>> =
        DENIED_BEFORE_EXEC.iter().map(|&nr| (nr, Vec::new())).collect();
    // prlimit64 is also how glibc reads limits; only calls that set one are refused.
    before_exec_rules.insert(
        libc::SYS_prlimit64,
        vec![rule(SeccompCondition::new(2, SeccompCmpArgLen::Qword, SeccompCmpOp::Ne, 0))?],
    );
    let after_start_rules = DENIED_AFTER_START.iter().map(|&nr| (nr, Vec::new())).collect();
    Ok(SyscallFilters { before_exec: compile(before_exec_rules)?, after_start: compile(after_start_rules)? })
}

/// The program as the runner loads it: `struct sock_filter` entries in native byte order,
/// hex-encoded for the JSON payload.
pub(crate) fn to_hex(program: &[sock_filter]) -> String {
    let mut hex = String::with_capacity(program.len() * 16);
    for instruction in program {
        let mut bytes = [0u8; 8];
        bytes[0..2].copy_from_slice(&instruction.code.to_ne_bytes());
        bytes[2] = instruction.jt;
        bytes[3] = instruction.jf;
        bytes[4..8].copy_from_slice(&instruction.k.to_ne_bytes());
        for byte in bytes {
            hex.push_str(&format!("{byte:02x}"));
        }
    }
    hex
}

fn rule(condition: Result<SeccompCondition, seccompiler::BackendError>) -> Result<SeccompRule, SandboxError> {
    condition.and_then(|c| SeccompRule::new(vec![c])).map_err(filter_error)
}

fn compile(rules: BTreeMap<i64, Vec<SeccompRule>>) -> Result<BpfProgram, SandboxError> {
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(filter_error)?;
    let filter = SeccompFilter::new(rules, SeccompAction::Allow, SeccompAction::Errno(libc::EPERM as u32), arch)
        .map_err(filter_error)?;
    let program: BpfProgram = filter.try_into().map_err(filter_error)?;
    Ok(refuse_x32(program))
}

#[cfg(target_arch = "x86_64")]
fn refuse_x32(mut program: BpfProgram) -> BpfProgram {
    // seccompiler's program opens with three instructions that check the architecture;
    // these follow them and jump only within themselves, so no offset changes.
    const ARCH_CHECK_LEN: usize = 3;
    const LOAD_NR: sock_filter = sock_filter {
        code: 0x20, // BPF_LD | BPF_W | BPF_ABS
        jt: 0,
        jf: 0,
        k: 0, // offsetof(struct seccomp_data, nr)
    };
    let check = [
        LOAD_NR,
        sock_filter {
            code: 0x35, // BPF_JMP | BPF_JGE | BPF_K
            jt: 0,
            jf: 1,
            k: X32_SYSCALL_BIT,
        },
        sock_filter {
            code: 0x06, // BPF_RET | BPF_K
            jt: 0,
            jf: 0,
            k: libc::SECCOMP_RET_ERRNO | libc::EPERM as u32,
        },
    ];
    let at = ARCH_CHECK_LEN.min(program.len());
    program.splice(at..at, check);
    program
}

#[cfg(not(target_arch = "x86_64"))]
fn refuse_x32(program: BpfProgram) -> BpfProgram {
    program
}

fn filter_error(error: seccompiler::BackendError) -> SandboxError {
    SandboxError::Unavailable {
        mechanism: "seccomp filtering".to_string(),
        reason: format!("the filter could not be compiled for this architecture: {error}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_stages_compile_and_encode_eight_bytes_per_instruction() {
        let filters = build().unwrap();
        assert!(filters.before_exec.len() > DENIED_BEFORE_EXEC.len());
        let hex = to_hex(&filters.after_start);
        assert_eq!(hex.len(), filters.after_start.len() * 16);
    }
}
