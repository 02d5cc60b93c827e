#!/usr/bin/env bash
# End-to-end tests of perfmodel discover (issue 21) on small tables made
# here: the table of candidates, the model file every other command reads,
# --json, --validate extrapolate, --max-terms, determinism and every misuse.
# usage: discover.sh PERFMODEL
set -u
pm=$(realpath "$1")
here=$(dirname "$(realpath "$0")")
. "$here/tap.sh"

# t = 2e-6 n^2 + 50 / threads + 1, 1 % ripple.
awk 'BEGIN { print "n,threads,time"; k = 0
	for (n = 100; n <= 3200; n *= 2) for (t = 1; t <= 16; t *= 2) {
		k++; printf "%d,%d,%.6g\n", n, t, (2e-6 * n * n + 50 / t + 1) * (1 + 0.01 * sin(k * 1.7)) } }' >s.csv
printf 'n,threads\n6400,32\n100,1\n' >points.csv
printf 'n,other,time\n4,1,1\n4,2,2\n4,3,3\n4,4,4\n' >flat.csv
printf 'n,time\n1,1\n2,0\n4,3\n8,4\n16,5\n' >zero.csv
roles=(--target time)
# model.json without its "run" member (threads used, wall time)
norun() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d.pop("run", None); print(json.dumps(d, sort_keys=True))' "$1"; }

# ---- the table, the chosen formula fitted and saved
if "$pm" discover s.csv "${roles[@]}" -o m.json >m.txt 2>m.err; then
	has "discover: the table of candidates, the chosen one marked" m.txt \
		'^discovery: 5-fold cross-validation, fold seed 1$' \
		'hypotheses, [0-9]+ rejected' \
		'terms +held-out MAPE % +formula' \
		'  <- chosen$' \
		'^chosen: the fewest terms within one standard error of the best' \
		'^model \(formula\)' 'saved to m.json'
	# the formula of the line marked chosen is the model's
	f=$(sed -n 's/^ *[0-9]\+ \+[0-9.]\+ +- \+[0-9.]\+  \(.*\)  <- chosen$/\1/p' m.txt)
	if [ -n "$f" ] && grep -Fq "\"formula\": \"$f\"" m.json && grep -Fq "t = $f" m.txt; then
		ok "discover: the chosen formula is the model's ($f)"
	else
		bad "discover: the chosen formula is the model's" "chosen '$f'" "$(grep formula m.json)"
	fi
	[ -s m.err ] && bad "discover: nothing on stderr" "$(cat m.err)" || ok "discover: nothing on stderr"
else
	bad "discover runs" "$(cat m.err)"
fi
# every command reads the model
if "$pm" predict -m m.json points.csv >p.txt 2>p.err; then
	has "predict -m reads discover's model" p.txt '6400'
else
	bad "predict -m reads discover's model" "$(cat p.err)"
fi
if "$pm" eval -m m.json s.csv >e.txt 2>e.err; then
	has "eval -m reads discover's model" e.txt 'MAPE'
else
	bad "eval -m reads discover's model" "$(cat e.err)"
fi

# ---- --json: the document on stdout with "discovery", the table on stderr
if "$pm" discover s.csv "${roles[@]}" --json -o j.json >j.out 2>j.err; then
	if python3 -c 'import json, sys
d = json.load(open("j.out")); x = d["discovery"]
c = x["candidates"]
assert d["form"] == "formula" and x["validation"] == "kfold:5" and x["folds"] == 5
assert x["hypotheses"] > x["rejected"] and 0 <= x["chosen"] < len(c)
assert [k for k in range(len(c)) if c[k]["chosen"]] == [x["chosen"]]
assert c[x["chosen"]]["formula"] == d["formula"]
assert all(k["mape"] >= 0 and k["mape_se"] >= 0 and k["terms"] >= 1 for k in c)' 2>py.err; then
		ok "discover --json: \"discovery\" with its candidates, the chosen one the model's"
	else
		bad "discover --json: \"discovery\"" "$(cat py.err)"
	fi
	has "discover --json: the table on stderr" j.err '<- chosen$' '^discovery: '
	if grep -q 'held-out MAPE' j.out; then bad "discover --json: no table on stdout"; else ok "discover --json: no table on stdout"; fi
else
	bad "discover --json runs" "$(cat j.err)"
fi

