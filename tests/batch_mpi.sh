#!/usr/bin/env bash
# perfmodel batch under mpirun (docs/batch.md, issue 23): the results are
# the bytes of a run in one process for 2 and 3 ranks, through perfmodel
# batch or perfmodel-batch-mpi itself; a broken job is an error line and
# the others go on; SIGINT to the ranks keeps the finished lines and the
# marker, and --resume under mpirun finishes the file as if run in one go.
# Registered only when MPI was found, and not in sanitizer builds (Open MPI's
# own allocations and threads are reported there: tests/meson.build).
# usage: batch_mpi.sh PERFMODEL PERFMODEL_BATCH_MPI SOURCE_ROOT
set -u
pm=$(realpath "$1")
pm_mpi=$(realpath "$2")
root=$(realpath "$3")
here=$(dirname "$(realpath "$0")")
. "$here/tap.sh"

# root in CI; oversubscribe: the test machine may have fewer cores than ranks
mpi() { mpirun --allow-run-as-root --oversubscribe -np "$@"; }
# same NAME FILE WANT: FILE has WANT's bytes
same() {
	if cmp -s "$2" "$3"; then
		ok "$1"
	else
		bad "$1" "$(cut -c1-80 "$2")" "want:" "$(cut -c1-80 "$3")"
	fi
}

cp "$root/data/gemm_cpu.csv" "$root/data/lenet5_cpu.csv" "$root/models/gemm.json" \
	"$root/models/lenet5.json" .
{
	for s in 1 2 3 4 5; do
		echo "{\"id\": \"gemm-$s\", \"data\": \"gemm_cpu.csv\", \"spec\": \"gemm.json\", \"seed\": $s}"
		echo "{\"id\": \"lenet-$s\", \"data\": \"lenet5_cpu.csv\", \"spec\": \"lenet5.json\", \"form\": \"additive\", \"seed\": $s, \"maxiter\": 20, \"no-intervals\": true}"
	done
	echo '{"id": "broken", "data": "gemm_cpu.csv", "spec": "gemm.json", "seed": -1}'
	echo '{"id": "missing", "data": "nothere.csv", "spec": "gemm.json"}'
	echo '{"id": "mult", "data": "gemm_cpu.csv", "spec": "gemm.json", "form": "multiplicative"}'
} >jobs.jsonl
"$pm" batch jobs.jsonl -o one.jsonl --threads 1 2>one.err
rc=$?
if [ $rc -eq 1 ] && [ "$(wc -l <one.jsonl)" -eq 13 ] && [ "$(grep -c '"error"' one.jsonl)" -eq 2 ]; then
	ok "one process: 13 lines, the 2 broken jobs errors, exit 1"
else
	bad "one process" "exit $rc" "$(cat one.err)"
fi
mpi 2 "$pm" batch jobs.jsonl -o two.jsonl --threads 1 >mpi2.log 2>&1
rc=$?
[ $rc -eq 1 ] && ok "2 ranks: exit 1 (a job failed)" || bad "2 ranks: exit 1" "exit $rc" "$(cat mpi2.log)"
same "2 ranks: the bytes of one process (broken jobs isolated)" two.jsonl one.jsonl
mpi 3 "$pm" batch jobs.jsonl -o three.jsonl --threads 1 >mpi3.log 2>&1
same "3 ranks: the same bytes" three.jsonl one.jsonl
mpi 2 "$pm_mpi" jobs.jsonl --threads 1 >direct.jsonl 2>direct.err
same "perfmodel-batch-mpi run directly, on stdout: the same bytes" direct.jsonl one.jsonl

# Each rank begins its first job before MPI_Init, by the launcher's rank
# (OMPI_COMM_WORLD_RANK here). Launcher variables that disagree with MPI's
# ranks cost time, never a line: every process told it is rank 0 (both run
# the first job; rank 0 keeps one line of it), the ranks told in reverse
# (rank 0 begins the last rank's job), more ranks than jobs (the last
# begins none), and no launcher at all (MPI's rank, read after MPI_Init)
# shellcheck disable=SC2016
mpi 2 sh -c 'OMPI_COMM_WORLD_RANK=0 exec "$@"' sh "$pm_mpi" jobs.jsonl --threads 1 \
	>lie.jsonl 2>lie.err
same "launcher's ranks all 0: the same bytes" lie.jsonl one.jsonl
# shellcheck disable=SC2016
mpi 3 sh -c 'OMPI_COMM_WORLD_RANK=$((2 - OMPI_COMM_WORLD_RANK)) exec "$@"' sh "$pm_mpi" \
	jobs.jsonl --threads 1 >reversed.jsonl 2>reversed.err
