//! Each limit of the sandbox, proven against hostile Python.
//!
//! Probes are functions that try something forbidden and return "blocked" when Python
//! reports a failure; the grading is the sandbox's own, so a probe that succeeds fails
//! its test. Tests that burn CPU or memory take turns (`heavy()`), so that two shared
//! cores still give each one the time its assertions assume.

use std::net::{TcpListener, UdpSocket};
use std::path::Path;
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use pathwise_sandbox::{LimitHit, Sandbox, SandboxConfig, SandboxError, Submission, TestCase, TestReport};
use serde_json::{json, Value};

fn sandbox() -> &'static Sandbox {
    static SANDBOX: OnceLock<Sandbox> = OnceLock::new();
    SANDBOX.get_or_init(|| Sandbox::new(SandboxConfig::default()).expect("sandbox available"))
}

fn heavy() -> MutexGuard<'static, ()> {
    static HEAVY: Mutex<()> = Mutex::new(());
    HEAVY.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn submission(code: &str, function: &str) -> Submission {
    Submission { code: code.to_string(), function_name: function.to_string() }
}

fn case(input: Value, expected: Value) -> TestCase {
    TestCase { input, expected }
}

fn run_with(sandbox: &Sandbox, code: &str, function: &str, tests: &[TestCase]) -> TestReport {
    sandbox.run_tests(&submission(code, function), tests).expect("the run completes with a report")
}

fn run(code: &str, function: &str, tests: &[TestCase]) -> TestReport {
    run_with(sandbox(), code, function, tests)
}

/// Runs `probe(*args)` once and asserts it returned "blocked".
fn assert_blocked(code: &str, args: Value) -> TestReport {
    let report = run(code, "probe", &[case(args, json!("blocked"))]);
    assert_eq!(report.cases[0].actual, Some(json!("blocked")), "the probe was not blocked: {report:#?}");
    assert_eq!(report.passed, 1);
    report
}

fn process_exists(pid: i64) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// The number after `marker` in the report's output, e.g. "pid=1234".
fn number_after(report: &TestReport, marker: &str) -> i64 {
    let start =
        report.stderr.find(marker).unwrap_or_else(|| panic!("no {marker} in output: {report:#?}")) + marker.len();
    report.stderr[start..]
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|digits| digits.parse().ok())
        .unwrap_or_else(|| panic!("no number after {marker}: {report:#?}"))
}

// ---------------------------------------------------------------------------------------
// Grading

const COUNT_CHARS: &str = "def count_chars(s):\n    return len(s)\n";

fn count_chars_tests() -> Vec<TestCase> {
    vec![case(json!(["hello"]), json!(5)), case(json!(["hello world"]), json!(11)), case(json!([""]), json!(0))]
}

#[test]
fn correct_code_gets_full_credit() {
    let report = run(COUNT_CHARS, "count_chars", &count_chars_tests());
    assert_eq!((report.passed, report.total), (3, 3), "{report:#?}");
    assert_eq!(report.credit, 1.0);
    assert_eq!(report.limit, None);
    assert_eq!(report.error, None);
    assert_eq!(report.cases[1].actual, Some(json!(11)));
}

#[test]
fn partially_correct_code_gets_partial_credit() {
    // Forgets that spaces count.
    let code = "def count_chars(s):\n    return len(s.replace(' ', ''))\n";
    let report = run(code, "count_chars", &count_chars_tests());
    assert_eq!((report.passed, report.total), (2, 3), "{report:#?}");
    assert!((report.credit - 2.0 / 3.0).abs() < 1e-12);
    assert!(!report.cases[1].passed);
    assert_eq!(report.cases[1].actual, Some(json!(10)));
    assert_eq!(report.cases[1].error, None);
}

#[test]
fn an_exception_fails_only_its_own_test() {
    let code = "def count_chars(s):\n    if not s:\n        return 1 // 0\n    return len(s)\n";
    let report = run(code, "count_chars", &count_chars_tests());
    assert_eq!(report.passed, 2, "{report:#?}");
    let error = report.cases[2].error.as_deref().unwrap();
    assert!(error.contains("ZeroDivisionError"), "{error}");
    assert!(error.contains("line 3"), "{error}");
    assert!(report.stderr.is_empty(), "{report:#?}");
}

