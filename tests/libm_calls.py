"""No result of the library through the C library's exp, log, pow or erfc (docs/maths.md,
"Deterministic log and exp").

glibc picks an FMA or a plain variant of exp, log, pow, log2 and exp2 by the CPU at run
time (and erfc calls its exp), and C libraries differ, so a number computed with them
can differ in its last bits from one machine to another. lib/core/detmath.h and
lib/core/erfc.h have perfmodel's own; this test reads the built objects of lib/ (nm, as
layering.py does) and fails on any that calls one of the C library's, but for the one
file allowed: report/svg.c, whose plots' axes place pixels and print decades (no number
a model, a prediction or a decision holds).

usage: libm_calls.py BUILD_ROOT
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from layering import objects  # noqa: E402  (the same objects, found the same way)

FORBIDDEN = {name + suffix for name in ("exp", "exp2", "exp10", "expm1", "log", "log2", "log10",
                                        "log1p", "pow", "cbrt", "erf", "erfc")
             for suffix in ("", "f", "l")}
ALLOWED = {"report/svg.c"}


def calls(path):
    out = subprocess.run(["nm", "--undefined-only", path], capture_output=True, text=True,
                         check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.split()}


def main():
    build = sys.argv[1]
    objs = {name: path for name, path in objects(build).items() if not name.startswith("cli/")}
    if not objs:
        print("libm_calls: no objects of lib/ under " + build)
        return 1
    bad = []
    for name, path in sorted(objs.items()):
        found = sorted(calls(path) & FORBIDDEN)
        if found and name not in ALLOWED:
            bad.append(f"{name} calls the C library's {', '.join(found)}: use core/detmath.h")
    for line in bad:
        print(line)
    print(f"libm_calls: {len(objs)} objects of lib/, {len(bad)} calling the C library's "
          "exp, log, pow, cbrt or erfc")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
