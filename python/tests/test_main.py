"""python -m perfmodel runs the command (PERFMODEL_CLI, else PATH), and says
what to do when there is none."""
import os
import subprocess
import sys


def run(args, env):
    return subprocess.run([sys.executable, "-m", "perfmodel"] + args, env=env,
                          capture_output=True, text=True, timeout=120)


def test_runs_the_command(cli, gemm):
    env = dict(os.environ, PERFMODEL_CLI=cli)
    r = run(["eval", "--help"], env)
    want = subprocess.run([cli, "eval", "--help"], capture_output=True, text=True)
    assert (r.returncode, r.stdout, r.stderr) == (want.returncode, want.stdout, want.stderr)
    r = run(["fit", "nothere.csv"], env)
    want = subprocess.run([cli, "fit", "nothere.csv"], capture_output=True, text=True)
    assert r.returncode == want.returncode != 0 and r.stderr == want.stderr


def test_found_on_path(cli, tmp_path):
    os.symlink(cli, tmp_path / "perfmodel")
    env = {k: v for k, v in os.environ.items() if k != "PERFMODEL_CLI"}
    env["PATH"] = str(tmp_path)
    r = run(["--version"], env)
    assert r.returncode == 0 and r.stdout.startswith("perfmodel ")


def test_no_command(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PERFMODEL_CLI"}
    env["PATH"] = str(tmp_path)
    r = run(["--version"], env)
    assert r.returncode == 127 and "PERFMODEL_CLI" in r.stderr and r.stdout == ""


def test_not_runnable(tmp_path):
    env = dict(os.environ, PERFMODEL_CLI=str(tmp_path / "nothere"))
    r = run(["--version"], env)
    assert r.returncode == 126 and "cannot run" in r.stderr