#[test]
fn numbers_compare_by_value_and_tuples_as_lists() {
    let code = "def stats(xs):\n    return (sum(xs) / len(xs), max(xs))\n";
    let report = run(
        code,
        "stats",
        &[
            case(json!([[1, 2, 3]]), json!([2, 3])),
            case(json!([[0.1, 0.2]]), json!([0.15000000000000002, 0.2])),
            case(json!([[1, 1]]), json!([true, 1])),
        ],
    );
    assert_eq!(report.cases.iter().map(|c| c.passed).collect::<Vec<_>>(), [true, true, false], "{report:#?}");
}

#[test]
fn a_syntax_error_is_a_report_with_no_credit() {
    let report = run("def count_chars(s)\n    return len(s)\n", "count_chars", &count_chars_tests());
    assert_eq!(report.passed, 0);
    let error = report.error.as_deref().unwrap();
    assert!(error.contains("SyntaxError") && error.contains("line 1"), "{error}");
    assert!(report.cases.iter().all(|c| c.error.as_deref() == Some(error)));
}

#[test]
fn a_missing_function_fails_every_test() {
    let report = run("def other(s):\n    return 0\n", "count_chars", &count_chars_tests());
    assert_eq!(report.passed, 0);
    assert!(report.error.as_deref().unwrap().contains("count_chars"), "{report:#?}");
}

#[test]
fn values_that_are_not_json_fail_their_test() {
    let code = "def f(kind):\n    return {'set': {1}, 'nan': float('nan'), 'ok': [1]}[kind]\n";
    let report = run(
        code,
        "f",
        &[case(json!(["set"]), json!([1])), case(json!(["nan"]), json!(0)), case(json!(["ok"]), json!([1]))],
    );
    assert_eq!(report.passed, 1, "{report:#?}");
    assert!(report.cases[0].error.as_deref().unwrap().contains("not a JSON value"));
}

#[test]
fn printed_output_is_reported_and_does_not_disturb_results() {
    let code = "def f(x):\n    print('thinking about', x)\n    return x * 2\n";
    let report = run(code, "f", &[case(json!([21]), json!(42))]);
    assert_eq!(report.passed, 1, "{report:#?}");
    assert!(report.stderr.contains("thinking about 21"), "{report:#?}");
}

#[test]
fn forged_result_lines_earn_no_credit() {
    // Writes result-looking lines everywhere it can: print, descriptor 1, and every other
    // open descriptor (one of which is the real result stream). It cannot know the
    // expected values, which never enter the sandbox.
    let code = r#"
import os, json
FAKE = "".join(json.dumps(line) + "\n" for line in [
    {"ready": True},
    {"case": 0, "value": json.dumps("PASS")},
    {"case": 1, "value": json.dumps(True)},
    {"case": 2, "value": "null"},
    {"passed": 3, "total": 3, "credit": 1.0},
    {"done": True},
])
print(FAKE)
for fd in range(1, 64):
    try:
        os.write(fd, FAKE.encode())
    except OSError:
        pass

def count_chars(s):
    return None
"#;
    let report = run(code, "count_chars", &count_chars_tests());
    assert_eq!(report.passed, 0, "{report:#?}");
    assert_eq!(report.credit, 0.0);
}

#[test]
fn bad_requests_are_errors_that_say_what_is_allowed() {
    let sandbox = sandbox();
    let large = "#".repeat(sandbox.config().max_code_bytes + 1);
    let error = sandbox.run_tests(&submission(&large, "f"), &count_chars_tests()).unwrap_err();
    assert!(matches!(error, SandboxError::CodeTooLarge { size, limit } if size == limit + 1));

    let error =
        sandbox.run_tests(&submission(COUNT_CHARS, "count_chars"), &[case(json!("hello"), json!(5))]).unwrap_err();
    assert!(error.to_string().contains("must be an array"), "{error}");

    let error = sandbox.run_tests(&submission(COUNT_CHARS, "os.system"), &count_chars_tests()).unwrap_err();
    assert!(matches!(error, SandboxError::InvalidFunctionName { .. }), "{error}");

    let error = sandbox.run_tests(&submission(COUNT_CHARS, "count_chars"), &[]).unwrap_err();
    assert!(matches!(error, SandboxError::NoTests));
}

