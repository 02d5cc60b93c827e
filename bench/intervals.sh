#!/usr/bin/env bash
# Prediction intervals on the bundled data (issue 22; docs/benchmarks.md,
# "Prediction intervals"): coverage of the 90 % interval and its median width
# against the narrowest that covers, per data set and held-out scheme, for
# each method bench/interval_bench.c compares; then what calibrating adds to
# a fit's time (the best of 3 runs of perfmodel fit with and without
# --no-intervals), and bench/intervals_synth.py's synthetic cases beyond the
# data. Reported, never asserted.
#
# usage: bench/intervals.sh BUILD_DIR [LEVEL]
set -eu
build=${1:?usage: bench/intervals.sh BUILD_DIR [LEVEL]}
level=${2:-0.9}
src=$(cd "$(dirname "$0")/.." && pwd)
bench=$build/bench/interval_bench
pm=$build/cli/perfmodel
# data, spec, the column to extrapolate along (the largest-scale one:
# threads and world_size take only two values)
sets="gemm_cpu:gemm:n lenet5_cpu:lenet5:batch_size ddp_mlp:ddp_mlp:batch_size"
cd "$src"
for s in $sets; do
	IFS=: read -r data spec col <<<"$s"
	for scheme in kfold:5 "extrapolate:$col"; do
		nice -n 19 "$bench" "data/$data.csv" "models/$spec.json" "$scheme" "$level"
	done
done
# beyond the data where the truth is known: synthetic cases, 1-3 range
# widths out (bench/intervals_synth.py; numpy and scipy)
nice -n 19 /usr/bin/python3 "$src/bench/intervals_synth.py" "$pm"
best() {	# the fastest of 3 runs of "$@", in seconds
	local b=
	for _ in 1 2 3; do
		local t0 t1 t
		t0=$(date +%s.%N)
		nice -n 19 "$@" >/dev/null 2>&1
		t1=$(date +%s.%N)
		t=$(echo "$t1 - $t0" | bc)
		if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then b=$t; fi
	done
	echo "$b"
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# fit time, s (best of 3): without intervals, with (5 fold fits)"
for s in $sets; do
	IFS=: read -r data spec col <<<"$s"
	a=$(best "$pm" fit "data/$data.csv" --spec "models/$spec.json" --form additive -q -o "$tmp/m.json" --no-intervals)
	b=$(best "$pm" fit "data/$data.csv" --spec "models/$spec.json" --form additive -q -o "$tmp/m.json")
	printf '%-12s %8.3f %8.3f\n' "$data" "$a" "$b"
done
