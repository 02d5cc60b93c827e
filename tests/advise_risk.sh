#!/usr/bin/env bash
# End-to-end tests of risk-aware advice (issue 22, item 3): advise
# --quantile ranks by a quantile of the time, advise --slurm prints the
# chosen configuration as Slurm options, and every misuse is an error.
# usage: advise_risk.sh PERFMODEL SOURCE_ROOT
set -u
pm=$(realpath "$1")
root=$(realpath "$2")
here=$(dirname "$(realpath "$0")")
. "$here/tap.sh"

"$pm" fit "$root/data/gemm_cpu.csv" --spec "$root/models/gemm.json" -q -o g.json
"$pm" fit "$root/data/gemm_cpu.csv" --spec "$root/models/gemm.json" -q -o plain.json --no-intervals
echo '{"n": 1024}' >job.json
advise() { "$pm" advise -m g.json job.json "$@"; }

# ---- --quantile
advise --vary threads=1..8 >point.txt
advise --vary threads=1..8 --quantile 0.95 >q.txt
has "advise --quantile: the table gains the quantile's column" q.txt \
	'^ranked by the 0.95-quantile time \(q0.95\): cost = threads x q0.95' \
	'^ +threads +time +q0.95 +cost +speedup +efficiency$'
# the picks' time, speedup and efficiency are the point predictions': the
# same numbers as without --quantile where the pick is the same
if [ "$(awk '$1 == "fastest" { print $2, $3, $5, $6 }' point.txt)" = \
	"$(awk '$1 == "fastest" { print $2, $3, $6, $7 }' q.txt)" ]
then ok "advise --quantile: time, speedup and efficiency are the predictions'"
else bad "advise --quantile: time, speedup and efficiency are the predictions'" "$(cat point.txt q.txt)"; fi
# each pick's quantile is predict --quantiles' at its point, and its cost
# is threads x that quantile
advise --vary threads=1..8 --quantile 0.95 --json >q.json
printf 'n,threads\n1024,1\n1024,8\n' >pts.csv
"$pm" predict -m g.json pts.csv --quantiles 0.95 --json >pq.json
if python3 - <<'PY'
import json, sys
a = json.load(open("q.json")); p = json.load(open("pq.json"))
q = {r["threads"]: r["q0.95"] for r in p}
assert a["quantile"] == 0.95, a
for k in ("fastest", "cheapest"):
    pick = a[k]; t = pick["values"]["threads"]
    assert pick["quantile_time"] == q[t], (k, pick, q)
    assert pick["cost"] == t * q[t], (k, pick)
# the cheapest by the quantile: 1 thread; the fastest: 8
assert a["cheapest"]["values"]["threads"] == 1 and a["fastest"]["values"]["threads"] == 8, a
PY
then ok "advise --quantile --json: the quantiles predict gives, cost = threads x quantile"
else bad "advise --quantile --json: the quantiles predict gives, cost = threads x quantile"; fi
if grep -q quantile point.txt; then bad "without --quantile, no quantile in the table"
else ok "without --quantile, no quantile in the table"; fi
advise --vary threads=1..8 --json >p.json
if grep -q quantile p.json; then bad "without --quantile, no quantile in the JSON"
else ok "without --quantile, no quantile in the JSON"; fi

expect_fail "advise --quantile 1" 2 "--quantile '1': expected a probability between 0 and 1" -- \
	advise --vary threads=1..8 --quantile 1
expect_fail "advise --quantile 0" 2 "--quantile '0': expected a probability" -- \
	advise --vary threads=1..8 --quantile 0
expect_fail "advise --quantile x" 2 "--quantile 'x': expected a probability" -- \
	advise --vary threads=1..8 --quantile x
expect_fail "advise --quantile beyond the residuals" 1 \
	"quantile 0.999 is beyond what the model's 100 calibration residuals tell" -- \
	advise --vary threads=1..8 --quantile 0.999
expect_fail "advise --quantile: a model without intervals" 1 \
	"the model has no prediction intervals: fit it again without --no-intervals" -- \
	"$pm" advise -m plain.json job.json --vary threads=1..8 --quantile 0.9

"$pm" help advise >h.txt
has "advise's help" h.txt '--quantile Q'

echo "advise_risk: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
