#!/usr/bin/env bash
# Warm start against a cold fit (issue 22, docs/benchmarks.md "Warm start"):
# for each bundled data set, fit the first FRACTION of its rows, then fit
# all rows twice, cold and with --warm-start from that model, and report
# each fit's time and final cost, cost warm/cold and time warm/cold.
# The target: warm cost <= 1.01 x cold, warm time <= 0.5 x cold.
#
# usage: bench/warmstart.sh [PERFMODEL] [SEEDS] [REPEATS] [ORDER] [MEASURE] [SETS]
#   PERFMODEL  the binary (default build/cli/perfmodel)
#   SEEDS      fit seeds 1..SEEDS (default 5): each seed's earlier model,
#              cold and warm fits
#   REPEATS    times each fit is run, cold and warm in turn: its time is the
#              median (default 3)
#   ORDER      file: the first rows in file order, as measurements arrive
#              (default); shuffle: after a shuffle seeded by the fit seed
#   MEASURE    time (default), or instructions: each fit's instruction count
#              inside pm_fit under valgrind --tool=callgrind (one run each:
#              the count repeats exactly whatever the machine's load, which
#              a 2-3 ms GEMM fit's wall time does not), fits without
#              --no-intervals' calibration, which is not the fit's
#   SETS       the data sets, comma-separated (default
#              lenet5,lenet5-mult,gemm,ddp_mlp: LeNet-5 under callgrind takes
#              minutes a fit)
#
# Times are the fit's own (model.json's run.wall_time_s: no reading or
# writing of files), on one thread (--threads 1), so that the two fits
# share the machine alike; costs are model.json's fit.cost (the scaled
# space of all rows: the same for the cold and the warm fit). Timings are
# printed, never asserted.
set -u
root=$(realpath "$(dirname "$0")/..")
pm=$(realpath "${1:-$root/build/cli/perfmodel}")
seeds=${2:-5}
repeats=${3:-3}
order=${4:-file}
measure=${5:-time}
sets=,${6:-lenet5,lenet5-mult,gemm,ddp_mlp},
case $measure in
time) ;;
instructions) command -v valgrind >/dev/null || { echo "MEASURE=instructions needs valgrind" >&2; exit 2; }
	repeats=1 ;;
*) echo "MEASURE is time or instructions" >&2; exit 2 ;;
esac
fraction=0.7
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# first ROWS of DATA (after a seeded shuffle with ORDER=shuffle) into OUT
part() {	# part DATA SEED OUT
	python3 - "$1" "$2" "$3" "$fraction" "$order" <<'EOF'
import random, sys
data, seed, out, frac, order = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4]), sys.argv[5]
lines = open(data).read().splitlines()
head, rows = lines[0], lines[1:]
if order == "shuffle":
    random.Random(seed).shuffle(rows)
open(out, "w").write("\n".join([head] + rows[:round(frac * len(rows))]) + "\n")
EOF
}

# one fit: ARGS -o OUT; prints its cost and wall time (or instructions)
fit() {	# fit OUT ARGS...
	local out=$1 ir= form=(--form additive)
	shift
	# eq. 4.4 unless the args name a form (fit with none chooses one)
	case " $* " in *" --form "* | *" --formula "*) form=() ;; esac
	if [ "$measure" = instructions ]; then
		ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect=pm_fit \
			"$pm" fit ${form[@]+"${form[@]}"} "$@" --no-intervals --threads 1 -q -o "$out" 2>&1 |
			sed -n 's/^==[0-9]*== Collected : //p')
		[ -n "$ir" ] || { echo "fit failed: $*" >&2; exit 1; }
	else
		"$pm" fit ${form[@]+"${form[@]}"} "$@" --threads 1 -q -o "$out" 2>/dev/null || { echo "fit failed: $*" >&2; exit 1; }
	fi
	python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print(m["fit"]["cost"], sys.argv[2] or m["run"]["wall_time_s"])' "$out" "$ir"
}

# the cold and the warm fit alternate, $repeats times each, so that a change
# in the machine's load falls on both alike; each one's time is the median
median() { python3 -c 'import sys,statistics as s; print(s.median(float(x) for x in sys.argv[1:]))' "$@"; }

run_set() {	# run_set NAME DATA ARGS...
	local name=$1 data=$2 ct wt ccost wcost t
	shift 2
	[[ $sets == *,$name,* ]] || return 0
	for ((seed = 1; seed <= seeds; seed++)); do
		part "$root/$data" "$seed" "$work/part.csv"
		fit "$work/early.json" "$work/part.csv" "$@" --seed "$seed" >/dev/null
		ct=() wt=()
		for ((r = 0; r < repeats; r++)); do
			read -r ccost t < <(fit "$work/cold.json" "$root/$data" "$@" --seed "$seed")
			ct+=("$t")
			read -r wcost t < <(fit "$work/warm.json" "$root/$data" "$@" --seed "$seed" \
						--warm-start "$work/early.json")
			wt+=("$t")
		done
		echo "$name $seed $ccost $(median "${ct[@]}") $wcost $(median "${wt[@]}")"
	done
}

{
	run_set lenet5 data/lenet5_cpu.csv --spec "$root/models/lenet5.json"
	run_set lenet5-mult data/lenet5_cpu.csv --spec "$root/models/lenet5.json" --form multiplicative
	run_set gemm data/gemm_cpu.csv --spec "$root/models/gemm.json"
	run_set ddp_mlp data/ddp_mlp.csv --spec "$root/models/ddp_mlp.json"
} >"$work/results"

if [ "$measure" = instructions ]; then
	echo "first $fraction of the rows ($order order), then all rows: cold and warm-started, $seeds seeds, instructions in pm_fit (callgrind; the 's' columns are instruction counts), 1 thread"
else
	echo "first $fraction of the rows ($order order), then all rows: cold and warm-started, $seeds seeds, time = median of $repeats runs, 1 thread"
fi
python3 - "$work/results" <<'EOF'
import sys, statistics as st
rows = [l.split() for l in open(sys.argv[1])]
print(f"{'set':<12} {'seed':>4} {'cold cost':>11} {'cold s':>8} {'warm cost':>11} {'warm s':>8} {'cost w/c':>9} {'time w/c':>9}")
sets = {}
for name, seed, cc, ct, wc, wt in rows:
    cc, ct, wc, wt = map(float, (cc, ct, wc, wt))
    sets.setdefault(name, []).append((wc / cc, wt / ct))
    print(f"{name:<12} {seed:>4} {cc:>11.6g} {ct:>8.4g} {wc:>11.6g} {wt:>8.4g} {wc / cc:>9.4f} {wt / ct:>9.3f}")
print()
print(f"{'set':<12} {'worst cost w/c':>15} {'median time w/c':>16} {'worst time w/c':>15}  target (cost <= 1.01, time <= 0.5)")
for name, r in sets.items():
    wc = max(c for c, _ in r)
    mt = st.median(t for _, t in r)
    wt = max(t for _, t in r)
    ok = "met" if wc <= 1.01 and mt <= 0.5 else "NOT met"
    print(f"{name:<12} {wc:>15.4f} {mt:>16.3f} {wt:>15.3f}  {ok}")
EOF
