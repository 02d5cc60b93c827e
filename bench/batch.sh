#!/usr/bin/env bash
# perfmodel batch over MPI ranks against one process (issues 23 and 38,
# docs/benchmarks.md "Batch over MPI"): a batch of the bundled data sets
# (data/*.csv with models/*.json) × SEEDS seeds, each fitted by eq. 4.4
# (form multiplicative: fits of a few hundred milliseconds), and one job
# that fails (its data file does not exist): 25 jobs by default. It runs
# the batch without MPI on one thread, then under `mpirun -np 2` with one
# thread per rank, and prints each run's wall time (the median of REPEATS),
# the speed-up, each command's exit status
# (1: a job failed; never an MPI abort), and whether the two results files
# are the same bytes. The target (issue 38): >= 1.8x on 2 idle cores.
#
# usage: bench/batch.sh [BUILD] [SEEDS] [REPEATS]
#   BUILD    the build folder (default build): its cli/perfmodel and
#            cli/perfmodel-batch-mpi
#   SEEDS    seeds 1..SEEDS of every data set (default 8)
#   REPEATS  runs of each, alternating (default 3)
#
# The whole command is timed (reading, fitting, writing; mpirun's start-up
# too, which is part of what a user waits for). The load of the machine
# (1-minute load average) is printed before and after: the speed-up needs
# two idle cores. Timings are printed, never asserted.
set -u
root=$(realpath "$(dirname "$0")/..")
build=$(realpath "${1:-$root/build}")
seeds=${2:-8}
repeats=${3:-3}
pm=$build/cli/perfmodel
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ ! -x "$build/cli/perfmodel-batch-mpi" ] || ! command -v mpirun >/dev/null; then
	echo "batch: no perfmodel-batch-mpi or mpirun (build with -Dmpi=enabled)" >&2
	exit 1
fi
for spec in "$root"/models/*.json; do
	name=$(basename "$spec" .json)
	data=$(ls "$root"/data/"$name"*.csv 2>/dev/null | head -1)
	[ -n "$data" ] || continue
	for s in $(seq "$seeds"); do
		echo "{\"id\": \"$name-$s\", \"data\": \"$data\", \"spec\": \"$spec\", \"seed\": $s, \"form\": \"multiplicative\"}"
	done
done >"$work/jobs.jsonl"
echo "{\"id\": \"fails\", \"data\": \"$work/missing.csv\", \"spec\": \"$root/models/gemm.json\"}" >>"$work/jobs.jsonl"
njobs=$(wc -l <"$work/jobs.jsonl")

now() { date +%s.%N; }
# timed OUT COMMAND...: seconds the command took; its exit status and
# stderr in $work/OUT.*
timed() {
	local out=$1 t0 rc
	shift
	t0=$(now)
	"$@" >/dev/null 2>"$work/$out.err"
	rc=$?
	echo "$(now) - $t0" | bc -l
	echo "$rc" >"$work/$out.rc"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "batch: $njobs jobs ($(ls "$root"/models/*.json | wc -l) data sets x $seeds seeds, eq. 4.4, and one that fails), $repeats runs each"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
# mpirun as users type it, and with --mca odls_base_sigkill_timeout 0:
# Open MPI 4.1's mpirun, seeing a rank's non-zero exit status (a job
# failed), takes the job for aborted and waits that timeout (1 s by
# default) for ranks that have already ended (docs/batch.md)
mpi=(mpirun --allow-run-as-root --oversubscribe -np 2)
one=()
two=()
fast=()
for _ in $(seq "$repeats"); do
	one+=("$(timed one "$pm" batch "$work/jobs.jsonl" -o "$work/one.jsonl" --threads 1)")
	two+=("$(timed two "${mpi[@]}" "$pm" batch "$work/jobs.jsonl" -o "$work/two.jsonl" \
		--threads 1)")
	fast+=("$(timed fast "${mpi[@]}" --mca odls_base_sigkill_timeout 0 "$pm" batch \
		"$work/jobs.jsonl" -o "$work/fast.jsonl" --threads 1)")
done
t1=$(printf '%s\n' "${one[@]}" | median)
t2=$(printf '%s\n' "${two[@]}" | median)
t3=$(printf '%s\n' "${fast[@]}" | median)
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
printf 'one process, 1 thread:         %7.2f s  (runs: %s)\n' "$t1" "$(printf '%.2f ' "${one[@]}")"
printf 'mpirun -np 2, 1 thread:        %7.2f s  (runs: %s)  %.2fx\n' "$t2" \
	"$(printf '%.2f ' "${two[@]}")" "$(echo "$t1 / $t2" | bc -l)"
printf '  with sigkill timeout 0:      %7.2f s  (runs: %s)  %.2fx\n' "$t3" \
	"$(printf '%.2f ' "${fast[@]}")" "$(echo "$t1 / $t3" | bc -l)"
echo "target: >= 1.8x on 2 idle cores"
printf 'exit status: %s one process, %s mpirun, %s with timeout 0 (1: a job failed)\n' \
	"$(cat "$work/one.rc")" "$(cat "$work/two.rc")" "$(cat "$work/fast.rc")"
if grep -q "MPI_ABORT" "$work/two.err" "$work/fast.err"; then
	echo "mpirun: a rank called MPI_Abort:"
	cat "$work/two.err" "$work/fast.err"
	exit 1
fi
if cmp -s "$work/one.jsonl" "$work/two.jsonl" && cmp -s "$work/one.jsonl" "$work/fast.jsonl"; then
	echo "results: the same bytes"
else
	echo "results: DIFFER"
	exit 1
fi
