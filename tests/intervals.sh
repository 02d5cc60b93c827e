#!/usr/bin/env bash
# End-to-end tests of prediction intervals (issue 22, items 1-2): fit keeps
# them unless --no-intervals, predict --interval and --quantiles print them,
# and every misuse is an error.
# usage: intervals.sh PERFMODEL SOURCE_ROOT
set -u
pm=$(realpath "$1")
root=$(realpath "$2")
here=$(dirname "$(realpath "$0")")
. "$here/tap.sh"

gemm=(fit --form additive "$root/data/gemm_cpu.csv" --spec "$root/models/gemm.json")
"$pm" "${gemm[@]}" -q -o g.json
has "fit keeps intervals by default" g.json '"intervals": \{' '"method": "cv-log-residual-quantiles"' \
	'"folds": 5' '"residuals": 100' '"n": \[128, 1536\]' '"threads": \[1, 2\]'
"$pm" "${gemm[@]}" -o g2.json >fit.txt
has "fit's report says what the intervals are" fit.txt '^intervals ' \
	'90 % of the 100 fitted rows, each predicted by a fit without it, came within 0.8[0-9]* to 1.8[0-9]* times'
"$pm" "${gemm[@]}" -o plain.json --no-intervals >plainfit.txt
if grep -q '^intervals' plainfit.txt; then bad "--no-intervals: no intervals in the report"
else ok "--no-intervals: no intervals in the report"; fi
if grep -q '"intervals"' plain.json; then bad "--no-intervals keeps none" "$(grep -c intervals plain.json)"
else ok "--no-intervals keeps none"; fi
# the parameters are the same with and without
if diff <(sed -n '/"parameters"/,/"fit"/p' plain.json) \
	<(sed -n '/"parameters"/,/"warnings"\|"intervals"/p' g.json | sed '/"intervals"/d;/"warnings"/d') \
	| grep -q '^[<>] *"\(value\|scaled\)"'; then
	bad "intervals leave the fit's parameters as they are"
else ok "intervals leave the fit's parameters as they are"; fi
"$pm" "${gemm[@]}" -q -o one.json --threads 1
"$pm" "${gemm[@]}" -q -o two.json --threads 2
if diff <(sed -n '/"intervals"/,/"fit"/p' one.json) <(sed -n '/"intervals"/,/"fit"/p' two.json) >/dev/null
then ok "the same intervals on 1 and 2 threads"; else bad "the same intervals on 1 and 2 threads"; fi

printf 'n,threads,host\n512,1,a\n1024,2,b\n4096,2,c\n' >points.csv
"$pm" predict -m g.json points.csv --interval 0.9 >i.csv
has "predict --interval: lower, upper and extrapolated after predicted" i.csv \
	'^n,threads,host,predicted,lower,upper,extrapolated$' '^512,1,a,.*,0$' '^4096,2,c,.*,1$'
# lower < predicted < upper on every row; wider (relative) beyond the data
if awk -F, 'NR > 1 { if (!($5 < $4 && $4 < $6)) bad = 1; w[NR] = $6 / $5 }
	END { exit bad || !(w[4] > w[3] && w[4] > w[2]) }' i.csv
then ok "lower < predicted < upper, wider extrapolated"; else bad "lower < predicted < upper, wider extrapolated" "$(cat i.csv)"; fi
"$pm" predict -m g.json points.csv --quantiles 0.5,0.95,0.05 --interval 0.8 >q.csv
has "predict --quantiles: a column per quantile, after the interval's" q.csv \
	'^n,threads,host,predicted,lower,upper,q0.5,q0.95,q0.05,extrapolated$'
if awk -F, 'NR > 1 { if (!($9 < $7 && $7 < $8 && $9 < $5 && $6 < $8)) bad = 1 } END { exit bad }' q.csv
then ok "quantiles grow with q, the 80 % interval within the 5-95 % quantiles"
else bad "quantiles grow with q, the 80 % interval within the 5-95 % quantiles" "$(cat q.csv)"; fi
"$pm" predict -m g.json points.csv --interval 0.9 --json >i.json
has "predict --json --interval: members" i.json \
	'"predicted": [0-9.e-]+, "lower": [0-9.e-]+, "upper": [0-9.e-]+, "extrapolated": false\}' \
	'"host": "c", "predicted": .*"extrapolated": true\}'
# the same numbers as CSV
if [ "$(grep -o '"lower": [0-9.e-]*' i.json | head -1 | cut -d' ' -f2)" = \
	"$(sed -n 2p i.csv | cut -d, -f5)" ]; then ok "JSON and CSV agree"
else bad "JSON and CSV agree" "$(head -2 i.json)" "$(head -2 i.csv)"; fi
printf '{"model": "g.json", "points": [{"n": 512, "threads": 2}]}\n' >config.json
"$pm" predict config.json --quantiles 0.5 >c.csv
has "predict CONFIG --quantiles" c.csv '^n,threads,predicted,q0.5,extrapolated$' '^512,2,[0-9.e-]+,[0-9.e-]+,0$'
"$pm" predict -m g.json points.csv >p.csv
has "predict without them prints what it did" p.csv '^n,threads,host,predicted$'

# a throughput model: its quantiles turned into throughput still grow with q
awk -F, 'NR == 1 { print "n,threads,rate"; next } { printf "%s,%s,%.17g\n", $1, $2, 1 / $3 }' \
	"$root/data/gemm_cpu.csv" >rate.csv
