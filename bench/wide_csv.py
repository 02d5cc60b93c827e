#!/usr/bin/env python3
"""A wide synthetic table for perfmodel discover's memory bound (issue 33):
ROWS rows, COLS numeric inputs x1..xCOLS drawn uniformly in [1, 100], of which
four matter, and a target

    t = 1 + 0.002 x1^2 + 30 / x2 + 0.01 x3 x4

with a 2 % multiplicative noise; seeded, so the same file every time.

usage: bench/wide_csv.py [COLS [ROWS [SEED]]] > wide.csv   (default 1000 200 1)
"""
import random
import sys

cols = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
rows = int(sys.argv[2]) if len(sys.argv) > 2 else 200
rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
out = sys.stdout
out.write(",".join(f"x{i + 1}" for i in range(cols)) + ",t\n")
for _ in range(rows):
    x = [rng.randint(1, 100) for _ in range(cols)]
    t = 1 + 0.002 * x[0] ** 2 + 30 / x[1] + 0.01 * x[2] * x[3]
    t *= 1 + 0.02 * (2 * rng.random() - 1)
    out.write(",".join(map(str, x)) + f",{t:.6g}\n")
