"""python -m perfmodel ARGS: the perfmodel command with ARGS (docs/cli.md).
The package holds the library, not the command: this runs the command
named by PERFMODEL_CLI, or the first perfmodel on PATH, in place of the
interpreter (its output and exit status are the command's)."""
import os
import shutil
import sys


def main():
    cli = os.environ.get("PERFMODEL_CLI") or shutil.which("perfmodel")
    if not cli:
        sys.stderr.write("perfmodel: python -m perfmodel runs the perfmodel command, which the "
                         "package does not install: build it (README, 'meson setup build') and "
                         "put it on PATH, or name it in PERFMODEL_CLI\n")
        return 127
    try:
        os.execv(cli, [cli] + sys.argv[1:])
    except OSError as e:
        sys.stderr.write(f"perfmodel: python -m perfmodel: cannot run {cli}: {e.strerror}\n")
        return 126


if __name__ == "__main__":
    sys.exit(main())
