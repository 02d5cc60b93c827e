#!/usr/bin/env bash
# The worked example of docs/profiles.md, kept true: a smaller profile set
# from docs/examples/profile_set.py (4 x 4 points, 2 repetitions), read by
# inspect and fitted by batch --each-region with the doc's options; the
# exponents recovered for the main call paths must be the laws the generator
# wrote (its docstring) within the tolerances below, the pairs that are 0
# everywhere must fail with the doc's message; and on the doc's own set, the
# doc's table snippet must print the doc's table. Also: the generator writes the
# same bytes for the same seed, and tests/cube_gen.py (whose writer it uses)
# still writes tests/data/cube/ byte for byte. Exit 77 (skipped) when
# perfmodel was built without CUBE support.
# usage: profiles_example.sh PERFMODEL SOURCE_ROOT [SEED]
set -u
pm=$(realpath "$1")
root=$(realpath "$2")
seed=${3:-1}
here=$(dirname "$(realpath "$0")")
. "$here/tap.sh"

gen() { python3 "$root/docs/examples/profile_set.py" "$@" --procs 4,8,16,32 \
	--sizes 1024,2048,4096,8192 --reps 2; }
gen small --seed "$seed"
if "$pm" inspect small 2>&1 | grep -q "built without CUBE support"; then
	echo "1..0 # SKIP perfmodel was built without CUBE support"
	exit 77
fi

gen again --seed "$seed"
gen other --seed $((seed + 1))
if diff -r small again >/dev/null && ! cmp -s small/stencil.p8n2048.r2/profile.cubex \
	other/stencil.p8n2048.r2/profile.cubex; then
	ok "profile_set.py: the same seed writes the same bytes, another seed others"
else
	bad "profile_set.py: not reproducible by its seed"
fi
python3 "$root/tests/cube_gen.py" a.cubex
python3 "$root/tests/cube_gen.py" b.cubex --locations 3 --scale 2 --plain-data --plain-anchor \
	--big-endian
if cmp a.cubex "$root/tests/data/cube/profile.cubex" &&
	cmp b.cubex "$root/tests/data/cube/plain_be.cubex"; then
	ok "cube_gen.py writes tests/data/cube/ byte for byte"
else
	bad "cube_gen.py no longer writes tests/data/cube/"
fi

"$pm" inspect small >inspect.txt 2>inspect.err
has "inspect: the grid, the pairs, the metrics and the call tree" inspect.txt \
	'^small: cube \(a folder of run folders\), 32 runs, target time_s$' \
	'^points: 16 \(the full 4 x 4 grid\), 2 runs each' \
	'^regions x metrics: 27 ' \
	'^    bytes_sent +EXCLUSIVE UINT64$' \
	'^  call tree \(9 call paths\):$' \
	'^          MPI_Sendrecv$'

start=$(date +%s%N)
"$pm" batch --each-region small -o models.jsonl -- --form multiplicative --loss log \
	2>batch.err
rc=$?
echo "# batch --each-region: $((($(date +%s%N) - start) / 1000000)) ms"
if [ $rc -eq 1 ] && [ "$(wc -l <models.jsonl)" -eq 27 ] && [ ! -s batch.err ]; then
	ok "batch --each-region: 27 lines, exit 1 (some pairs fail), nothing on stderr"
else
	bad "batch --each-region" "exit $rc, $(wc -l <models.jsonl) lines" "$(cat batch.err)"
fi

# One line per check: PASS NAME or FAIL NAME WHY. A law's exponents within
# 0.1 of the generated ones (0.02 for bytes_sent, which has no noise); a
# constant call path within 5 % of its constant predicted within 5 % of it at
# every point of the grid. Over seeds 1 to 10 the largest deviations
# were 0.067 (MPI_Sendrecv's n) and 0.048 (stencil_kernel's p: -1.03 on
# average, as the slow last rank weighs more in the mean at small p).
python3 - models.jsonl >checks.txt <<'EOF'
import json, sys