same "launcher's ranks reversed: the same bytes" reversed.jsonl one.jsonl
# shellcheck disable=SC2016
mpi 2 sh -c 'OMPI_COMM_WORLD_RANK=$((1 - OMPI_COMM_WORLD_RANK)) exec "$@"' sh "$pm_mpi" \
	jobs.jsonl --threads 1 -o nowhere/out.jsonl >unwritable.log 2>&1
rc=$?
if [ $rc -eq 1 ] && [ "$(grep -c 'perfmodel: cannot write' unwritable.log)" -eq 1 ]; then
	ok "launcher's ranks reversed: MPI's rank 0 says, once, that -o cannot be written"
else
	bad "launcher's ranks reversed, -o unwritable" "exit $rc" "$(cat unwritable.log)"
fi
# what reading the arguments and jobs says (before MPI_Init) is said once,
# by MPI's rank 0, whatever rank the launcher gave each
# shellcheck disable=SC2016
for told in 0 1; do
	mpi 2 sh -c "OMPI_COMM_WORLD_RANK=$told exec \"\$@\"" sh "$pm_mpi" nothere.jsonl \
		>nothere.log 2>&1
	rc=$?
	if [ $rc -eq 1 ] && [ "$(grep -c 'perfmodel: nothere.jsonl' nothere.log)" -eq 1 ]; then
		ok "launcher's ranks all $told, no jobs file: said once"
	else
		bad "launcher's ranks all $told, no jobs file" "exit $rc" "$(cat nothere.log)"
	fi
done
# -h: the help once, by MPI's rank 0, exit 0 — read before MPI_Init by the
# launcher's rank, or after it where the launcher's variable says nonsense
"$pm" batch -h >help1.out
for how in launcher none; do
	if [ $how = launcher ]; then
		mpi 2 "$pm" batch -h >help.out 2>help.err
	else
		mpi 2 env OMPI_COMM_WORLD_RANK=none "$pm_mpi" -h >help.out 2>help.err
	fi
	rc=$?
	if [ $rc -eq 0 ] && cmp -s help.out help1.out; then
		ok "-h under mpirun ($how's rank): the help once, exit 0"
	else
		bad "-h under mpirun ($how's rank): the help once" "exit $rc, $(grep -c '^usage:' help.out) usage lines" "$(cat help.err)"
	fi
done
head -2 jobs.jsonl >two_jobs.jsonl
"$pm" batch two_jobs.jsonl -o two_one.jsonl --threads 1
mpi 3 "$pm_mpi" two_jobs.jsonl --threads 1 >two_three.jsonl 2>two_three.err
same "3 ranks, 2 jobs: the bytes of one process" two_three.jsonl two_one.jsonl
"$pm_mpi" jobs.jsonl --threads 1 >alone.jsonl 2>alone.err
same "perfmodel-batch-mpi without a launcher (MPI's singleton): the same bytes" alone.jsonl one.jsonl

# --each-region under mpirun: the same bytes as one process
cp "$root/tests/data/ingest/extrap.txt" profile.txt
"$pm" batch --each-region profile.txt -o regions1.jsonl -- --maxiter 30 --threads 1
mpi 2 "$pm" batch --each-region profile.txt -o regions2.jsonl -- --maxiter 30 --threads 1 \
	>regions.log 2>&1
same "--each-region, 2 ranks: the bytes of one process" regions2.jsonl regions1.jsonl