// ---------------------------------------------------------------------------------------
// Time

#[test]
fn an_endless_loop_is_stopped_by_the_cpu_limit() {
    let _turn = heavy();
    let cpu_time = Duration::from_secs(2);
    let config = SandboxConfig { cpu_time, wall_clock: Duration::from_secs(10), ..SandboxConfig::default() };
    let sandbox = Sandbox::new(config).unwrap();
    let code = "def count_chars(s):\n    while True:\n        pass\n";
    let started = Instant::now();
    let report = run_with(&sandbox, code, "count_chars", &count_chars_tests());
    let elapsed = started.elapsed();
    println!("endless loop with a 2 s CPU limit returned after {elapsed:?}");
    assert_eq!(report.limit, Some(LimitHit::CpuTime), "{report:#?}");
    assert!(report.error.as_deref().unwrap().contains("CPU time"), "{report:#?}");
    assert_eq!(report.passed, 0);
    assert!(elapsed < 2 * cpu_time + Duration::from_secs(1), "took {elapsed:?}");
}

#[test]
fn ignoring_sigxcpu_does_not_escape_the_cpu_limit() {
    let _turn = heavy();
    let config = SandboxConfig {
        cpu_time: Duration::from_secs(1),
        wall_clock: Duration::from_secs(10),
        ..SandboxConfig::default()
    };
    let sandbox = Sandbox::new(config).unwrap();
    let code = "import signal\nsignal.signal(signal.SIGXCPU, signal.SIG_IGN)\n\
                def f():\n    while True:\n        pass\n";
    let started = Instant::now();
    let report = run_with(&sandbox, code, "f", &[case(json!([]), json!(0))]);
    println!("loop ignoring SIGXCPU returned after {:?}", started.elapsed());
    assert_eq!(report.limit, Some(LimitHit::CpuTime), "{report:#?}");
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[test]
fn earlier_tests_keep_their_results_when_a_later_one_loops() {
    let _turn = heavy();
    let config = SandboxConfig {
        cpu_time: Duration::from_secs(1),
        wall_clock: Duration::from_secs(10),
        ..SandboxConfig::default()
    };
    let sandbox = Sandbox::new(config).unwrap();
    let code = "def count_chars(s):\n    while not s:\n        pass\n    return len(s)\n";
    let report = run_with(&sandbox, code, "count_chars", &count_chars_tests());
    assert_eq!(report.limit, Some(LimitHit::CpuTime), "{report:#?}");
    assert_eq!(report.passed, 2, "{report:#?}");
    assert!(report.cases[2].error.as_deref().unwrap().contains("CPU time"));
}

#[test]
fn sleeping_is_stopped_by_the_wall_clock() {
    let config = SandboxConfig { wall_clock: Duration::from_secs(2), ..SandboxConfig::default() };
    let sandbox = Sandbox::new(config).unwrap();
    let code = "import time\ndef f():\n    time.sleep(100)\n";
    let started = Instant::now();
    let report = run_with(&sandbox, code, "f", &[case(json!([]), json!(0))]);
    let elapsed = started.elapsed();
    println!("sleep(100) with a 2 s wall clock returned after {elapsed:?}");
    assert_eq!(report.limit, Some(LimitHit::WallClock), "{report:#?}");
    assert!(elapsed >= Duration::from_secs(2), "took {elapsed:?}");
    assert!(elapsed < Duration::from_secs(2 * 2 + 1), "took {elapsed:?}");
}

// ---------------------------------------------------------------------------------------
// Memory

#[test]
fn one_huge_allocation_is_refused() {
    let _turn = heavy();
    let code = "x = bytearray(10**10)\ndef f():\n    return 1\n";
    let report = run(code, "f", &[case(json!([]), json!(1))]);
    assert_eq!(report.limit, Some(LimitHit::Memory), "{report:#?}");
    assert_eq!(report.passed, 0);
    assert!(report.error.as_deref().unwrap().contains("MemoryError"), "{report:#?}");
}

#[test]
fn gradual_growth_is_stopped_by_the_memory_limit() {
    let _turn = heavy();
    let code = "def f():\n    l = []\n    while True:\n        l.append(' ' * 10**6)\n";
    let report = run(code, "f", &[case(json!([]), json!(0)), case(json!([]), json!(0))]);
    assert_eq!(report.limit, Some(LimitHit::Memory), "{report:#?}");
    assert_eq!(report.passed, 0);
    let error = report.cases[0].error.as_deref().unwrap();
    assert!(error.contains("MemoryError") && error.contains("memory limit of 256 MiB"), "{error}");
}

#[test]
fn memory_outside_the_address_space_cannot_be_claimed() {
    // Shared memory and memfds are not counted by the address-space limit.
    let code = r#"
import ctypes, os
def probe():
    try:
        os.memfd_create("hoard")
        return "memfd created"
    except OSError:
        pass
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.shmget(0, 1 << 20, 0o1000 | 0o600) != -1:
        return "shared memory created"
    return "blocked"
"#;
    assert_blocked(code, json!([]));
}

// ---------------------------------------------------------------------------------------
// Output

#[test]
fn an_output_flood_is_capped() {
    let _turn = heavy();
    let code = "def f():\n    print('x' * 10**8)\n    return 1\n";
    let report = run(code, "f", &[case(json!([]), json!(1))]);
    assert_eq!(report.limit, Some(LimitHit::Output), "{report:#?}");
    assert_eq!(report.passed, 0);
    let cap = sandbox().config().max_output_bytes;
    assert!(report.stderr.len() <= cap, "{} bytes kept", report.stderr.len());
    assert!(report.stderr.starts_with("xxxx"));
}

#[test]
fn an_endless_print_loop_is_capped() {
    let _turn = heavy();
    let code = "def f():\n    while True:\n        print('spam')\n";
    let report = run(code, "f", &[case(json!([]), json!(1))]);
    assert_eq!(report.limit, Some(LimitHit::Output), "{report:#?}");
}

// ---------------------------------------------------------------------------------------
// Network

#[test]
fn tcp_to_a_listening_port_fails_and_the_listener_sees_nothing() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let code = r#"
import socket
def probe(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2)
    except OSError:
        return "blocked"
    return "connected"
"#;
    assert_blocked(code, json!([port]));
    match listener.accept() {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        other => panic!("the listener saw a connection: {other:?}"),
    }
}