# ---- ranked by extrapolation along n: one fold, no standard error
if "$pm" discover s.csv "${roles[@]}" --validate extrapolate:n -o x.json >x.txt 2>x.err; then
	has "discover --validate extrapolate:n" x.txt \
		'^discovery: extrapolation along n: fitted to values <= 400' \
		'\+- +0\.00  .*  <- chosen$'
else
	bad "discover --validate extrapolate:n runs" "$(cat x.err)"
fi

# ---- --max-terms 1: a one-term formula
if "$pm" discover s.csv "${roles[@]}" --max-terms 1 --top 3 -o one.json >one.txt 2>one.err; then
	n=$(sed -n 's/^ *\([0-9]\+\) \+[0-9.]\+ +- .*/\1/p' one.txt | sort -u | tr '\n' ' ')
	f=$(python3 -c 'import json; print(json.load(open("one.json"))["formula"])')
	if [ "$n" = "1 " ] && [ "$(grep -o ' + ' <<<"$f" | wc -l)" -eq 1 ]; then
		ok "discover --max-terms 1: one term and C ($f)"
	else
		bad "discover --max-terms 1: one term" "terms: $n" "formula: $f"
	fi
else
	bad "discover --max-terms 1 runs" "$(cat one.err)"
fi

# ---- the same seed twice: the same model file (but for the run's timing)
if "$pm" discover s.csv "${roles[@]}" --seed 7 -o a.json >/dev/null 2>&1 &&
	"$pm" discover s.csv "${roles[@]}" --seed 7 -o b.json >/dev/null 2>&1 &&
	[ "$(norun a.json)" = "$(norun b.json)" ]; then
	ok "discover: the same seed twice gives the same model.json"
else
	bad "discover: the same seed twice gives the same model.json" "$(diff a.json b.json | head -20)"
fi

# ---- a curve per level: terms of one level ([device == "cpu"]), a level with
# a '"' in its name, read back by predict
awk 'BEGIN { print "n,device,time"; k = 0
	for (n = 100; n <= 3200; n *= 2) for (r = 0; r < 3; r++) {
		k++; e = 1 + 0.01 * sin(k * 1.7)
		printf "%d,cpu,%.6g\n%d,\"g\"\"pu\",%.6g\n", n, (2e-4 * n * n + 0.3) * e, n, (1e-8 * n * n * n + 0.3) * e } }' >lv.csv
printf 'n,device\n6400,cpu\n6400,"g""pu"\n' >lvpoints.csv
if "$pm" discover lv.csv "${roles[@]}" -o lv.json >lv.txt 2>lv.err; then
	has "discover: a power per level" lv.txt \
		'\[device == "cpu"\] \* n\^2 .*  <- chosen$' '\[device == "g""pu"\] \* n\^3 .*  <- chosen$'
	if "$pm" predict -m lv.json lvpoints.csv >lvp.txt 2>lvp.err &&
		python3 -c 'import csv, sys
rows = list(csv.DictReader(open("lvp.txt")))
cpu, gpu = (float(r["predicted"]) for r in rows)
assert abs(cpu / (2e-4 * 6400**2 + 0.3) - 1) < 0.05, cpu
assert abs(gpu / (1e-8 * 6400**3 + 0.3) - 1) < 0.05, gpu' 2>py.err; then
		ok "predict -m: each level's curve, extrapolated to n = 6400"
	else
		bad "predict -m: each level's curve" "$(cat lvp.err py.err)"
	fi
else
	bad "discover on a curve per level runs" "$(cat lv.err)"
fi

# ---- a speedup: searched on its time scale 1/S, predicted as a speedup
awk 'BEGIN { print "n,speedup"; k = 0
	for (n = 1; n <= 64; n *= 2) for (r = 0; r < 2; r++) {
		k++; printf "%d,%.6g\n", n, 1 / (0.1 + 0.9 / n) * (1 + 0.01 * sin(k * 1.7)) } }' >amdahl.csv
printf 'n\n128\n' >amdahl_points.csv
if "$pm" discover amdahl.csv --target speedup --target-kind speedup --resource n -o sp.json >sp.txt 2>sp.err &&
	"$pm" predict -m sp.json amdahl_points.csv >spp.txt 2>spp.err; then
	has "discover --target-kind speedup: the time scale's n^(-1)" sp.txt 'n\^\(-1\).*  <- chosen$'
	if python3 -c 'import csv
