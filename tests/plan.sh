#!/usr/bin/env bash
# perfmodel plan end to end (issue 37): the picks of a known law measured at
# small sizes, the CSV and JSON outputs, the same bytes for 1 and 2 threads,
# a measured candidate left out with a note, and every refusal by name with
# the CLI's exit status (2: usage, 1: the files).
# usage: plan.sh PERFMODEL SOURCE_ROOT
set -u
pm=$(realpath "$1")
here=$(dirname "$(realpath "$0")")
. "$here/tap.sh"

# t = 0.1 + 2e-3 n^1.5 at n = 2..16, twice each, +-1 %
python3 - <<'PY'
with open("data.csv", "w") as f:
    f.write("n,t\n")
    for i, n in enumerate([2, 4, 6, 8, 12, 16]):
        for s in (-1, 1):
            f.write("%g,%.9g\n" % (n, (0.1 + 2e-3 * n ** 1.5) * (1 + 0.01 * s)))
PY
printf 'n,cost,nodes\n3,1,2\n5,1,2\n10,1,2\n64,1,2\n256,1,2\n1024,1,2\n' >cand.csv
printf 'n\n4096\n8192\n' >targets.csv
fit=(--target t --intrinsic n --form additive --threads 1)

if "$pm" plan data.csv --candidates cand.csv --at targets.csv "${fit[@]}" --cost-column cost \
	--count 2 -o next.csv >table.txt 2>err.txt &&
	[ "$(head -1 next.csv)" = "n,nodes,cost,gain" ] && [ "$(wc -l <next.csv)" -eq 3 ] &&
	awk -F, 'NR > 1 && $1 < 64 { exit 1 }' next.csv && grep -q '^  1 ' table.txt; then
	ok "at equal cost, the two picks are large candidates; CSV and table written"
else
	bad "at equal cost, the two picks are large candidates; CSV and table written" \
		"$(cat err.txt table.txt next.csv 2>/dev/null)"
fi
if "$pm" plan data.csv --candidates cand.csv --at targets.csv "${fit[@]}" --cost-column cost \
	--count 2 --threads 2 -o next2.csv >/dev/null 2>err.txt && cmp -s next.csv next2.csv; then
	ok "the same picks, byte for byte, with --threads 2"
else
	bad "the same picks, byte for byte, with --threads 2" "$(cat err.txt)"
fi
if "$pm" plan data.csv --candidates cand.csv --at targets.csv "${fit[@]}" --budget 3 \
	--cost-column cost -o - >budget.csv 2>err.txt && [ "$(wc -l <budget.csv)" -eq 4 ]; then
	ok "--budget 3 at cost 1 each: three picks, CSV on stdout with -o -"
else
	bad "--budget 3 at cost 1 each: three picks, CSV on stdout with -o -" "$(cat err.txt budget.csv)"
fi
if "$pm" plan data.csv --candidates cand.csv --at targets.csv "${fit[@]}" --cost-scale nodes \
	--json >plan.json 2>err.txt &&
	python3 -c 'import json, sys
d = json.load(open("plan.json"))
p = d["picks"]
assert len(p) == 5 and d["members"] == 16, d
assert all(abs(x["cost"] - 2 * x["predicted"]) <= 1e-12 * x["cost"] for x in p), p
assert d["spread_after"] < d["spread_before"], d'; then
	ok "--json: five picks, each costing its predicted time times nodes"
else
	bad "--json: five picks, each costing its predicted time times nodes" "$(cat err.txt plan.json)"
fi
if "$pm" plan data.csv --candidates cand.csv --at targets.csv --target t --intrinsic n --threads 1 \
	--forms additive,multiplicative --cost-column cost --json >auto.json 2>err.txt &&
	python3 -c 'import json; d = json.load(open("auto.json")); assert d["form"] in ("additive", "multiplicative") and len(d["picks"]) == 5, d
f = d["forms"]; assert sorted(x["form"] for x in f) == ["additive", "multiplicative"], f
assert sum(x["members"] for x in f) == d["members"] and all(x["members"] >= 1 for x in f), f' &&
	"$pm" plan data.csv --candidates cand.csv --at targets.csv --target t --intrinsic n --threads 1 \
	--forms additive,multiplicative --cost-column cost >auto.txt 2>err.txt &&
	grep -q '^refits of 2 forms: .* (the fit.s); ' auto.txt; then
	ok "no form given: chosen as select chooses, refits of both forms, then planned"
else
	bad "no form given: chosen as select chooses, refits of both forms, then planned" \
		"$(cat err.txt auto.json auto.txt)"