#[test]
fn udp_to_a_bound_port_fails_and_nothing_arrives() {
    let receiver = UdpSocket::bind("127.0.0.1:0").unwrap();
    receiver.set_nonblocking(true).unwrap();
    let port = receiver.local_addr().unwrap().port();
    let code = r#"
import socket
def probe(port):
    try:
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"hello", ("127.0.0.1", port))
    except OSError:
        return "blocked"
    return "sent"
"#;
    assert_blocked(code, json!([port]));
    let mut buffer = [0u8; 64];
    match receiver.recv_from(&mut buffer) {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        other => panic!("a datagram arrived: {other:?}"),
    }
}

#[test]
fn dns_lookups_fail() {
    let code = r#"
import socket
def probe(name):
    try:
        socket.getaddrinfo(name, 80)
    except OSError:
        return "blocked"
    return "resolved"
"#;
    assert_blocked(code, json!(["example.com"]));
    assert_blocked(code, json!(["localhost"]));
}

#[test]
fn unix_sockets_fail() {
    let code = r#"
import socket
def probe():
    for family in (socket.AF_UNIX, socket.AF_NETLINK, socket.AF_INET6):
        try:
            socket.socket(family, socket.SOCK_DGRAM)
            return "created %s" % family
        except OSError:
            pass
    try:
        socket.socketpair()
        return "created a pair"
    except OSError:
        return "blocked"
"#;
    assert_blocked(code, json!([]));
}