(r,) = csv.DictReader(open("spp.txt"))
s = float(r["predicted_speedup"]); want = 1 / (0.1 + 0.9 / 128)
assert abs(s / want - 1) < 0.02, (s, want)' 2>py.err; then
		ok "predict: the discovered speedup model at n = 128"
	else
		bad "predict: the discovered speedup model at n = 128" "$(cat spp.txt py.err)"
	fi
else
	bad "discover --target-kind speedup runs" "$(cat sp.err spp.err 2>/dev/null)"
fi

# ---- a constant metric gives the constant model (issue 33), by discover and
# by fit's default choice, with the constant-fit warning naming the inputs
awk 'BEGIN { print "n,p,time"; for (n = 10; n <= 160; n *= 2) for (p = 1; p <= 8; p *= 2) print n "," p ",5" }' >const.csv
"$pm" discover const.csv --target time -o const_model.json >const.out 2>const.err
has "discover: a constant metric is C" const.out '^  t = C$' '^      0 +0\.00 \+- +0\.00  C  <- chosen$'
"$pm" fit const.csv --target time -o const_fit.json >constfit.out 2>constfit.err
has "fit: a constant metric chooses discover's C" constfit.out '^  t = C$' \
	'^chosen: discover \(loss mae\), a constant within one standard error'
has "fit: the constant's warning names the inputs" constfit.err \
	'constant fit: the model is time = 5, whatever n, p: no term of them held out better'
if grep -q 'intervals beyond the range' constfit.err; then
	bad "fit: an exact constant's intervals widen nothing" "$(cat constfit.err)"
else
	ok "fit: an exact constant's intervals widen nothing"
fi
"$pm" predict -m const_fit.json <(printf 'n,p\n1000,64\n') >constpred.out
has "predict: the constant anywhere" constpred.out '^1000,64,5$'

# ---- misuse: usage errors exit 2, data errors 1, and nothing is saved
rm -f nomodel.json
expect_fail "discover --form: refused" 2 'discover writes the formula' -- \
	"$pm" discover s.csv "${roles[@]}" --form additive -o nomodel.json
expect_fail "discover --formula: refused" 2 'discover writes the formula' -- \
	"$pm" discover s.csv "${roles[@]}" --formula 'a * n^p + C' -o nomodel.json
expect_fail "discover --forms: refused" 2 'discover writes the formula' -- \
	"$pm" discover s.csv "${roles[@]}" --forms additive -o nomodel.json
expect_fail "discover --max-terms 0" 2 "--max-terms '0': expected a whole number from 1 to 6" -- \
	"$pm" discover s.csv "${roles[@]}" --max-terms 0 -o nomodel.json
expect_fail "discover --max-terms 7" 2 "--max-terms '7': expected a whole number from 1 to 6" -- \
	"$pm" discover s.csv "${roles[@]}" --max-terms 7 -o nomodel.json
expect_fail "discover --beam 0: its own help named" 2 "--beam '0': expected a whole number from 1 to 64 \\(see 'perfmodel help discover'\\)" -- \
	"$pm" discover s.csv "${roles[@]}" --beam 0 -o nomodel.json
expect_fail "select --lambda x: its own help named" 2 "--lambda 'x': expected a number >= 0 \\(see 'perfmodel help select'\\)" -- \
	"$pm" select s.csv "${roles[@]}" --lambda x -o nomodel.json
expect_fail "fit --max-terms: discover's" 2 "--max-terms, --beam, --top and --refine are discover's" -- \
	"$pm" fit --form additive s.csv "${roles[@]}" --max-terms 2 -o nomodel.json
expect_fail "select --top: discover's" 2 "--max-terms, --beam, --top and --refine are discover's" -- \
	"$pm" select s.csv "${roles[@]}" --top 3 -o nomodel.json
expect_fail "discover: only a constant input" 1 'discover: no input varies: nothing to search' -- \
	"$pm" discover flat.csv "${roles[@]}" --ignore other -o nomodel.json
expect_fail "discover: a time of 0" 1 "zero.csv:3:3: target 'time': 0 is not a time > 0" -- \
	"$pm" discover zero.csv "${roles[@]}" -o nomodel.json

if [ -e nomodel.json ]; then bad "discover: no misuse saved a model"; else ok "discover: no misuse saved a model"; fi

echo "1..$((pass + fail))"
[ "$fail" -eq 0 ]
