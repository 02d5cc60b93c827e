#!/usr/bin/env bash
# Issue 10's check: on each data set in data/, split the rows once (seeded,
# 2/3 train : 1/3 test, written to files by bench/rf_reference.py so that
# both tools see the same rows), then on the training rows
#   - perfmodel select with its defaults (the model it chooses),
#   - perfmodel fit --form additive (the thesis's eq. 4.4, MAE; fit with no
#     form chooses as select does, issue 33),
#   - a random forest (scikit-learn defaults; and one fitted to log time),
# and print every one's MAPE on the held-out rows, side by side.
#
# usage: bench/select_vs_rf.sh [PERFMODEL] [-- extra select options]
#   PERFMODEL: the binary (default build/cli/perfmodel); needs python3-sklearn
#   (bench/setup-rf.sh installs it). Environment: SEED (split, fits; default 1),
#   OUT (work folder, default a temporary one, removed).
# shellcheck source=bench/rf_common.sh
. "$(dirname "$0")/rf_common.sh"

printf '%-12s %11s  %-28s %9s %9s %9s %9s\n' "data" "train/test" "select's choice (loss)" \
	"select" "eq. 4.4" "forest" "forest/log"
for pair in lenet5_cpu:lenet5 ddp_mlp:ddp_mlp gemm_cpu:gemm; do
	name=${pair%%:*}
	spec=$root/models/${pair##*:}.json
	dir=$out/$name
	rf=$(/usr/bin/python3 "$root/bench/rf_reference.py" "$root/data/$name.csv" "$spec" \
		--split-dir "$dir" --seed "$seed")
	"$pm" select "$dir/train.csv" --spec "$spec" --seed "$seed" -o "$dir/select.json" "$@" \
		>"$dir/select.txt"
	"$pm" fit "$dir/train.csv" --spec "$spec" --seed "$seed" --form additive -o "$dir/thesis.json" -q
	choice=$(sed -n "s/^chosen: \([^ ]*\) (loss \([a-z]*\)), .*$/\1 (\2)/p" "$dir/select.txt")
	echo "$rf" | /usr/bin/python3 -c '
import json, sys
r = json.load(sys.stdin)
name, choice, sel, thesis = sys.argv[1:5]
print("%-12s %5d/%-5d  %-28s %9s %9s %9.2f %9.2f" % (name, r["train_rows"], r["test_rows"],
      choice, sel, thesis, r["rf_mape"], r["rf_log_mape"]))' \
		"$name" "$choice" "$(heldout "$dir/select.json" "$dir/test.csv")" \
		"$(heldout "$dir/thesis.json" "$dir/test.csv")"
done
echo "held-out MAPE %, seed $seed; select's tables: ${OUT:-(set OUT= to keep them)}"
