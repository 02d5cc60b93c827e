#!/usr/bin/env bash
# End-to-end tests of --validate (issue 20, item 5) on small tables made
# here: stratified folds with rare levels, leave-one-out below K rows,
# extrapolation along a column, a file of held-out rows, and every misuse.
# usage: validate.sh PERFMODEL
set -u
pm=$(realpath "$1")
here=$(dirname "$(realpath "$0")")
. "$here/tap.sh"

# Scaling columns only: t = 100 / (threads*nodes)^0.9 + 2, 2 % ripple.
awk 'BEGIN { print "threads,nodes,time"; k = 0
	for (t = 1; t <= 32; t *= 2) for (n = 1; n <= 4; n *= 2) {
		k++; printf "%d,%d,%.6g\n", t, n, (100 / (t * n)^0.9 + 2) * (1 + 0.02 * sin(k * 1.7)) } }' >scale.csv
# A categorical with a common, a rare and a one-row level.
awk 'BEGIN { print "n,device,time"; k = 0
	split("cpu gpu tpu", dev, " "); split("10 3 1", cnt, " "); split("2 0.5 0.1", a, " ")
	for (d = 1; d <= 3; d++) for (i = 1; i <= cnt[d]; i++) {
		k++; n = 100 * i; printf "%d,%s,%.6g\n", n, dev[d], (a[d] * n + 5) * (1 + 0.01 * sin(k)) } }' >dev.csv
printf 'n,time\n1,2\n2,3\n4,5\n8,9\n' >tiny.csv
# the gpu level only at the largest n: extrapolating along n cannot predict it
printf 'n,device,time\n1,cpu,2\n2,cpu,3\n4,cpu,5\n8,cpu,9\n16,gpu,4\n32,gpu,7\n' >late.csv
roles=(--target time --extrinsic threads,nodes)
params() { sed -n '/"parameters"/,/"fit"/p' "$1"; }	# the fitted parameters of a model.json

# ---- extrapolation: fit the small values, measure the large
if "$pm" fit --form additive scale.csv "${roles[@]}" --validate extrapolate:threads -o x.json >x.txt 2>x.err; then
	has "fit --validate extrapolate: trains on the smallest half, says so" x.txt \
		'extrapolation along threads: fitted to values <= 4 \(3 of 6 values, 9 rows\), measured on 8 to 32 \(9 rows\)' \
		'^  rows +9 +9$'
	has "extrapolate: model.json names the scheme" x.json '"validation": "extrapolate:threads:0.5"' \
		'"description": "extrapolation along threads'
else
	bad "fit --validate extrapolate" "$(cat x.err)"
fi
"$pm" fit --form additive scale.csv "${roles[@]}" --validate extrapolate:threads:0.7 -q -o x7.json
has "extrapolate:COL:0.7 trains on 4 of 6 values" x7.json 'values <= 8 \(4 of 6 values, 12 rows\)'
# the model of an extrapolation is the fit of its training rows alone
awk -F, 'NR == 1 || $1 <= 4' scale.csv >small.csv
awk -F, 'NR == 1 || $1 > 4' scale.csv >large.csv
"$pm" fit --form additive small.csv "${roles[@]}" --test large.csv -q -o byhand.json
if [ -n "$(params x.json)" ] && diff <(params x.json) <(params byhand.json) >/dev/null; then
	ok "extrapolate fits the training rows alone (as --test on a split by hand)"
else
	bad "extrapolate fits the training rows alone" "$(grep -A3 '"a0"' x.json byhand.json)"
fi
check_predict() { "$pm" predict -m x.json <(printf 'threads,nodes\n64,1\n') >p.txt 2>&1; }
if check_predict && grep -q '^64,1,' p.txt; then ok "an extrapolated model predicts"; else
	bad "an extrapolated model predicts" "$(cat p.txt)"; fi

# ---- k folds and leave-one-out for fit
"$pm" fit --form additive scale.csv "${roles[@]}" --validate kfold:3 -o k.json >k.txt 2>&1
has "fit --validate kfold:3: the folds' means as the test column" k.txt \
	'^  rows +18 +18$' 'mean over the folds' '3-fold cross-validation'
has "kfold: model.json" k.json '"validation": "kfold:3"'
"$pm" fit --form additive scale.csv "${roles[@]}" -q -o plain.json
if [ -n "$(params k.json)" ] && diff <(params plain.json) <(params k.json) >/dev/null; then
	ok "kfold validates the fit of every row without changing it"
else
	bad "kfold validates without changing the fit" "$(diff plain.json k.json | head)"
fi
"$pm" fit --form additive scale.csv "${roles[@]}" --validate kfold:3 --threads 1 -q -o k1.json
"$pm" fit --form additive scale.csv "${roles[@]}" --validate kfold:3 --threads 2 -q -o k2.json
if cmp -s <(sed '/"run"/,$d' k1.json) <(sed '/"run"/,$d' k2.json); then
	ok "kfold: the same model.json for 1 and 2 threads"
else
	bad "kfold: the same model.json for 1 and 2 threads" "$(diff k1.json k2.json | head)"
