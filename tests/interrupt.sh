#!/usr/bin/env bash
# SIGINT in every phase of every command that fits (issue 18, class 10),
# end to end on data big enough that each command is still running when
# the signal comes: each must exit 130 and say so, write its output whole
# and marked "interrupted" (or nothing, where nothing was chosen), and
# leave no temporary file. How fast is measured, not asserted, by
# bench/interrupt_latency.sh (docs/reliability.md has the numbers); here a
# process that does not end fails the test by its timeout.
# usage: interrupt.sh PERFMODEL SOURCE_ROOT
set -u
pm=$(realpath "$1")
root=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
pass=0
fail=0

ok() { pass=$((pass + 1)); echo "ok $((pass + fail)) - $1"; }
bad() { fail=$((fail + 1)); echo "not ok $((pass + fail)) - $1"; shift; printf '  %s\n' "$@"; }

big() {	# big NAME TARGET_COLUMN JITTERED_COLUMN ROWS (bench/replicate_rows.awk)
	awk -F, -v OFS=, -v tc="$2" -v jc="$3" -v rows="$4" \
		-f "$root/bench/replicate_rows.awk" "$root/data/$1.csv" >"$1.csv"
}
big lenet5_cpu 13 7 30000
big gemm_cpu 3 1 100000
lenet=(lenet5_cpu.csv --spec "$root/models/lenet5.json" --threads 2)
# discover (and select, which runs it) refuses 30 000 rows of LeNet-5: its
# pool of terms, a column of every row each, would take 5.1 GiB (its memory
# estimate, docs/discover.md "Memory"); 5 000 rows stay within 1 GiB and
# still take seconds a step
head -n 5001 lenet5_cpu.csv >lenet5_5k.csv
lenet5k=(lenet5_5k.csv --spec "$root/models/lenet5.json" --threads 2)
long=(--tol 0 --maxiter 100000000)

# interrupted CMD...: run it, SIGINT after $delay seconds (1 unless set),
# wait; $rc is its exit status, out.txt and err.txt what it printed; $early
# says whether it had ended before the signal (the data would then be too
# small).
interrupted() {
	local pid
	rm -f out.json .perfmodel-*
	"$pm" "$@" >out.txt 2>err.txt &
	pid=$!
	sleep "${delay:-1}"
	early=no
	kill -0 $pid 2>/dev/null || early=yes
	kill -INT $pid 2>/dev/null
	wait $pid
	rc=$?
}

# saved NAME: exit 130, the model saved whole, marked, loadable, said so
saved() {
	local name=$1
	if [ $early = yes ]; then
		bad "$name" "it ended before the signal"
	elif [ $rc -ne 130 ]; then
		bad "$name: exit 130" "exit $rc" "$(cat err.txt)"
	elif ! grep -q '"interrupted": true' out.json || ! grep -q '"stop": "interrupted"' out.json; then
		bad "$name: the model is marked interrupted" "$(head -c 400 out.json)"
	elif ! grep -q "interrupted: saved the best model so far" err.txt; then
		bad "$name: says so on stderr" "$(cat err.txt)"
	elif ls .perfmodel-* >/dev/null 2>&1; then
		bad "$name: no temporary file left"
	elif ! "$pm" eval -m out.json "$root/data/${2:-lenet5_cpu}.csv" >/dev/null 2>eval.err; then
		bad "$name: the model loads" "$(cat eval.err)"
	else
		ok "$name: exit 130, the best model so far saved, marked, loadable"
	fi
}

interrupted fit --form additive "${lenet[@]}" "${long[@]}" -o out.json
saved "fit, during DE"
# DE ends at its one generation (well within 2 s, even under a sanitizer):
# what the signal stops is the polish, which takes far longer after
# --engine de (1000 evaluations per unknown and stage; varpro's tenth of
# that can end first on these rows; the polish is the same code)
delay=2 interrupted fit --form additive "${lenet[@]}" --engine de --tol 0 --maxiter 1 -o out.json
saved "fit, during the polish"
if grep -q '"generations": 1,' out.json; then
	ok "fit, during the polish: DE had ended (generations 1)"
else
	bad "fit, during the polish: DE had ended (generations 1)" "$(head -c 600 out.json)"
fi
interrupted fit --form additive "${lenet[@]}" "${long[@]}" --test-fraction 0.3 -o out.json
saved "fit --test-fraction"
if grep -q '"test_data"' out.json; then
	ok "fit --test-fraction: the held-out accuracy is there"
else
	bad "fit --test-fraction: the held-out accuracy is there"
fi
interrupted fit "${lenet[@]}" "${long[@]}" --form multiplicative --loss log -o out.json
saved "fit --form multiplicative --loss log"
interrupted fit gemm_cpu.csv --target time_s --threads 2 "${long[@]}" \
	--formula 'a * n^p / threads^q + C' -o out.json
saved "fit --formula" gemm_cpu