// ---------------------------------------------------------------------------------------
// Filesystem

const READ_PROBE: &str = r#"
def probe(path):
    try:
        with open(path) as f:
            f.read()
    except OSError:
        return "blocked"
    return "read"
"#;

#[test]
fn system_files_cannot_be_read() {
    assert_blocked(READ_PROBE, json!(["/etc/passwd"]));
    assert_blocked(READ_PROBE, json!(["/etc/hostname"]));
    assert_blocked(READ_PROBE, json!(["/proc/1/environ"]));
}

#[test]
fn files_outside_the_scratch_directory_cannot_be_read() {
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.txt");
    std::fs::write(&secret, "the answers").unwrap();
    assert_blocked(READ_PROBE, json!([secret.to_str().unwrap()]));
}

#[test]
fn home_directories_cannot_be_listed() {
    let code = r#"
import os
def probe(path):
    try:
        os.listdir(path)
    except OSError:
        return "blocked"
    return "listed"
"#;
    assert_blocked(code, json!(["/root"]));
    assert_blocked(code, json!(["/"]));
    assert_blocked(code, json!(["/tmp"]));
}

#[test]
fn nothing_can_be_written_outside_the_scratch_directory() {
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("escaped.txt");
    let code = r#"
def probe(path):
    try:
        with open(path, "w") as f:
            f.write("escaped")
    except OSError:
        return "blocked"
    return "written"
"#;
    assert_blocked(code, json!([target.to_str().unwrap()]));
    assert!(!target.exists());
    let in_tmp = format!("/tmp/pathwise-sandbox-escape-{}", std::process::id());
    assert_blocked(code, json!([in_tmp]));
    assert!(!Path::new(&in_tmp).exists());
    assert_blocked(code, json!(["../escaped.txt"]));
}

#[test]
fn the_scratch_directory_is_writable_and_removed_afterwards() {
    let code = r#"
import os
def probe():
    with open("notes.txt", "w") as f:
        f.write("hello")
    os.mkdir("sub")
    os.rename("notes.txt", "sub/notes.txt")
    with open("sub/notes.txt") as f:
        content = f.read()
    return [os.getcwd(), content]
"#;
    let report = run(code, "probe", &[case(json!([]), json!(null))]);
    let actual = report.cases[0].actual.clone().expect("a value");
    assert_eq!(actual[1], json!("hello"), "{report:#?}");
    let scratch = actual[0].as_str().unwrap();
    assert!(scratch.contains("pathwise-sandbox-"), "{scratch}");
    assert!(!Path::new(scratch).exists(), "{scratch} was left behind");
}

#[test]
fn the_scratch_directory_is_bounded() {
    let code = r#"
def probe():
    try:
        with open("big", "wb") as f:
            for _ in range(64):
                f.write(b"x" * 2**20)
    except OSError:
        return "blocked"
    return "written"
"#;
    assert_blocked(code, json!([]));
}

// ---------------------------------------------------------------------------------------
// Processes

#[test]
fn os_system_fails() {
    let code = r#"
import os
def probe():
    status = os.system("echo hi")
    return "blocked" if status != 0 else "ran"
"#;
    let report = assert_blocked(code, json!([]));
    assert!(!report.stderr.contains("hi"), "{report:#?}");
}

#[test]
fn subprocess_fails() {
    let code = r#"
import subprocess
def probe():
    try:
        subprocess.run(["/bin/true"])
    except OSError:
        return "blocked"
    return "ran"
"#;
    assert_blocked(code, json!([]));
}

#[test]
fn fork_fails() {
    let code = r#"
import os
def probe():
    try:
        pid = os.fork()
    except OSError:
        return "blocked"
    if pid == 0:
        os._exit(0)
    return "forked"
"#;
    assert_blocked(code, json!([]));
}