fi
"$pm" fit --form additive scale.csv "${roles[@]}" --validate kfold:3 --split-seed 9 -q -o k9.json
if ! cmp -s <(sed -n '/"test"/,/}/p' k.json) <(sed -n '/"test"/,/}/p' k9.json); then
	ok "--split-seed deals other folds"
else
	bad "--split-seed deals other folds" "$(sed -n '/"test"/,/}/p' k9.json)"
fi
"$pm" fit --form additive scale.csv "${roles[@]}" --validate loo -o l.json >l.txt 2>&1
has "fit --validate loo: one fold per row, R^2 of one row n/a" l.txt 'leave-one-out \(18 folds\)' \
	'^  R\^2 +[0-9.]+ +n/a'

# ---- select: stratified folds, leave-one-out below K rows
if "$pm" select dev.csv --target time --cv 5 -o d.json >d.txt 2>d.err; then
	has "select: folds stratified by level; a one-row level is kept and named" d.txt \
		'5-fold cross-validation, stratified by device; 1 row never held out \(level .tpu. of device'
else
	bad "select with a rare level (was: unknown level in a fold)" "$(cat d.err)"
fi
"$pm" select tiny.csv --target time -o t.json >t.txt 2>&1
has "select: fewer rows than folds is leave-one-out" t.txt \
	'leave-one-out \(4 rows are fewer than 5 folds\)$' ' n/a '
"$pm" select scale.csv "${roles[@]}" --validate extrapolate:threads --json -o s.json >s.out 2>s.txt
has "select --validate extrapolate chooses by extrapolation" s.out '"validation": "extrapolate:threads:0.5"' \
	'"folds": 1,' '"kept": 9,'
has "select --validate extrapolate: the table says so" s.txt 'model selection: extrapolation along threads'
"$pm" sweep scale.csv "${roles[@]}" --validate extrapolate:threads --lambda 1e-3:1e-1:2 --json >w.out 2>&1
has "sweep --validate extrapolate" w.out '"validation": "extrapolate:threads:0.5"' '"folds": 1,'
# a file of held-out rows: the same as --test FILE
"$pm" fit --form additive small.csv "${roles[@]}" --validate large.csv -q -o f.json
if cmp -s <(sed '/"run"/,$d' f.json) <(sed '/"run"/,$d' byhand.json); then
	ok "--validate FILE is --test FILE"
else
	bad "--validate FILE is --test FILE" "$(diff f.json byhand.json | head)"
fi

# ---- misuse
expect_fail "kfold:1" 2 "kfold:K needs a whole number of folds" -- \
	"$pm" fit --form additive scale.csv "${roles[@]}" --validate kfold:1
expect_fail "kfold:x" 2 "not 'x'" -- "$pm" fit --form additive scale.csv "${roles[@]}" --validate kfold:x
expect_fail "extrapolate without a column" 2 "extrapolate needs a column" -- \
	"$pm" select scale.csv "${roles[@]}" --validate extrapolate
expect_fail "extrapolate: a fraction of 1.5" 2 "between 0 and 1, not '1.5'" -- \
	"$pm" sweep scale.csv "${roles[@]}" --validate extrapolate:threads:1.5
expect_fail "extrapolate: no such column" 1 "no column 'nope' in scale.csv to extrapolate along" -- \
	"$pm" fit --form additive scale.csv "${roles[@]}" --validate extrapolate:nope -o out.json
expect_fail "extrapolate: a text column" 1 "extrapolation along device: the column is not numeric" -- \
	"$pm" fit --form additive dev.csv --target time --validate extrapolate:device -o out.json
printf 'n,k,time\n1,3,2\n2,3,3\n4,3,5\n' >flat.csv
expect_fail "extrapolate: one distinct value" 1 "two or more distinct values; it has 1" -- \
	"$pm" fit --form additive flat.csv --target time --intrinsic n --validate extrapolate:k -o out.json
expect_fail "extrapolate: a level only in the rows extrapolated to" 1 \
	"level 'gpu' of device is only in rows with n > 4" -- \
	"$pm" fit --form additive late.csv --target time --validate extrapolate:n -o out.json
expect_fail "--validate and --test" 2 "exclude each other" -- \
	"$pm" fit --form additive scale.csv "${roles[@]}" --validate kfold --test scale.csv
expect_fail "--validate and --test-fraction" 2 "exclude each other" -- \
	"$pm" sweep scale.csv "${roles[@]}" --validate loo --test-fraction 0.3
expect_fail "--cv and --validate" 2 "--cv K is --validate kfold:K" -- \
	"$pm" select scale.csv "${roles[@]}" --validate kfold:3 --cv 3
expect_fail "--cv-seed with extrapolate" 2 "--cv-seed deals k folds" -- \
	"$pm" select scale.csv "${roles[@]}" --validate extrapolate:threads --cv-seed 3
expect_fail "--split-seed with loo" 2 "--split-seed needs --test-fraction or --validate kfold" -- \
	"$pm" fit --form additive scale.csv "${roles[@]}" --validate loo --split-seed 3
expect_fail "a file that is not there" 1 "nofile.csv" -- \
	"$pm" fit --form additive scale.csv "${roles[@]}" --validate nofile.csv -o out.json

echo "validate: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