fi
printf 'n,cost\n4,1\n256,1\n' >measured.csv
if "$pm" plan data.csv --candidates measured.csv --at targets.csv "${fit[@]}" --cost-column cost \
	-o m.csv >/dev/null 2>err.txt && [ "$(wc -l <m.csv)" -eq 2 ] &&
	grep -q "^perfmodel: note: candidate at measured.csv line 2 was measured already (data line 4): left out$" err.txt; then
	ok "a candidate measured already is left out, with a note naming both lines"
else
	bad "a candidate measured already is left out, with a note naming both lines" "$(cat err.txt)"
fi
if "$pm" plan data.csv --candidates measured.csv --at targets.csv "${fit[@]}" --cost-column cost \
	--json >m.json 2>err.txt &&
	grep -q "^perfmodel: note: candidate at measured.csv line 2 was measured already (data line 4): left out$" err.txt &&
	python3 -c 'import json; d = json.load(open("m.json")); assert d["dropped"] == [{"line": 2, "repeats": "data", "repeats_line": 4}], d'; then
	ok "--json: a dropped candidate in \"dropped\" with both lines, and the note on stderr"
else
	bad "--json: a dropped candidate in \"dropped\" with both lines, and the note on stderr" "$(cat err.txt m.json)"
fi
# levels that look like numbers are still levels: text in the JSON
printf 'n,gpus,t\n2,1,0.11\n4,1,0.12\n8,1,0.16\n16,1,0.23\n2,2,0.12\n4,2,0.13\n8,2,0.17\n16,2,0.24\n' >lv.csv
printf 'n,gpus\n64,1\n128,2\n' >lvcand.csv
printf 'n,gpus\n1024,2\n' >lvtargets.csv
if "$pm" plan lv.csv --candidates lvcand.csv --at lvtargets.csv --target t --intrinsic n \
	--categorical gpus --form additive --threads 1 --json >lv.json 2>err.txt &&
	python3 -c 'import json; d = json.load(open("lv.json")); p = d["picks"]
assert p and all(isinstance(x["config"]["gpus"], str) and isinstance(x["config"]["n"], (int, float)) for x in p), p'; then
	ok "--json: a categorical level is text in config, a numeric input a number"
else
	bad "--json: a categorical level is text in config, a numeric input a number" "$(cat err.txt lv.json)"
fi
printf 'n,cost\n64,1\n256,1\n64,1\n' >twice.csv
if "$pm" plan data.csv --candidates twice.csv --at targets.csv "${fit[@]}" --cost-column cost \
	-o tw.csv >/dev/null 2>err.txt && [ "$(wc -l <tw.csv)" -eq 3 ] &&
	grep -q "^perfmodel: note: candidate at twice.csv line 4 repeats line 2: left out$" err.txt; then
	ok "a candidate listed twice is planned once, with a note naming both lines"
else
	bad "a candidate listed twice is planned once, with a note naming both lines" "$(cat err.txt tw.csv)"
fi
# one configuration measured 8000 times beside 8000 measured once: a resample
# buffer of groups x the largest group was 8001 x 8000 rows (512 MB); under a
# 300 MB address space the plan must still be made
python3 - <<'PY'
with open("lopsided.csv", "w") as f:
    f.write("n,t\n")
    for i in range(8000):
        f.write("4,%.6f\n" % ((0.1 + 2e-3 * 8) * (1 + 0.01 * (i % 7 - 3) / 3)))
    for i in range(8000):
        n = 5 + i % 80 * 0.5 + i * 1e-4
        f.write("%.4f,%.6f\n" % (n, (0.1 + 2e-3 * n ** 1.5) * (1 + 0.3 * (i * 7919 % 13 - 6) / 6)))
PY
if grep -aq -e __asan_init -e __tsan_init "$pm" || ldd "$pm" | grep -q -e libasan -e libtsan; then
	ok "a lopsided resample in 300 MB # SKIP a sanitizer's shadow memory needs more address space"
elif (ulimit -v 300000 && "$pm" plan lopsided.csv --candidates cand.csv --at targets.csv "${fit[@]}" \
	--count 1 --members 2 -o lop.csv >/dev/null 2>err.txt) && [ "$(wc -l <lop.csv)" -eq 2 ]; then
	ok "a configuration measured 8000 times beside 8000 single ones: planned in 300 MB"
else
	bad "a configuration measured 8000 times beside 8000 single ones: planned in 300 MB" "$(cat err.txt)"