#[test]
fn exec_fails_even_of_the_interpreter_itself() {
    let code = r#"
import os, sys
def probe(program):
    if program == "python":
        program = sys.executable
    try:
        os.execv(program, [program, "-c", "print('escaped')"])
    except OSError:
        return "blocked"
"#;
    assert_blocked(code, json!(["/bin/sh"]));
    let report = assert_blocked(code, json!(["python"]));
    assert!(!report.stderr.contains("escaped"));
}

#[test]
fn multiprocessing_fails() {
    let code = r#"
import multiprocessing
def work():
    return 1
def probe():
    try:
        process = multiprocessing.Process(target=work)
        process.start()
        process.join()
    except Exception:
        return "blocked"
    return "started"
"#;
    assert_blocked(code, json!([]));
}

#[test]
fn threads_cannot_be_started() {
    let code = r#"
import threading
def probe():
    try:
        threading.Thread(target=lambda: None).start()
    except Exception:
        return "blocked"
    return "started"
"#;
    assert_blocked(code, json!([]));
}

#[test]
fn the_server_cannot_be_signalled() {
    let code = r#"
import os, signal
def probe():
    for sig in (0, signal.SIGCONT):
        try:
            os.kill(os.getppid(), sig)
            return "signalled with %d" % sig
        except OSError:
            pass
    return "blocked"
"#;
    assert_blocked(code, json!([]));
}

#[test]
fn nothing_is_left_running_after_a_normal_run() {
    let code = "import os\ndef probe():\n    return os.getpid()\n";
    let report = run(code, "probe", &[case(json!([]), json!(0))]);
    let pid = report.cases[0].actual.as_ref().and_then(Value::as_i64).expect("a pid");
    assert!(!process_exists(pid), "process {pid} is still there");
}

#[test]
fn nothing_is_left_running_after_the_wall_clock() {
    let config = SandboxConfig { wall_clock: Duration::from_secs(1), ..SandboxConfig::default() };
    let sandbox = Sandbox::new(config).unwrap();
    let code = r#"
import os, sys, time
def probe():
    try:
        os.fork()
    except OSError:
        pass
    print("pid=%d" % os.getpid(), file=sys.stderr, flush=True)
    time.sleep(100)
"#;
    let report = run_with(&sandbox, code, "probe", &[case(json!([]), json!(0))]);
    assert_eq!(report.limit, Some(LimitHit::WallClock), "{report:#?}");
    let pid = number_after(&report, "pid=");
    assert!(!process_exists(pid), "process {pid} is still there");
}

// ---------------------------------------------------------------------------------------
// Environment

#[test]
fn the_environment_holds_only_what_python_needs() {
    let code = "import os\ndef probe():\n    return dict(os.environ)\n";
    let report = run(code, "probe", &[case(json!([]), json!(null))]);
    let environment = report.cases[0].actual.clone().expect("a value");
    let names: Vec<&String> = environment.as_object().unwrap().keys().collect();
    assert_eq!(
        names,
        ["LC_ALL", "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED", "PYTHONIOENCODING", "PYTHONUTF8"],
        "{environment}"
    );
}

#[test]
fn stdin_is_closed_and_no_inherited_descriptor_is_open() {
    // A descriptor the server opened without close-on-exec must not reach the code.
    let leaked = tempfile::tempfile().unwrap();
    let leaked_fd = {
        use std::os::fd::AsRawFd;
        // SAFETY: a copy on the lowest free number from 40 up, without O_CLOEXEC. Not dup2
        // onto a fixed number: the tests run on threads of one process, and dup2 would close
        // whatever another test's run holds there (its pipe or pidfd), which then aborts on
        // closing it again.
        let fd = unsafe { libc::fcntl(leaked.as_raw_fd(), libc::F_DUPFD, 40) };
        assert!(fd >= 40, "F_DUPFD failed");
        fd
    };
    let code = r#"
import os
def probe():
    try:
        input()
        stdin = "readable"
    except EOFError:
        stdin = "closed"
    try:
        os.read(0, 1)
        stdin += ", fd 0 open"
    except OSError:
        pass
    open_fds = []
    for fd in range(0, 1024):
        try:
            os.fstat(fd)
            open_fds.append(fd)
        except OSError:
            pass
    return [stdin, open_fds]
"#;
    let report = run(code, "probe", &[case(json!([]), json!(null))]);
    // SAFETY: closes the descriptor duplicated above.
    unsafe { libc::close(leaked_fd) };
    let actual = report.cases[0].actual.clone().expect("a value");
    assert_eq!(actual[0], json!("closed"), "{report:#?}");
    // 1 and 2: output; 3: the runner's result stream.
    assert_eq!(actual[1], json!([1, 2, 3]), "{report:#?}");
}