"$pm" fit --form additive rate.csv --target rate --intrinsic n --extrinsic threads --target-kind throughput -q -o r.json
"$pm" predict -m r.json points.csv --interval 0.9 >r.csv
if awk -F, 'NR > 1 { if (!($5 < $4 && $4 < $6)) bad = 1 } END { exit bad || NR != 4 }' r.csv
then ok "a throughput's interval brackets its prediction"; else bad "a throughput's interval brackets its prediction" "$(cat r.csv)"; fi
"$pm" "${gemm[@]}" -q -o s.json --seeds 2
has "fit --seeds: the best seed's model is calibrated" s.json '"intervals": \{'
"$pm" "${gemm[@]}" -q -o x.json --validate extrapolate:n
has "fit --validate extrapolate: calibrated on the rows fitted" x.json '"residuals": 58' '"n": \[128, 384\]'
# fewer than 20 rows: leave-one-out, and the report says how far they
# reach; 4 rows: none, and the warning and predict say why
printf 'n,threads,time_s\n1,1,1\n2,1,2.1\n4,1,3.9\n8,1,8.2\n16,1,16\n32,1,31\n' >tiny.csv
"$pm" fit --form additive tiny.csv --target time_s --intrinsic n -o t.json >t.out 2>t.err
has "6 rows: intervals by leave-one-out, and how far they reach" t.out \
	'^  71.4 % of the 6 fitted rows, each predicted by a fit without it \(leave-one-out\), came within [0-9.]+ to [0-9.]+ times their prediction$' \
	'^  predict --interval 0.71 at most: 6 residuals tell nothing further out'
has "6 rows: intervals in model.json" t.json '"residuals": 6'
printf 'n\n64\n' >n64.csv
"$pm" predict -m t.json n64.csv --interval 0.7 >t.csv
if awk -F, 'NR == 2 { exit !($3 < $2 && $2 < $4) }' t.csv; then ok "6 rows: a 70 % interval brackets the prediction"
else bad "6 rows: a 70 % interval brackets the prediction" "$(cat t.csv)"; fi
head -n 5 tiny.csv >tiny4.csv
"$pm" fit --form additive tiny4.csv --target time_s --intrinsic n -q -o t4.json 2>t4.err
has "4 rows: no intervals, and the warning says why" t4.err \
	'no prediction intervals: 4 rows are too few to calibrate them \(each predicted by a fit of the others, they need 5\)'
expect_fail "4 rows: predict --interval repeats why" 1 \
	"the model has no prediction intervals: 4 rows are too few to calibrate them" -- \
	"$pm" predict -m t4.json n64.csv --interval 0.5

expect_fail "a model without intervals" 1 "the model has no prediction intervals: it was fitted with --no-intervals" -- \
	"$pm" predict -m plain.json points.csv --interval 0.9
for v in 0 1 1.5 -0.2 abc 0.9x ''; do
	expect_fail "--interval '$v'" 2 "--interval '$v': expected a probability between 0 and 1" -- \
		"$pm" predict -m g.json points.csv --interval "$v"
done
expect_fail "--quantiles with a duplicate" 2 "--quantiles: 0.50 is given twice" -- \
	"$pm" predict -m g.json points.csv --quantiles 0.5,0.50
expect_fail "--quantiles with an empty item" 2 "--quantiles '0.5,,0.9': expected probabilities" -- \
	"$pm" predict -m g.json points.csv --quantiles 0.5,,0.9
expect_fail "--quantiles 1" 2 "--quantiles: '1' is not a probability between 0 and 1" -- \
	"$pm" predict -m g.json points.csv --quantiles 0.5,1
expect_fail "--quantiles not a number" 2 "'x' is not a probability" -- \
	"$pm" predict -m g.json points.csv --quantiles x
expect_fail "--interval twice" 2 "give --interval once" -- \
	"$pm" predict -m g.json points.csv --interval 0.9 --interval 0.8
expect_fail "a quantile beyond 100 residuals" 1 "quantile 0.999 is beyond what the model's 100 calibration residuals tell" -- \
	"$pm" predict -m g.json points.csv --quantiles 0.999
expect_fail "a 99.5 % interval of 100 residuals" 1 "100 calibration residuals" -- \
	"$pm" predict -m g.json points.csv --interval 0.995
# the report's band of a speedup model: in the speedup (predict --interval's
# bounds), in target_nodes.svg, and no time plot
printf 'nodes,speedup\n' >amdahl.csv
for n in 1 2 4 8 16 32 64 1 2 4 8 16 32 64 1 2 4 8 16 32 64; do
	awk -v n=$n 'BEGIN { printf "%d,%.17g\n", n, 1 / (0.1 + 0.9 / n) * (1 + 0.01 * (n % 3)) }'
done >>amdahl.csv
"$pm" fit --form additive amdahl.csv --target speedup --target-kind speedup --extrinsic nodes -q -o kind.json \
	--plot-dir kplots
if [ -f kplots/target_nodes.svg ] && [ ! -e kplots/time_nodes.svg ] &&
	[ "$(grep -c '<polygon' kplots/target_nodes.svg)" -eq 1 ] &&
	grep -q '<title>Predicted speedup against nodes</title>' kplots/target_nodes.svg
then ok "a speedup model's report: target_nodes.svg with its band"
else bad "a speedup model's report: target_nodes.svg with its band" "$(ls kplots)"; fi
"$pm" help predict >h.txt
has "predict's help" h.txt '--interval L' '--quantiles Q' 'extrapolated'
"$pm" help fit >h.txt
has "fit's help" h.txt '--no-intervals'

echo "intervals: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