# SIGINT to the ranks (as srun and scancel send it): job 3 runs until
# stopped; whatever finished is kept, in job order, then the marker
fast='"data": "gemm_cpu.csv", "spec": "gemm.json", "threads": 1'
{
	echo "{\"id\": \"j1\", $fast, \"seed\": 1}"
	echo "{\"id\": \"j2\", $fast, \"seed\": 2}"
	echo "{\"id\": \"j3\", $fast, \"tol\": 0, \"maxiter\": 100000000}"
	echo "{\"id\": \"j4\", $fast, \"seed\": 4}"
	echo "{\"id\": \"j5\", $fast, \"seed\": 5}"
} >long.jsonl
sed 's/"tol": 0, "maxiter": 100000000/"seed": 3/' long.jsonl >short.jsonl
"$pm" batch short.jsonl -o onego.jsonl
# cut_short RANKS|MPIRUN: run long.jsonl under mpirun; once 2 lines are
# out, SIGINT to the ranks or to mpirun; $rc is mpirun's exit status
cut_short() {
	local pid ranks
	rm -f cut.jsonl
	mpirun --allow-run-as-root --oversubscribe -np 2 "$pm" batch long.jsonl -o cut.jsonl \
		>cut.log 2>&1 &
	pid=$!
	wait_results cut.jsonl 2
	sleep 0.5
	ranks=$(ps -o pid= --ppid $pid)
	# shellcheck disable=SC2086
	if [ "$1" = ranks ]; then kill -INT $ranks; else kill -INT $pid; fi
	wait $pid
	rc=$?
}
# kept NAME: the finished lines in job order, the marker, no line of job 3
kept() {
	if [ "$(sed -n 1,2p cut.jsonl)" = "$(sed -n 1,2p onego.jsonl)" ] &&
		tail -1 cut.jsonl | grep -Eq '^\{"incomplete": true, "done": [2-4], "jobs": 5\}$' &&
		! grep -q '"id": "j3"' cut.jsonl; then
		ok "$1"
	else
		bad "$1" "exit $rc" "$(cut -c1-80 cut.jsonl)" "$(cat cut.log)"
	fi
}
# ^C to mpirun: Open MPI's mpirun passes SIGTERM on, kills the ranks a
# second later and exits 1 whatever they say: the marker must be out by then
cut_short mpirun
kept "SIGINT to mpirun: the finished lines in order and the marker"
# SIGINT to the ranks themselves (as srun and scancel send it): exit 130
cut_short ranks
kept "SIGINT to the ranks: the finished lines in order and the marker"
[ $rc -eq 130 ] && ok "SIGINT to the ranks: exit 130" || bad "SIGINT to the ranks: exit 130" "exit $rc"
# SIGINT to the worker alone, both ranks in a fit that would run for hours:
# rank 0 stops its own fit too, and writes the finished line and the marker
# (before, it waited for its own fit to end)
long="$fast, \"tol\": 0, \"maxiter\": 100000000"
printf '%s\n' "{\"id\": \"w1\", $fast, \"seed\": 1}" "{\"id\": \"w2\", $long}" \
	"{\"id\": \"w3\", $long, \"seed\": 3}" >worker_cut.jsonl
mpirun --allow-run-as-root --oversubscribe -np 2 "$pm_mpi" worker_cut.jsonl -o worker_cut.out \
	>worker_cut.log 2>&1 &
pid=$!
wait_results worker_cut.out 1
sleep 1
for p in $(ps -o pid= --ppid $pid); do
	grep -qa 'OMPI_COMM_WORLD_RANK=1' "/proc/$p/environ" && kill -INT "$p"
done
# a watchdog for 60 s (the fits left alone would outlast the test's
# timeout), gone within 0.1 s of mpirun
(for _ in $(seq 600); do sleep 0.1; kill -0 $pid 2>/dev/null || exit 0; done
	kill -KILL $pid) &
wait $pid
rc=$?
if [ $rc -ne 137 ] && [ "$(head -1 worker_cut.out)" = "$(head -1 onego.jsonl | sed 's/"j1"/"w1"/')" ] &&
	tail -1 worker_cut.out | grep -Eq '^\{"incomplete": true, "done": 1, "jobs": 3\}$'; then
	ok "SIGINT to the worker alone: rank 0 stops its own fit, the line and the marker out"
else
	bad "SIGINT to the worker alone" "exit $rc" "$(cut -c1-80 worker_cut.out)" "$(cat worker_cut.log)"
fi

mpi 2 "$pm" batch short.jsonl --resume cut.jsonl >resume.log 2>&1
rc=$?
if [ $rc -eq 0 ]; then
	same "--resume under mpirun: the file as if run in one go" cut.jsonl onego.jsonl
else
	bad "--resume under mpirun" "exit $rc" "$(cat resume.log)"
fi

# A worker rank killed (kill -9) under mpirun --enable-recovery (Open MPI
# keeps the others): rank 0 hears no heartbeat from it for 15 s, its job
# becomes an error line, the others finish the rest
for s in $(seq 12); do
	echo "{\"id\": \"k$s\", \"data\": \"lenet5_cpu.csv\", \"spec\": \"lenet5.json\", \"form\": \"additive\", \"seed\": $s, \"threads\": 1}"
done >kill.jsonl
mpirun --allow-run-as-root --oversubscribe --enable-recovery -np 2 "$pm" batch kill.jsonl \
	-o killed.jsonl >kill.log 2>&1 &
pid=$!
wait_results killed.jsonl 1
ranks=$(ps -o pid= --ppid $pid)
# shellcheck disable=SC2086
kill -KILL $(echo $ranks | awk '{ print $2 }')
wait $pid
if [ "$(wc -l <killed.jsonl)" -eq 12 ] && [ "$(grep -c '"model"' killed.jsonl)" -eq 11 ] &&
	grep -Eq '"error": "rank [0-9]+, which ran this job, was lost: no word from it for 15 s"' killed.jsonl; then
	ok "a worker rank killed: its job an error line, every other job done"
else
	bad "a worker rank killed" "$(cut -c1-100 killed.jsonl)" "$(tail -5 kill.log)"
fi

echo "batch_mpi: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
