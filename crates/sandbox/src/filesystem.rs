//! The Landlock ruleset of one run: read the interpreter's prefix and the shared libraries,
//! execute only the interpreter and the libraries' loader, write only the scratch
//! directory; and, where the kernel can enforce them, no TCP, no signals to and no
//! abstract sockets of processes outside the sandbox.
//!
//! The ruleset is built in the parent (allocating, opening files) and only enforced in the
//! child, with one `landlock_restrict_self` call on the descriptor returned here. The one
//! rule the parent cannot add is the scratch directory's: it is a tmpfs the child mounts,
//! and Landlock ignores rules on a directory that a mount covers. The child adds it with
//! the rights [`scratch_access`] computes.

use std::os::fd::OwnedFd;
use std::path::Path;

use landlock::{
    Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreated, RulesetCreatedAttr, RulesetError, Scope, ABI,
};

use crate::interpreter::Interpreter;
use crate::SandboxError;

/// Every filesystem right of ABI 1 must be enforceable; rights added later (refer,
/// truncate, device ioctl) are handled too when the kernel knows them.
const REQUIRED_FS_ABI: ABI = ABI::V1;
const NEWEST_FS_ABI: ABI = ABI::V5;

/// Rights in the scratch directory, as the bits `landlock_add_rule` takes, limited to what
/// a ruleset handles on a kernel with this ABI (the kernel refuses anything more).
pub(crate) fn scratch_access(kernel_abi: u32) -> u64 {
    // No device nodes, sockets, FIFOs or symlinks.
    let wanted: BitFlags<AccessFs> = AccessFs::ReadFile
        | AccessFs::ReadDir
        | AccessFs::WriteFile
        | AccessFs::RemoveDir
        | AccessFs::RemoveFile
        | AccessFs::MakeDir
        | AccessFs::MakeReg
        | AccessFs::Refer
        | AccessFs::Truncate;
    let abi = ABI::from(kernel_abi.min(NEWEST_FS_ABI as u32) as i32);
    (wanted & AccessFs::from_all(abi)).bits()
}

pub(crate) fn ruleset_for_run(interpreter: &Interpreter) -> Result<OwnedFd, SandboxError> {
    let read_only = AccessFs::ReadFile | AccessFs::ReadDir;
    let read_and_execute = read_only | AccessFs::Execute;

    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(REQUIRED_FS_ABI))
        .and_then(|r| r.set_compatibility(CompatLevel::BestEffort).handle_access(AccessFs::from_all(NEWEST_FS_ABI)))
        // Handled with no rule: every TCP bind and connect is refused.
        .and_then(|r| r.handle_access(AccessNet::from_all(ABI::V4)))
        .and_then(|r| r.scope(Scope::from_all(ABI::V6)))
        .and_then(|r| r.create())
        .map_err(landlock_unavailable)?;

    for dir in &interpreter.prefix_dirs {
        ruleset = allow(ruleset, dir, read_only)?;
    }
    for dir in &interpreter.library_dirs {
        ruleset = allow(ruleset, dir, read_and_execute)?;
    }
    for file in &interpreter.read_files {
        ruleset = allow(ruleset, file, AccessFs::ReadFile.into())?;
    }
    ruleset = allow(ruleset, &interpreter.executable, AccessFs::ReadFile | AccessFs::Execute)?;

    let fd: Option<OwnedFd> = ruleset.into();
    fd.ok_or_else(|| SandboxError::Unavailable {
        mechanism: "Landlock".to_string(),
        reason: "the kernel did not create a ruleset".to_string(),
    })
}

fn allow(ruleset: RulesetCreated, path: &Path, access: BitFlags<AccessFs>) -> Result<RulesetCreated, SandboxError> {
    let fd = PathFd::new(path).map_err(|e| SandboxError::Io {
        context: "opening a path the sandbox grants access to",
        source: std::io::Error::other(e.to_string()),
    })?;
    ruleset.add_rule(PathBeneath::new(fd, access)).map_err(landlock_unavailable)
}

fn landlock_unavailable(error: RulesetError) -> SandboxError {
    SandboxError::Unavailable { mechanism: "Landlock".to_string(), reason: error.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_rights_shrink_to_what_older_kernels_handle() {
        let refer = AccessFs::Refer as u64;
        let truncate = AccessFs::Truncate as u64;
        assert_eq!(scratch_access(1) & (refer | truncate), 0);
        assert_eq!(scratch_access(2) & (refer | truncate), refer);
        assert_eq!(scratch_access(7) & (refer | truncate), refer | truncate);
        assert_eq!(scratch_access(7) & AccessFs::Execute as u64, 0);
    }
}
