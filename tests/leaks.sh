#!/usr/bin/env bash
# No leaks, no silent type changes (issue 33, item 4) end to end: role
# inference leaves out a part or a copy of the target (the DDP data's
# per-worker times, LeNet-5's time per 1000 samples) and says so, while
# GEMM's n stays an input; a leak named as an input is a warning with its
# R² alone; an empty or nan cell in a column of numbers is an error at its
# FILE:LINE:COL, or --drop-incomplete drops and counts its row.
# usage: leaks.sh PERFMODEL SOURCE_ROOT
set -u
pm=$(realpath "$1")
root=$(realpath "$2")
here=$(dirname "$(realpath "$0")")
. "$here/tap.sh"
ddp=$root/data/ddp_mlp.csv
lenet=$root/data/lenet5_cpu.csv
gemm=$root/data/gemm_cpu.csv
quick=(--threads 1 --maxiter 30 --no-intervals --form additive)

# inputs MODEL: the model's input names, one a line
inputs() { python3 -c "import json, sys
print('\n'.join(i['name'] for i in json.load(open(sys.argv[1]))['inputs']))" "$1"; }

# ---- inference leaves the leaks out, and says so
if "$pm" discover "$ddp" --target time_per_iter_s --max-terms 1 --threads 1 --no-intervals \
	-o disc.json >disc.txt 2>disc.err && inputs disc.json >in.txt && ! grep -q t_worker in.txt &&
	[ "$(grep -c "warning: column 't_worker_[12]' is left out of the inputs inferred, as a part or a copy of the target: alone it explains R² = 0.99" disc.err)" -eq 2 ] &&
	grep -q "left out of the inputs inferred" disc.json; then
	ok "discover, roles inferred: t_worker_1, t_worker_2 left out, said on stderr and in model.json"
else
	bad "discover, roles inferred: t_worker_1, t_worker_2 left out" "$(cat disc.err)"
fi
if "$pm" fit "$ddp" --target time_per_iter_s "${quick[@]}" -o fit.json 2>fit.err >/dev/null &&
	inputs fit.json >in.txt && ! grep -q t_worker in.txt &&
	grep -qx load_imbalance_factor in.txt && grep -qx hidden in.txt; then
	ok "fit, roles inferred: the worker times left out (t_worker_2's empty cells no error), the load-imbalance factor kept"
else
	bad "fit, roles inferred: the worker times left out" "$(cat fit.err)"
fi
for pair in time_per_iter_s:time_per_1000_samples_s time_per_1000_samples_s:time_per_iter_s; do
	t=${pair%%:*} other=${pair#*:}
	if "$pm" fit "$lenet" --target "$t" "${quick[@]}" -o lenet.json 2>lenet.err >/dev/null &&
		inputs lenet.json >in.txt && ! grep -qx "$other" in.txt && grep -qx batch_size in.txt &&
		grep -q "column '$other' is left out.*it is the target times a factor of 5 values" lenet.err; then
		ok "LeNet-5, target $t: $other (the target in other units) left out"
	else
		bad "LeNet-5, target $t: $other left out" "$(cat lenet.err)"
	fi
done
if "$pm" fit "$gemm" --target time_s "${quick[@]}" -o gemm.json 2>gemm.err >/dev/null &&
	inputs gemm.json | grep -qx n && ! grep -q "part or a copy" gemm.err; then
	ok "GEMM: n (t ~ n^3, R² 0.98 alone in log space) stays an input"
else
	bad "GEMM: n stays an input" "$(cat gemm.err)"
fi

# ---- named: used, with a warning
if "$pm" fit "$ddp" --target time_per_iter_s --intrinsic hidden,t_worker_1 "${quick[@]}" \
	--json -o named.json >named.out 2>named.err &&
	grep -q "warning: column 't_worker_1' looks like a part or a copy of the target 'time_per_iter_s', not a parameter of the run: alone it explains R² = 0.9975 of the target" named.err &&
	inputs named.json | grep -qx t_worker_1 && grep -q "looks like a part or a copy" named.out; then
	ok "--intrinsic t_worker_1: used, a warning with its R² alone (stderr, --json)"
else
	bad "--intrinsic t_worker_1: a warning" "$(cat named.err)"
fi

# ---- gaps in a column of numbers
awk 'NR == 4 { sub(/^[0-9]+,/, "nan,") } { print }' "$gemm" >nan.csv
expect_fail "a nan cell in an input: an error at FILE:LINE:COL" 1 \
	"^perfmodel: nan.csv:4:1: column 'n': 'nan' is not a finite number \(in a column of numbers: --drop-incomplete drops" -- \
	"$pm" fit nan.csv --target time_s "${quick[@]}"
expect_fail "a nan cell, n inferred: numeric, not a categorical" 1 "nan.csv:4:1: column 'n'" -- \
	"$pm" fit nan.csv --target time_s --threads 1 --maxiter 30 --no-intervals
expect_fail "select: the same error" 1 "nan.csv:4:1: column 'n'" -- \
	"$pm" select nan.csv --target time_s --threads 1 --maxiter 30 --cv 3
awk -F, 'NR == 6 { $3 = "" } { print }' OFS=, "$gemm" >empty.csv
expect_fail "an empty target cell: an error at FILE:LINE:COL" 1 \
	"^perfmodel: empty.csv:6:[0-9]+: column 'time_s': empty cell" -- \
	"$pm" fit empty.csv --target time_s "${quick[@]}"
if "$pm" fit nan.csv --target time_s --intrinsic threads "${quick[@]}" -o unused.json \
	2>unused.err >/dev/null; then
	ok "a nan in a column the model does not use is no error"
else
	bad "a nan in a column the model does not use is no error" "$(cat unused.err)"
fi
if "$pm" fit nan.csv --target time_s "${quick[@]}" --drop-incomplete -o drop.json \
	>drop.txt 2>drop.err &&
	grep -q "warning: dropped 1 incomplete row of nan.csv (empty or nan in n); 99 left" drop.err &&
	grep -q "nan.csv, 99 rows" drop.txt; then
	ok "--drop-incomplete: the row dropped and counted"
else
	bad "--drop-incomplete: the row dropped and counted" "$(cat drop.err)"
fi
if "$pm" fit "$ddp" --target time_per_iter_s --intrinsic hidden,t_worker_2 "${quick[@]}" \
	--drop-incomplete -o ddp2.json 2>ddp2.err >/dev/null &&
	grep -q "dropped 104 incomplete rows of .*ddp_mlp.csv (empty or nan in t_worker_2); 96 left" ddp2.err; then
	ok "--drop-incomplete: DDP's single-worker rows dropped for t_worker_2"
else
	bad "--drop-incomplete: DDP's single-worker rows" "$(cat ddp2.err)"
fi
printf 'n,t,u\n1,,1\n2,nan,\n3,2,NAN\n' >allgap.csv
expect_fail "--drop-incomplete with every row incomplete: an error" 1 \
	"every row of allgap.csv has an empty or nan cell in t, u: none is left to fit" -- \
	"$pm" fit allgap.csv --target n --intrinsic t,u "${quick[@]}" --drop-incomplete
printf '{"id": "d", "command": "fit", "data": "%s", "target": "time_s", "form": "additive", "maxiter": 30, "drop-incomplete": true}\n' "$PWD/nan.csv" >jobs.jsonl
if "$pm" batch jobs.jsonl -o results.jsonl 2>batch.err && grep -q "dropped 1 incomplete row" results.jsonl; then
	ok "batch: \"drop-incomplete\": true"
else
	bad "batch: \"drop-incomplete\": true" "$(cat batch.err results.jsonl)"
fi
for c in fit select discover sweep; do
	if "$pm" help "$c" | grep -q -- "--drop-incomplete"; then
		ok "help $c: --drop-incomplete"
	else
		bad "help $c: --drop-incomplete"
	fi
done

echo "1..$((pass + fail))"
[ "$fail" -eq 0 ]