fi
if "$pm" help plan | grep -q '^usage: perfmodel plan DATA.csv --candidates' &&
	"$pm" plan --help | grep -q -- '--cost-scale COL' && "$pm" help | grep -q '^  plan '; then
	ok "help plan, plan --help, and plan in the command list"
else
	bad "help plan, plan --help, and plan in the command list"
fi

# ---- refusals
run=("$pm" plan data.csv "${fit[@]}")
expect_fail "no --at: usage" 2 "^perfmodel: --candidates FILE and --at FILE are both needed \\(see 'perfmodel help plan'\\)$" -- \
	"${run[@]}" --candidates cand.csv
expect_fail "--cost-column with --cost-scale: usage" 2 "give one of --cost-column and --cost-scale" -- \
	"${run[@]}" --candidates cand.csv --at targets.csv --cost-column cost --cost-scale nodes
expect_fail "--count 0: usage" 2 "--count '0': expected a whole number from 1 to 1000000" -- \
	"${run[@]}" --candidates cand.csv --at targets.csv --count 0
expect_fail "--count above its limit: usage, naming it" 2 "--count '1000001': expected a whole number from 1 to 1000000" -- \
	"${run[@]}" --candidates cand.csv --at targets.csv --count 1000001
expect_fail "--budget -1: usage" 2 "--budget '-1': expected a finite number > 0" -- \
	"${run[@]}" --candidates cand.csv --at targets.csv --budget -1
expect_fail "--budget inf: usage" 2 "--budget 'inf': expected a finite number > 0" -- \
	"${run[@]}" --candidates cand.csv --at targets.csv --budget inf
expect_fail "--budget 1e309: usage" 2 "--budget '1e309': expected a finite number > 0" -- \
	"${run[@]}" --candidates cand.csv --at targets.csv --budget 1e309
expect_fail "-o - with --json: usage" 2 "^perfmodel: -o - and --json both write to standard output: choose one" -- \
	"${run[@]}" --candidates cand.csv --at targets.csv -o - --json
expect_fail "an option of neither plan nor fit: usage" 2 "no-such" -- \
	"${run[@]}" --candidates cand.csv --at targets.csv --no-such
printf 'm,cost\n3,1\n' >nocol.csv
expect_fail "candidates without an input column" 1 "^perfmodel: the candidates \\(nocol.csv\\) have no column 'n', an input of the model$" -- \
	"${run[@]}" --candidates nocol.csv --at targets.csv
printf 'n,dev,t\n2,a,1\n4,a,2\n8,a,4\n16,b,8\n2,b,1.1\n4,b,2.1\n' >cat.csv
printf 'n,dev\n64,a\n64,gpu\n' >catcand.csv
printf 'n,dev\n512,a\n' >cattargets.csv
expect_fail "an unknown level in the candidates, at its cell" 1 "^perfmodel: catcand.csv:3:4: column 'dev': unknown level 'gpu'" -- \
	"$pm" plan cat.csv --target t --intrinsic n --categorical dev --form additive --threads 1 \
	--candidates catcand.csv --at cattargets.csv
printf 'n\n4096\n8\n' >seen.csv
expect_fail "a target measured already, naming both lines" 1 "^perfmodel: seen.csv:3: target 2 is a configuration already measured \\(data.csv line 8\\)" -- \
	"${run[@]}" --candidates cand.csv --at seen.csv
expect_fail "no budget left" 1 "^perfmodel: no budget left: the budget 0.5 is less than the cheapest candidate's cost, 1 \\(cand.csv line 2\\)$" -- \
	"${run[@]}" --candidates cand.csv --at targets.csv --cost-column cost --budget 0.5
printf 'n,cost\n64,1\n256,-3\n' >negative.csv
expect_fail "a negative cost, at its cell" 1 "^perfmodel: negative.csv:3:5: candidate 2 costs -3: a cost must be a finite number > 0$" -- \
	"${run[@]}" --candidates negative.csv --at targets.csv --cost-column cost
: >empty.csv
expect_fail "an empty candidates file" 1 "^perfmodel: empty.csv" -- \
	"${run[@]}" --candidates empty.csv --at targets.csv
expect_fail "-o over an input: refused before the fit" 1 "^perfmodel: cannot write cand.csv: it is the input cand.csv, which the output would replace$" -- \
	"${run[@]}" --candidates cand.csv --at targets.csv -o cand.csv
printf 'n,cost\n4,1\n' >allseen.csv
expect_fail "every candidate measured already" 1 "every candidate of allseen.csv has been measured already" -- \
	"${run[@]}" --candidates allseen.csv --at targets.csv

echo "1..$((pass + fail))"
[ "$fail" -eq 0 ]