models, errors = {}, {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    (errors if "error" in r else models)[r["id"]] = r.get("error") or r["model"]


def params(i):
    m = models[i]
    pw = {q["input"]: q["value"] for q in m["parameters"] if q["kind"] == "power"}
    val = {q["name"]: q["value"] for q in m["parameters"]}
    return pw, val


def law(i, p, n, tol, C=None):
    if i not in models:
        print(f"FAIL {i}: {errors.get(i)}")
        return
    pw, val = params(i)
    why = [f"{k} {pw[k]:+.3f}, wanted {w:+.2f}" for k, w in (("p", p), ("n", n))
           if abs(pw[k] - w) > tol]
    if C is not None and abs(val["C"] - C) > 0.3 * C:
        why.append(f"C {val['C']:.3g}, wanted {C:.3g}")
    print(f"{'FAIL' if why else 'PASS'} {i}: p^{p:+.2f} n^{n:+.2f}", "; ".join(why))


def predicts(i, f):
    """The model predicts f(p, n) within 5 % at every point of the grid."""
    pw, val = params(i)
    worst = max(abs(val["a"] * p ** pw["p"] * n ** pw["n"] + val["C"] - f(p, n)) / f(p, n)
                for p in (4, 8, 16, 32) for n in (1024, 2048, 4096, 8192))
    print(f"{'PASS' if worst <= 0.05 else 'FAIL'} {i}: predicts the law within 5 %",
          f"(worst {100 * worst:.1f} %)")


k = "main->iterate->compute"
law(f"{k}->stencil_kernel/time", -1, 2, 0.1)
law(f"{k}/time", -0.5, 1, 0.1)
law("main->iterate->halo_exchange/time", -0.5, 1, 0.1)
law("main->iterate->halo_exchange->MPI_Sendrecv/time", -0.5, 1, 0.1, C=1e-3)
# 2e-3 p^0.3 over p = 4..32 is also C + a p^0.5 within the noise (seed 4
# fits 1.7e-3 + 6.3e-4 p^0.49): the power is only pinned down to a range,
# the prediction to 5 %
law("main->iterate->MPI_Allreduce/time", 0.4, 0, 0.2)
predicts("main->iterate->MPI_Allreduce/time", lambda p, n: 2e-3 * p ** 0.3)
law("main->write_output/time", -1, 2, 0.1)
law("main->iterate->halo_exchange->MPI_Sendrecv/bytes_sent", -0.5, 1, 0.02)
law("main->write_output/visits", -1, 0, 0.02)
predicts("main->init/time", lambda p, n: 0.35)
# visits are constants: fitted, with the constant-fit warning
w = models["main->iterate->compute->stencil_kernel/visits"].get("warnings", [])
print("PASS" if any(x.startswith("constant fit: the model predicts time_s = 100 ") for x in w)
      else "FAIL", "stencil_kernel/visits: a constant fit of 100, said so")
# bytes_sent is 0 on every call path outside MPI: those jobs fail, saying why
zero = sorted(i for i, e in errors.items()
              if "target 'time_s': 0 is not a time > 0" in e and i.endswith("/bytes_sent"))
good = len(zero) == 7 and len(errors) == 7
print("PASS" if good else "FAIL", "7 errors, bytes_sent outside MPI: 0 is not a time > 0",
      "" if good else errors)
EOF
while read -r verdict what; do
	if [ "$verdict" = PASS ]; then ok "$what"; else bad "$what"; fi
done <checks.txt
[ -s checks.txt ] || bad "the checks ran"

# The doc's own set (the generator's defaults) through the doc's batch and
# its table snippet, taken from the doc: the table must be the doc's, but
# for the error messages, which the doc shortens (their start is compared)
python3 "$root/docs/examples/profile_set.py" stencil
"$pm" batch --each-region stencil -o full.jsonl -- --form multiplicative --loss log 2>/dev/null
python3 - "$root/docs/profiles.md" >table.py <<'EOF'
import sys
print(open(sys.argv[1]).read().split("```python\n")[1].split("```")[0], end="")
EOF
python3 table.py full.jsonl >table.txt 2>&1
if python3 - "$root/docs/profiles.md" table.txt <<'EOF'
import sys
want = open(sys.argv[1]).read().split("$ python3 table.py models.jsonl\n")[1]
want = want.split("```")[0].splitlines()
got = open(sys.argv[2]).read().splitlines()


def cut(line):
    return line.split(" (")[0] if " error: " in line else line


for w, g in zip(want, got):
    if cut(w) != cut(g):
        print(f"# doc: {w}\n# got: {g}")
sys.exit(len(got) != 27 or len(want) != 27 or any(cut(w) != cut(g) for w, g in zip(want, got)))
EOF
then
	ok "docs/profiles.md: its table snippet prints its table of the full set"
else
	bad "docs/profiles.md: its table is not what its snippet prints now" "$(head -3 table.txt)"
fi

echo "profiles_example: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
