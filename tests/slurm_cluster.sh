#!/usr/bin/env bash
# The Slurm plugin in a real Slurm (issue 36, item 5): a private single-node
# cluster in the scratch folder, as root (munged with its own key and
# socket, slurmctld and slurmd from Debian's packages, job_submit.lua next
# to its slurm.conf), jobs submitted with sbatch and read back with
# scontrol. A job with a model gets advise --slurm's TimeLimit and TimeMin;
# jobs without the comment, with a broken model or an unknown level keep
# their limits and run. The daemons are stopped by their process ids.
# usage: slurm_cluster.sh PERFMODEL SOURCE_ROOT MODULE_DIR
set -u
pm=$(realpath "$1")
root=$(realpath "$2")
moddir=$(realpath "$3")
here=$(dirname "$(realpath "$0")")
. "$here/tap.sh"
. "$here/slurm_models.sh"

# exit 77: meson counts the test as skipped
skip() { echo "1..0 # SKIP $1"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "the cluster's daemons run as root; run as root to test them"
for p in munged slurmctld slurmd sbatch scontrol sinfo; do
	command -v "$p" >/dev/null || PATH=$PATH:/usr/sbin command -v "$p" >/dev/null ||
		skip "no $p (scripts/setup installs munge, slurmctld, slurmd, slurm-client)"
done
PATH=$PATH:/usr/sbin
[ -f "$moddir/perfmodel.so" ] || skip "the module perfmodel.so was not built (meson -Dslurm, liblua5.1-0-dev)"

pids=()
stop_daemons() {
	# by the ids this script started, newest first
	for ((k = ${#pids[@]} - 1; k >= 0; k--)); do
		kill "${pids[k]}" 2>/dev/null
	done
	for pid in "${pids[@]}"; do
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$pid" 2>/dev/null
	done
	rm -rf "$work"
}
trap stop_daemons EXIT
# a signal (meson's timeout) ends the script through the EXIT trap too
trap 'exit 1' INT TERM
make_models "$pm" || { echo "Bail out! the test's models cannot be fitted"; exit 1; }
read -r want_time want_min <<<"$(advise_minutes "$pm" 2 64 relu 200000)"
t=$(pwd)
mkdir -p etc state spool munge
chmod 700 munge

# munged: its own key, socket, pid, log and seed
dd if=/dev/urandom of=munge/key bs=1024 count=1 2>/dev/null
chmod 400 munge/key
munged --foreground --force --socket="$t/munge/sock" --key-file="$t/munge/key" \
	--pid-file="$t/munge/pid" --log-file="$t/munge/log" --seed-file="$t/munge/seed" \
	2>munge/stderr &
pids+=($!)

# ports of their own, so that a Slurm of the host or another run is left alone
port=$((20000 + ($$ % 5000) * 2))
host=$(hostname -s)
cat >etc/slurm.conf <<EOF
ClusterName=perfmodeltest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$t/munge/sock
StateSaveLocation=$t/state
SlurmdSpoolDir=$t/spool
SlurmctldPidFile=$t/slurmctld.pid
SlurmdPidFile=$t/slurmd.pid
SlurmctldLogFile=$t/slurmctld.log
SlurmdLogFile=$t/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobSubmitPlugins=lua
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=localhost NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
# slurmctld reads job_submit.lua from slurm.conf's folder
cp "$root/slurm/job_submit.lua" etc/
export SLURM_CONF=$t/etc/slurm.conf
# what slurmctld's Lua needs: the module's folder and the models folder
export LUA_CPATH="$moddir/?.so" PERFMODEL_MODELS=$t/models

for _ in $(seq 50); do [ -S munge/sock ] && break; sleep 0.1; done
[ -S munge/sock ] || { echo "Bail out! munged did not start: $(cat munge/stderr munge/log 2>/dev/null)"; exit 1; }
slurmctld -D -c -f "$SLURM_CONF" 2>slurmctld.stderr &
pids+=($!)
slurmd -D -N localhost -f "$SLURM_CONF" 2>slurmd.stderr &
pids+=($!)
state=""
for _ in $(seq 300); do
	state=$(sinfo -h -n localhost -o %T 2>/dev/null)
	[ "$state" = idle ] && break
	sleep 0.1
done
if [ "$state" != idle ]; then
	echo "Bail out! the node is not idle ($state) after 30 s"
	tail -20 slurmctld.log slurmd.log slurmctld.stderr slurmd.stderr 2>/dev/null
	exit 1
fi
ok "a private cluster: munged, slurmctld and slurmd up, the node idle"

printf '#!/bin/sh\ntrue\n' >job.sh
# submit NAME [sbatch options]: the job's id into NAME.id, sbatch's messages into NAME.err
submit() {
	local name=$1
	shift
	sbatch --parsable -o /dev/null -t 7 "$@" job.sh >"$name.id" 2>"$name.err"
}
field() { tr ' ' '\n' <"$1" | sed -n "s/^$2=//p"; }
minutes() {
	local s=$1 d=0
	case $s in *-*) d=${s%%-*}; s=${s#*-} ;; esac
	IFS=: read -r h m sec <<<"$s"
	echo $((d * 1440 + 10#$h * 60 + 10#$m + (10#$sec > 0)))
}

submit model --comment "perfmodel model=train.json threads=2 batch_size=64 activation=relu iterations=200000"
submit plain
submit broken --comment "perfmodel model=broken.json threads=2 batch_size=64 activation=relu"
submit level --comment "perfmodel model=train.json threads=2 batch_size=64 activation=gelu iterations=10"
for j in model plain broken level; do
	if ! grep -Eq '^[0-9]+$' "$j.id"; then
		bad "sbatch accepts the job '$j'" "$(cat "$j.err")" "$(tail -5 slurmctld.log)"
	fi
done

scontrol show job "$(cat model.id)" >model.show
got_time=$(minutes "$(field model.show TimeLimit)")
got_min=$(minutes "$(field model.show TimeMin)")
if [ "$got_time" = "$want_time" ] && [ "$got_min" = "$want_min" ]
then ok "a job with a model: TimeLimit and TimeMin as advise --slurm's ($want_time, $want_min min)"
else bad "a job with a model: TimeLimit and TimeMin as advise --slurm's" "want $want_time $want_min, got $got_time $got_min" "$(cat model.show model.err)"; fi
has "a job with a model: sbatch tells the user what was set and why" model.err \
	"perfmodel: model 'train.json' predicts [0-9]+ s for 200000 iterations; TimeLimit="

# untouched NAME REGEX: TimeLimit as submitted (7 min), no TimeMin, told why
untouched() {
	scontrol show job "$(cat "$1.id")" >"$1.show"
	if [ "$(field "$1.show" TimeLimit)" = 00:07:00 ] && [ "$(field "$1.show" TimeMin)" = N/A ] &&
		grep -Eq -e "$2" "$1.err" && ! grep -q SECRET "$1.err"
	then ok "a job $3: limits as submitted, told why"
	else bad "a job $3: limits as submitted, told why" "$(cat "$1.show" "$1.err")"; fi
}
untouched plain "no 'perfmodel model=...' comment" "without the comment"
untouched broken "model 'broken.json' is not a model file" "with a broken model"
untouched level "model 'train.json': .*gelu" "with an unknown level"

# every job runs to its end
for j in model plain broken level; do
	st=""
	for _ in $(seq 200); do
		st=$(scontrol show job "$(cat "$j.id")" 2>/dev/null | tr ' ' '\n' | sed -n 's/^JobState=//p')
		[ "$st" = COMPLETED ] && break
		sleep 0.1
	done
	if [ "$st" = COMPLETED ]; then ok "the job '$j' runs and completes"
	else bad "the job '$j' runs and completes" "JobState=$st" "$(tail -5 slurmd.log)"; fi
done
# the worked example of docs/slurm.md: what scontrol says of the jobs
if [ -n "${PM_SLURM_SHOW:-}" ]; then
	cat model.err model.show plain.err plain.show broken.err level.err >"$PM_SLURM_SHOW"
fi

echo "1..$((pass + fail))"
[ "$fail" -eq 0 ]