# --seeds: the statistics over the completed seeds only, and how many
interrupted fit --form additive "${lenet[@]}" "${long[@]}" --seeds 4 -o out.json
saved "fit --seeds 4"
if grep -Eq '; [0-3] of 4 seeds completed$' err.txt &&
	grep -Eq '^[0-3] of 4 seeds completed \(interrupted\)' out.txt &&
	grep -q '"seeds_requested": 4' out.json && grep -q '"seeds_completed": [0-3]' out.json; then
	ok "fit --seeds 4: 'k of 4 seeds completed' on stderr, in the report and in model.json"
else
	bad "fit --seeds 4: 'k of 4 seeds completed' on stderr, in the report and in model.json" \
		"$(cat err.txt)" "$(grep -A2 seeds out.txt)"
fi
interrupted fit --form additive "${lenet[@]}" "${long[@]}" --seeds 3 --json -o out.json
if [ $rc -eq 130 ] && python3 -c '
import json, sys
d = json.load(open("out.txt"))
f = d["fit"]
assert f["interrupted"] and f["seeds_requested"] == 3, f
assert f["seeds_completed"] == len(d.get("seeds", [])) < 3, f
' 2>json.err; then
	ok "fit --seeds 3 --json: seeds_requested, seeds_completed = the seeds listed"
else
	bad "fit --seeds 3 --json: seeds_requested, seeds_completed = the seeds listed" "exit $rc" \
		"$(cat json.err err.txt)"
fi

# while the data are read (a pipe that delivers them after the signal):
# nothing is fitted, nothing saved
interrupted fit <(sleep 2; cat lenet5_cpu.csv) --spec "$root/models/lenet5.json" -o out.json
if [ $rc -eq 130 ] && [ ! -e out.json ] && grep -q "interrupted while reading" err.txt; then
	ok "fit, while reading: exit 130, nothing fitted or saved"
else
	bad "fit, while reading: exit 130, nothing fitted or saved" "exit $rc" "$(cat err.txt)"
fi

# while a set of CUBE runs is read (3 000 runs of one profile of 64
# locations: a second or more): the reader polls the flag between runs and
# stops there, so the signal is not left waiting for the last run
python3 - "$root/tests" <<'EOF'
import os, shutil, sys
sys.path.insert(0, sys.argv[1])
import cube_gen
cube_gen.test_profile("one.cubex", 64, 1, False, False, False)
for x in range(1, 61):
    for r in range(1, 51):
        os.makedirs(f"cubes/mm.x{x}.r{r}")
        shutil.copy("one.cubex", f"cubes/mm.x{x}.r{r}/profile.cubex")
EOF
delay=0.3 interrupted fit cubes --callpath 'main->compute' --scaling each --intrinsic x -o out.json
if [ $early = no ] && [ $rc -eq 130 ] && [ ! -e out.json ] &&
	grep -q "was read (a stop request)" err.txt; then
	ok "fit, while a set of CUBE runs is read: the reading stops at the next run, exit 130"
else
	bad "fit, while a set of CUBE runs is read: the reading stops at the next run, exit 130" \
		"early $early, exit $rc" "$(cat err.txt)"
fi
rm -rf cubes one.cubex

# discover: a search stopped chooses nothing and saves nothing (5 000 rows:
# a step of the search takes seconds; the stop is polled before each hypothesis)
interrupted discover "${lenet5k[@]}" -o out.json
if [ $early = no ] && [ $rc -eq 130 ] && [ ! -e out.json ] &&
	grep -q "interrupted during the search: nothing fitted" err.txt; then
	ok "discover, during the search: exit 130, nothing fitted or saved"
else
	bad "discover, during the search: exit 130, nothing fitted or saved" "early $early, exit $rc" "$(cat err.txt)"
fi

# select: during a fold nothing is chosen or saved
interrupted select "${lenet5k[@]}" "${long[@]}" --cv 3 -o out.json
if [ $early = no ] && [ $rc -eq 130 ] && [ ! -e out.json ] &&
	grep -q "interrupted: no form chosen" err.txt; then
	ok "select, during a cross-validation fold: exit 130, nothing chosen or saved"
else
	bad "select, during a cross-validation fold: exit 130, nothing chosen or saved" \
		"exit $rc" "$(cat err.txt)"
fi

# sweep: the λs whose folds ran, marked
interrupted sweep "${lenet[@]}" --lambda 1e-4:1e-2:3 --cv 2 --json
if [ $early = no ] && [ $rc -eq 130 ] && grep -q "interrupted" err.txt && python3 -c '
import json
d = json.load(open("out.txt"))
assert d["interrupted"] is True and 1 <= len(d["points"]) <= 3, d
' 2>json.err; then
	ok "sweep --cv, interrupted: exit 130, the points that ran, marked"
else
	bad "sweep --cv, interrupted: exit 130, the points that ran, marked" "exit $rc" \
		"$(cat json.err err.txt)"
fi

echo "1..$((pass + fail))"
[ $fail -eq 0 ]
