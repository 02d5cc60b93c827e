"""Ctrl-C during the library's long calls (docs/python.md, "Threads and
Ctrl-C"): KeyboardInterrupt within a moment, whether the call is fitting
(it has a stop flag) or blocked where nothing can stop it (reading a pipe
that no one writes, as a huge profile keeps a reader busy); the call left
behind ends by itself, and the process goes on as before. Each in a child
process: a failure may hang."""
import os
import select
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import perfmodel

PROMPT_S = 2.0      # how soon KeyboardInterrupt must follow the SIGINT
# a fit that would run for hours: its options, and with eq. 4.4's form
LONG_OPTIONS = "maxiter=100000000, tol=0, atol=0, intervals=False"
LONG = 'form="additive", ' + LONG_OPTIONS


def line(proc, timeout=60):
    """The child's next line (its stdout unbuffered: bytes); fails the test
    rather than hang when none comes within timeout."""
    out = b""
    while not out.endswith(b"\n"):
        ready, _, _ = select.select([proc.stdout], [], [], timeout)
        assert ready, f"no line from the child in {timeout} s (so far {out!r})"
        byte = proc.stdout.read(1)
        if not byte:
            break
        out += byte
    return out


def interrupt_child(script, pipe=None):
    """Run script in a child; once it prints "ready", send SIGINT. Returns
    (its lines, seconds from the SIGINT to its "KeyboardInterrupt" line).
    pipe: a FIFO held open for writing, unwritten, until that line."""
    fd = os.open(pipe, os.O_RDWR) if pipe else None
    # unbuffered: readline() takes no more than its line, the rest is
    # communicate()'s
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(script)], bufsize=0,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert line(proc) == b"ready\n"
        time.sleep(0.5)     # into the call
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        first = line(proc)
        took = time.monotonic() - sent
        if fd is not None:
            os.close(fd)    # the call left behind reads the end of its input
            fd = None
        rest, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
        if fd is not None:
            os.close(fd)
    assert proc.returncode == 0, err.decode()
    return (first + rest).decode().splitlines(), took


AFTER = """
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    time.sleep(0.5)     # the call left behind ends meanwhile, and frees its job
    m = perfmodel.fit({data!r}, {spec!r}, form="additive", seed=3, threads=1)
    print("after", [v.hex() for v in m.params.values()])
"""


@pytest.mark.parametrize("call", ["inspect", "fit"])
def test_ctrl_c_while_reading_a_pipe(gemm, tmp_path, call):
    data, spec = gemm
    pipe = str(tmp_path / "pipe.csv")
    os.mkfifo(pipe)
    how = "perfmodel.inspect(pipe)" if call == "inspect" else \
        f"perfmodel.fit(pipe, {spec!r}, threads=1)"
    lines, took = interrupt_child(f"""
        import signal, time, perfmodel
        pipe = {pipe!r}
        print("ready", flush=True)
        try:
            {how}
            print("returned")
        except KeyboardInterrupt:
            print("KeyboardInterrupt", flush=True)
    """ + textwrap.dedent(AFTER).format(data=data, spec=spec).replace("\n", "\n        "),
        pipe=pipe)
    alone = perfmodel.fit(data, spec, form="additive", seed=3, threads=1)
    assert lines == ["KeyboardInterrupt",
                     "after " + str([v.hex() for v in alone.params.values()])]
    assert took < PROMPT_S


@pytest.mark.parametrize("call", ["fit", "select", "discover", "fit_groups", "plan"])
def test_ctrl_c_during_a_long_call_is_prompt(gemm, call):
    """A fit that would run for hours, alone, in a selection or a search,
    in fit_groups' jobs (the library's batch, on threads of its own) and in
    plan's fit: each stops at the SIGINT."""
    data, spec = gemm
    how = {
        "fit": f"perfmodel.fit({data!r}, {spec!r}, threads=2, {LONG})",
        "select": f"perfmodel.select({data!r}, {spec!r}, threads=2, forms='additive', "
                  f"{LONG_OPTIONS})",
        "discover": f"perfmodel.discover({data!r}, {spec!r}, threads=2, engine='de', "
                    f"{LONG_OPTIONS})",
        "fit_groups": f'perfmodel.fit_groups(df, "k", {spec!r}, threads=2, {LONG})',
        "plan": f'perfmodel.plan({data!r}, df[["n", "threads"]].head(3) * 4, '
                f'df[["n", "threads"]].tail(1) * 8, {spec!r}, threads=2, {LONG})',
    }[call]
    lines, took = interrupt_child(f"""
        import signal, perfmodel, pandas as pd
        df = pd.read_csv({data!r})
        df["k"] = [i % 2 for i in range(len(df))]
        print("ready", flush=True)
        try:
            {how}
            print("returned")
        except KeyboardInterrupt:
            print("KeyboardInterrupt", flush=True)
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        print("ok")
    """)
    assert lines == ["KeyboardInterrupt", "ok"]
    assert took < PROMPT_S


def test_a_handler_that_does_not_raise_lets_inspect_end(tmp_path):
    """SIGINT under a handler of the user's that returns: the handler runs
    while inspect waits, and inspect returns what it read."""
    pipe = str(tmp_path / "pipe.csv")
    os.mkfifo(pipe)
    fd = os.open(pipe, os.O_RDWR)   # a writer from the start: inspect waits for data
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import signal, perfmodel
        signal.signal(signal.SIGINT, lambda *a: print("handler", flush=True))
        print("ready", flush=True)
        print(perfmodel.inspect({pipe!r}, target="t")["points"]["count"])
    """)], bufsize=0, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert line(proc) == b"ready\n"
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        assert line(proc) == b"handler\n"
        os.write(fd, b"n,t\n1,1.0\n2,2.0\n")
        os.close(fd)
        fd = None
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
        if fd is not None:
            os.close(fd)
    assert proc.returncode == 0, err.decode()
    assert out == b"2\n"