#[test]
fn the_code_has_no_capabilities_even_in_its_own_namespace() {
    // Root with CAP_DAC_OVERRIDE would read a file whose mode forbids it.
    let code = r#"
import os
def probe():
    with open("locked", "w") as f:
        f.write("x")
    os.chmod("locked", 0)
    try:
        open("locked").read()
    except OSError:
        return "blocked"
    return "read"
"#;
    assert_blocked(code, json!([]));
}

#[test]
fn limits_cannot_be_raised() {
    let code = r#"
import resource
def probe():
    try:
        resource.setrlimit(resource.RLIMIT_CPU, (1000, 1000))
    except (OSError, ValueError):
        return "blocked"
    return "raised"
"#;
    assert_blocked(code, json!([]));
}

#[test]
fn each_run_starts_fresh() {
    let code = r#"
import os
def probe():
    seen = os.listdir(".")
    with open("left-behind", "w") as f:
        f.write("x")
    return seen
"#;
    for _ in 0..2 {
        let report = run(code, "probe", &[case(json!([]), json!([]))]);
        assert_eq!(report.passed, 1, "{report:#?}");
    }
}

#[test]
fn code_that_exits_early_is_reported() {
    let code = "import os\ndef f():\n    os._exit(0)\n";
    let report = run(code, "f", &[case(json!([]), json!(0))]);
    assert_eq!(report.passed, 0);
    assert!(report.error.as_deref().unwrap().contains("exited"), "{report:#?}");

    let code = "import sys\ndef f():\n    sys.exit(0)\n";
    let report = run(code, "f", &[case(json!([]), json!(0)), case(json!([]), json!(0))]);
    assert!(report.cases[0].error.as_deref().unwrap().contains("SystemExit"));
    assert_eq!(report.error, None, "{report:#?}");
}

#[test]
fn runs_from_many_threads_at_once_stay_apart() {
    let reports: Vec<TestReport> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..6)
            .map(|i| {
                scope.spawn(move || {
                    let code = format!(
                        "import os\nopen('mine', 'w').write('{i}')\n\
                         def probe():\n    return [os.listdir('.'), open('mine').read()]\n"
                    );
                    run(&code, "probe", &[case(json!([]), json!([["mine"], i.to_string()]))])
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for report in reports {
        assert_eq!(report.passed, 1, "{report:#?}");
    }
}

#[test]
fn a_broken_interpreter_is_refused_at_start_up() {
    let config = SandboxConfig { python: Some("/bin/false".into()), ..SandboxConfig::default() };
    let error = Sandbox::new(config).unwrap_err();
    assert!(matches!(error, SandboxError::Interpreter { .. }), "{error}");
    assert!(error.is_unavailable());
    assert!(error.to_string().contains("/bin/false"), "{error}");
}

#[test]
fn the_latency_of_one_run_is_printed() {
    // A figure to watch, not a timed assertion: `cargo test -- --nocapture` shows it.
    let tests = count_chars_tests();
    let mut times: Vec<Duration> = (0..20)
        .map(|_| {
            let started = Instant::now();
            let report = run(COUNT_CHARS, "count_chars", &tests);
            assert_eq!(report.passed, 3);
            started.elapsed()
        })
        .collect();
    times.sort();
    println!(
        "run_tests with 3 trivial tests: median {:?} over 20 runs (min {:?}, max {:?})",
        times[10], times[0], times[19]
    );
}
