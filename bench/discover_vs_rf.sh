#!/usr/bin/env bash
# Issue 21's targets: on each data set — the three in data/ and the synthetic
# shapes of bench/synth_shapes.py (a U-shaped thread grid, an effect that
# switches on, curves that differ per level) — and for two validations
#   random  a seeded 2/3 train : 1/3 test split of the rows,
#   extrap  train on the rows with the smallest half of the distinct values of
#           one scaling column (the fourth field below), test on the larger,
# bench/rf_reference.py writes the split to files (the same rows for every
# tool) and measures a log-linear fit and two random forests on them; then on
# the training rows
#   - perfmodel discover with its defaults,
#   - perfmodel select with its defaults,
# and each model's MAPE on the held-out rows (perfmodel eval). It prints a
# table: every tool's MAPE, the best reference (the lowest of log-linear,
# forest and forest on log t), discover's ratio to it (the target: <= 1.1)
# and the formula discover found.
#
# usage: bench/discover_vs_rf.sh [PERFMODEL] [-- extra discover options]
#   PERFMODEL: the binary (default build/cli/perfmodel); needs python3-sklearn
#   (bench/setup-rf.sh installs it). Environment: SEED (split, fits; default 1),
#   OUT (work folder, default a temporary one, removed).
# shellcheck source=bench/rf_common.sh
. "$(dirname "$0")/rf_common.sh"
/usr/bin/python3 "$root/bench/synth_shapes.py" "$out/synth"

# name : data : spec : the column extrapolated along (threads and world_size
# take only the values 1 and 2 in data/, so the real sets scale up the work)
sets="gemm_cpu:$root/data/gemm_cpu.csv:$root/models/gemm.json:n
lenet5_cpu:$root/data/lenet5_cpu.csv:$root/models/lenet5.json:batch_size
ddp_mlp:$root/data/ddp_mlp.csv:$root/models/ddp_mlp.json:batch_size
u_threads:$out/synth/u_threads.csv:$out/synth/u_threads.json:intra_op
switch_on:$out/synth/switch_on.csv:$out/synth/switch_on.json:workers
device:$out/synth/device.csv:$out/synth/device.json:n"

printf '%-11s %-16s %9s %8s %8s %8s %8s %10s %8s %6s  %s\n' "data" "validation" "train/test" \
	"discover" "select" "loglin" "forest" "forest/log" "best ref" "ratio" " discovered formula"
while IFS=: read -r name data spec col; do
	for validation in random "extrap:$col"; do
		dir=$out/$name/${validation%%:*}
		split=()
		[ "$validation" = random ] || split=(--extrapolate "$col")
		ref=$(/usr/bin/python3 "$root/bench/rf_reference.py" "$data" "$spec" \
			--split-dir "$dir" --seed "$seed" "${split[@]}")
		"$pm" discover "$dir/train.csv" --spec "$spec" --seed "$seed" -o "$dir/discover.json" "$@" \
			>"$dir/discover.txt"
		"$pm" select "$dir/train.csv" --spec "$spec" --seed "$seed" -o "$dir/select.json" \
			>"$dir/select.txt"
		echo "$ref" | /usr/bin/python3 -c '
import json, sys
r = json.load(sys.stdin)
name, validation, disc, sel, model = sys.argv[1:6]
refs = {"loglin": r["loglinear_mape"], "forest": r["rf_mape"], "forest/log": r["rf_log_mape"]}
best = min(refs, key=refs.get)
ratio = float(disc) / refs[best]
print("%-11s %-16s %4d/%-4d %8s %8s %8.2f %8.2f %10.2f %8.2f %6.3f%s  %s" % (name, validation,
      r["train_rows"], r["test_rows"], disc, sel, r["loglinear_mape"], r["rf_mape"],
      r["rf_log_mape"], refs[best], ratio, "*" if ratio > 1.1 else " ",
      json.load(open(model))["formula"]))' \
			"$name" "$validation" "$(heldout "$dir/discover.json" "$dir/test.csv")" \
			"$(heldout "$dir/select.json" "$dir/test.csv")" "$dir/discover.json"
	done
done <<<"$sets"
echo "held-out MAPE %, seed $seed; ratio = discover / best ref (the lowest of loglin, forest,"
echo "forest/log), * where above the target 1.1; tables: ${OUT:-(set OUT= to keep them)}"
