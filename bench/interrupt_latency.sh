#!/usr/bin/env bash
# How long perfmodel takes to honour SIGINT, in every phase, on big data:
# the seconds from the signal to the process's exit (wall), the CPU seconds
# it spent in that time (user + system: on a shared machine the wall time
# is this stretched by the other jobs), the exit status, and whether the
# run said it was interrupted (stderr) and, for fit, marked its model file.
# Timings are printed, never asserted (docs/reliability.md has the numbers
# measured; tests/interrupt.sh checks the behaviour in CI). Needs GNU time
# (/usr/bin/time) and /proc.
#
# usage: bench/interrupt_latency.sh [PERFMODEL] [ROWS] [THREADS]
#   PERFMODEL  the binary (default build/cli/perfmodel)
#   ROWS       rows of each generated data set (default 300000)
#   THREADS    --threads of every run (default 2)
#
# Each case starts a command, waits DELAY seconds (chosen for 300 000 rows
# on a 2-CPU machine to land in the phase named), sends SIGINT and waits.
set -u
# job control: a background command of a script otherwise starts with
# SIGINT ignored, and a command that keeps the default action (lif) would
# not see it at all; ^C at a terminal reaches it with the default action
set -m
root=$(realpath "$(dirname "$0")/..")
pm=$(realpath "${1:-$root/build/cli/perfmodel}")
rows=${2:-300000}
threads=${3:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

big() {	# big NAME TARGET_COLUMN JITTERED_COLUMN: data/NAME.csv grown to $rows rows
	awk -F, -v OFS=, -v tc="$2" -v jc="$3" -v rows="$rows" \
		-f "$root/bench/replicate_rows.awk" "$root/data/$1.csv" >"$1.csv"
}
big lenet5_cpu 13 7	# learning_rate
big gemm_cpu 3 1	# n
big ddp_mlp 9 1		# hidden
lenet=(lenet5_cpu.csv --spec "$root/models/lenet5.json")

tick=$(getconf CLK_TCK)
printf '%-34s %6s %9s %9s %5s %-7s %s\n' case delay wall cpu exit stderr model
# case NAME DELAY -- COMMAND...: run, signal after DELAY seconds, report.
case_() {
	local name=$1 delay=$2 tpid pid t0 t1 rc said marked cpu0 cpu
	shift 3
	rm -f out.json .perfmodel-* time.txt
	/usr/bin/time -f '%U %S' -o time.txt "$pm" "$@" >out.txt 2>err.txt &
	tpid=$!
	sleep "$delay"
	pid=$(pgrep -P $tpid)
	if [ -z "$pid" ]; then
		wait $tpid
		printf '%-34s %6s %9s %9s %5s ended before the signal\n' "$name" "$delay" - - $?
		return
	fi
	# CPU time so far: utime and stime, fields 14 and 15 of /proc/PID/stat
	# (after the command name, which may hold spaces, in parentheses)
	cpu0=$(sed 's/.*) //' /proc/"$pid"/stat | awk -v t="$tick" '{ print ($12 + $13) / t }')
	t0=$(date +%s%N)
	kill -INT "$pid"
	wait $tpid
	rc=$?
	t1=$(date +%s%N)
	cpu=$(awk -v c0="$cpu0" 'END { print $1 + $2 - c0 }' time.txt)
	said=no
	grep -q interrupted err.txt && said=yes
	marked=-
	if [ -e out.json ]; then
		marked=unmarked
		grep -q '"interrupted": true' out.json && marked=marked
	fi
	ls .perfmodel-* >/dev/null 2>&1 && marked="$marked, TEMPORARY FILE LEFT"
	printf '%-34s %6s %8.3fs %8.2fs %5s %-7s %s\n' "$name" "$delay" \
		"$(echo "($t1 - $t0) / 1000000000" | bc -l)" "$cpu" $rc "$said" "$marked"
}
t=(--threads "$threads" -o out.json)
case_ "fit: reading the CSV" 0.15 -- fit "${lenet[@]}" "${t[@]}"
case_ "fit: initial population" 1 -- fit "${lenet[@]}" "${t[@]}"
case_ "fit: DE" 3 -- fit "${lenet[@]}" "${t[@]}" --tol 0
case_ "fit: polish" 6 -- fit "${lenet[@]}" "${t[@]}" --maxiter 1 --tol 0
case_ "fit --seeds 4" 4 -- fit "${lenet[@]}" "${t[@]}" --seeds 4 --tol 0
case_ "fit --test-fraction 0.3" 3 -- fit "${lenet[@]}" "${t[@]}" --test-fraction 0.3 --tol 0
case_ "fit multiplicative, loss log" 3 -- fit "${lenet[@]}" "${t[@]}" --form multiplicative \
	--loss log --tol 0
case_ "fit --formula (gemm)" 3 -- fit gemm_cpu.csv --target time_s "${t[@]}" --tol 0 \
	--formula 'a * n^p / threads^q + C'
case_ "fit ddp, loss mse" 3 -- fit ddp_mlp.csv --spec "$root/models/ddp_mlp.json" "${t[@]}" \
	--loss mse --tol 0
# select without discover among its forms: discover refuses this many rows
# before it allocates (its pool of terms would exceed 1 GiB, docs/discover.md)
case_ "select: a cross-validation fold" 3 -- select "${lenet[@]}" "${t[@]}" --cv 3 --tol 0 \
	--forms additive,multiplicative
case_ "select: between candidates" 8 -- select "${lenet[@]}" "${t[@]}" --cv 2 --maxiter 1 \
	--no-polish --forms additive,multiplicative
case_ "sweep --cv 2" 3 -- sweep "${lenet[@]}" --threads "$threads" --lambda 1e-4:1e-2:3 \
	--cv 2 --json
case_ "lif (ddp)" 0.3 -- lif ddp_mlp.csv --workers 't_worker_*' --n-col world_size
