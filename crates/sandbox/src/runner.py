# Runs a learner's function on each test input, inside the sandbox.
#
# Input (stdin, one JSON document): code, function, inputs, seccomp, max_error_chars,
# max_value_bytes. Output (stdout, one JSON object per line): {"ready"}, then
# {"load_error"} or one {"case", "value" | "error"} per test, then {"done"}.
#
# Learner code runs in this process and can do anything this script can, so the script
# is not a security boundary: the kernel's limits are. It only keeps honest code's output
# apart from the results and reports each test as it finishes, so a test that loops forever
# does not cost the ones before it.
import ctypes
import io
import json
import os
import sys

PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
SOURCE_NAME = "<submission>"


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install_filter(program):
    """Second seccomp stage: from here on nothing can be executed."""
    if not program or len(program) % 8:
        raise ValueError("the filter program is empty or malformed")
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = SockFprog(len(program) // 8, ctypes.addressof(buffer))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p,
                           ctypes.c_ulong, ctypes.c_ulong]
    libc.prctl.restype = ctypes.c_int
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(fprog), 0, 0) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, "prctl(PR_SET_SECCOMP): " + os.strerror(errno))


def describe(error, limit):
    """'Type: message (line N)', the line being the deepest one in the learner's code."""
    try:
        if isinstance(error, SyntaxError) and error.filename == SOURCE_NAME:
            text = "%s: %s (line %s)" % (type(error).__name__, error.msg, error.lineno)
        else:
            message = str(error)
            text = type(error).__name__ + (": " + message if message else "")
            line = None
            trace = error.__traceback__
            while trace is not None:
                if trace.tb_frame.f_code.co_filename == SOURCE_NAME:
                    line = trace.tb_lineno
                trace = trace.tb_next
            if line is not None:
                text += " (line %d)" % line
    except BaseException:
        text = "an exception that could not be described"
    if len(text) > limit:
        text = text[: max(limit - 3, 0)] + "..."
    return text


def main():
    # `-c` puts the working directory first on the import path; nothing is imported
    # from the scratch directory unless the code asks for it by path.
    sys.path[:] = [entry for entry in sys.path if entry]
    payload = json.loads(sys.stdin.buffer.read())
    # Duplicated before stdin is closed, so the result stream does not take descriptor 0.
    results = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.close(0)
    sys.stdin = io.StringIO("")

    def emit(line):
        results.write(json.dumps(line) + "\n")
        results.flush()

    try:
        install_filter(bytes.fromhex(payload["seccomp"]))
    except BaseException as error:
        emit({"fatal": "the last seccomp filter could not be installed: %r" % (error,)})
        return 3

    # The learner's output, by print or by writing to descriptor 1, goes to stderr and
    # can never be mistaken for a result line.
    sys.stdout.flush()
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    emit({"ready": True})

    limit = payload["max_error_chars"]
    max_value_bytes = payload["max_value_bytes"]
    dumps = json.dumps
    namespace = {"__name__": "__submission__", "__builtins__": __builtins__}
    try:
        exec(compile(payload["code"], SOURCE_NAME, "exec"), namespace)
    except BaseException as error:
        emit({"load_error": describe(error, limit), "memory": isinstance(error, MemoryError)})
        emit({"done": True})
        return 0
    function = namespace.get(payload["function"])
    if not callable(function):
        emit({"load_error": "the code does not define a function named %s" % payload["function"]})
        emit({"done": True})
        return 0

    for index, arguments in enumerate(payload["inputs"]):
        try:
            value = function(*arguments)
            try:
                text = dumps(value, allow_nan=False, ensure_ascii=False)
            except (TypeError, ValueError) as error:
                raise TypeError("the function returned %s, which is not a JSON value (%s)"
                                % (type(value).__name__, error)) from None
            size = len(text.encode("utf-8"))
            if size > max_value_bytes:
                raise ValueError("the returned value is %d bytes; at most %d can be compared"
                                 % (size, max_value_bytes))
            emit({"case": index, "value": text})
        except BaseException as error:
            emit({"case": index, "error": describe(error, limit),
                  "memory": isinstance(error, MemoryError)})
    emit({"done": True})
    return 0


if __name__ == "__main__":
    status = main()
    try:
        sys.stderr.flush()
    except BaseException:
        pass
    # Skip interpreter shutdown: objects the learner left behind (a __del__ that loops,
    # an atexit hook) must not run after the results are in.
    os._exit(status)
