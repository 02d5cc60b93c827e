#!/usr/bin/env bash
# perfmodel batch end to end, in one process (docs/batch.md): each job's
# model is fit -o's document, each error the CLI's message, a bad job never
# stops the others, paths are the jobs file's, ids are unique, and a run cut
# short by SIGINT keeps its finished lines, says so, and --resume finishes
# it as if run in one go. tests/batch_mpi.sh runs the same under mpirun.
# usage: batch.sh PERFMODEL SOURCE_ROOT
set -u
pm=$(realpath "$1")
root=$(realpath "$2")
here=$(dirname "$(realpath "$0")")
. "$here/tap.sh"

mkdir -p jobs/data other
cp "$root/data/gemm_cpu.csv" "$root/data/lenet5_cpu.csv" jobs/data/
cp "$root/models/gemm.json" jobs/
# paths relative to the jobs file's folder (jobs/), whatever the current one
cat >jobs/jobs.jsonl <<'EOF'
{"id": "gemm-1", "data": "data/gemm_cpu.csv", "spec": "gemm.json", "form": "additive", "seed": 1, "threads": 1}
{"id": 2, "data": "data/gemm_cpu.csv", "spec": {"target": "time_s", "intrinsic": ["n"], "extrinsic": ["threads"]}, "form": "multiplicative", "lambda": 0.001, "reg": "l2", "no-polish": true}

{"id": "missing", "data": "data/nothere.csv", "spec": "gemm.json"}
{"id": "unknown option", "data": "data/gemm_cpu.csv", "spec": "gemm.json", "frobnicate": 3}
this line is not JSON
{"id": "bad value", "data": "data/gemm_cpu.csv", "spec": "gemm.json", "seed": "x"}
{"id": "no spec", "data": "data/gemm_cpu.csv"}
{"data": "data/gemm_cpu.csv", "spec": "gemm.json"}
{"id": "output", "data": "data/gemm_cpu.csv", "spec": "gemm.json", "output": "m.json"}
{"id": "he", "data": "data/gemm_cpu.csv", "spec": "gemm.json", "he": true}
{"id": "disc", "command": "discover", "data": "data/gemm_cpu.csv", "target": "time_s", "ignore": "loadavg_1m", "max-terms": 2, "beam": 4, "cv": 3}
EOF
cd other || exit 1
"$pm" batch ../jobs/jobs.jsonl -o results.jsonl --threads 2 2>stderr.txt
rc=$?
cd .. || exit 1
lines=$(wc -l <other/results.jsonl)
if [ $rc -eq 1 ] && [ "$lines" -eq 11 ] && [ ! -s other/stderr.txt ]; then
	ok "a run with bad jobs: every job has its line, exit 1, nothing on stderr"
else
	bad "a run with bad jobs" "exit $rc, $lines lines" "$(cat other/stderr.txt)"
fi
line() { sed -n "$1p" other/results.jsonl; }
# the job's model is fit -o's document but for "run" (no timings)
(cd jobs && "$pm" fit --form additive data/gemm_cpu.csv --spec gemm.json --seed 1 --threads 1 -o ../fit1.json -q)
(cd jobs && "$pm" fit data/gemm_cpu.csv --target time_s --intrinsic n --extrinsic threads \
	--form multiplicative --lambda 0.001 --reg l2 --no-polish -o ../fit2.json -q)
(cd jobs && "$pm" discover data/gemm_cpu.csv --target time_s --ignore loadavg_1m --max-terms 2 \
	--beam 4 --cv 3 -o ../disc.json -q)
same_model() {	# same_model NAME LINE_NUMBER MODEL_FILE
	if line "$2" | python3 -c '
import json, sys
got = json.loads(sys.stdin.read())
want = json.load(open(sys.argv[1]))
want.pop("run")
sys.exit(0 if got["model"] == want and "run" not in got["model"] else 1)' "$3"; then
		ok "$1: the model document of the command line, without \"run\""
	else
		bad "$1" "$(line "$2" | head -c 300)"
	fi
}
same_model "spec file, seed, threads" 1 fit1.json
same_model "inline spec, a number id, flags, lists" 2 fit2.json
same_model "command discover" 11 disc.json
has "the id as given, a string or a number" other/results.jsonl '^\{"id": "gemm-1", "model": \{"format"' \
	'^\{"id": 2, "model": '
# each error is the message the command line prints, "perfmodel: " taken off
cli_error() {	# cli_error NAME LINE_NUMBER FIT_ARGS...
	local name=$1 n=$2
	shift 2
	local want got
	want=$(cd jobs && "$pm" fit --form additive "$@" -o ../x.json 2>&1 >/dev/null | sed 's/^perfmodel: //')
	got=$(line "$n" | python3 -c 'import json, sys; print(json.loads(sys.stdin.read())["error"])')
	if [ -n "$want" ] && [ "$got" = "$want" ]; then
		ok "$name: the command line's message"
	else
		bad "$name" "want: $want" "got: $(line "$n")"
	fi
}
cli_error "a missing data file" 3 data/nothere.csv --spec gemm.json
cli_error "an unknown option" 4 data/gemm_cpu.csv --spec gemm.json --frobnicate=3
cli_error "a bad value" 6 data/gemm_cpu.csv --spec gemm.json --seed=x
has "a line that is not JSON: its place and why" other/results.jsonl \
	'^\{"id": null, "error": "\.\./jobs/jobs\.jsonl:6: not JSON"\}$'
has "a job without an id" other/results.jsonl \
	'^\{"id": null, "error": "\.\./jobs/jobs\.jsonl:9: no \\"id\\": every job needs one"\}$'
cli_error "a job with no spec and no target" 7 data/gemm_cpu.csv
has "output is the batch's" other/results.jsonl \
	'^\{"id": "output", "error": "\.\./jobs/jobs\.jsonl:10: \\"output\\" is not an option of a batch job' \
	'^\{"id": "he", "error": ".--he. is --help, which is not an option of a batch job"\}$'

# the same bytes again, and on standard output; --timings adds "run"
(cd other && "$pm" batch ../jobs/jobs.jsonl --threads 2 >again.jsonl 2>/dev/null)
if cmp -s other/results.jsonl other/again.jsonl; then
	ok "a second run writes the same bytes (stdout without -o)"
else
	bad "a second run writes the same bytes"
fi
head -2 jobs/jobs.jsonl >jobs/two.jsonl
"$pm" batch jobs/two.jsonl -o timed.jsonl --timings
has "--timings keeps each model's run" timed.jsonl '"run": \{"threads": 1, "threads_used": 1, "wall_time_s": [0-9.e-]+\}\}\}$'

# usage and file errors
expect_fail "no jobs file" 2 "no jobs file given" -- "$pm" batch
expect_fail "a jobs file that is not there" 1 "nothere.jsonl: No such file" -- \
	"$pm" batch nothere.jsonl -o r.jsonl
expect_fail "--threads 0" 2 "--threads '0'" -- "$pm" batch jobs/jobs.jsonl --threads 0
expect_fail "--resume -" 2 "not '-'" -- "$pm" batch jobs/jobs.jsonl --resume -
printf '%s\n' '{"id": "a", "data": "x.csv"}' '{"id": "b", "data": "x.csv"}' \
	'{"id": "a", "data": "y.csv"}' >dup.jsonl
expect_fail "a duplicate id names both lines" 1 'dup.jsonl:3: id "a" is also line 1.s' -- \
	"$pm" batch dup.jsonl -o r.jsonl
"$pm" help | grep -q '^  batch ' && ok "help lists batch" || bad "help lists batch"
expect_fail "a folder as the jobs file" 1 "jobs: a folder, not a jobs file" -- "$pm" batch jobs
expect_fail "an empty jobs file name" 2 "an empty file name \(the jobs file\)" -- "$pm" batch ""
expect_fail "--resume of a folder" 1 "--resume .*jobs: a folder, not a results file" -- \
	"$pm" batch jobs/two.jsonl --resume jobs -o r.jsonl
printf '%s\n' '{"id": "e", "data": ""}' '{"id": "s", "data": "x.csv", "spec": ""}' >empty.jsonl
"$pm" batch empty.jsonl >empty_out.jsonl 2>/dev/null
has "an empty \"data\" or \"spec\": the job's line and the member" empty_out.jsonl \
	'^\{"id": "e", "error": "empty\.jsonl:1: \\"data\\" must be a file name, not empty"\}$' \
	'^\{"id": "s", "error": "empty\.jsonl:2: \\"spec\\" must be a file name or an object, not empty"\}$'

# The results never replace an input, and a failed write leaves the file as
# it was (docs/batch.md, "The results file"), as fit -o.
# unharmed NAME EXIT REGEX FILE -- COMMAND...: the command fails with one
# line, FILE is byte for byte as it was, no temporary file is left
unharmed() {
	local name=$1 want=$2 regex=$3 file=$4
	shift 5
	cp "$file" unharmed.before
	expect_fail "$name" "$want" "$regex" -- "$@"
	if cmp -s "$file" unharmed.before && [ -z "$(find . -name '.perfmodel-*')" ]; then
		ok "$name: $file as it was"
	else
		bad "$name: $file as it was" "$(find . -name '.perfmodel-*')"
	fi
}
unharmed "-o a job's data" 1 'cannot write jobs/data/gemm_cpu.csv: it is jobs/two.jsonl:1.s "data"' \
	jobs/data/gemm_cpu.csv -- "$pm" batch jobs/two.jsonl -o jobs/data/gemm_cpu.csv
unharmed "-o a job's spec file" 1 'it is jobs/two.jsonl:1.s "spec" gemm.json' \
	jobs/gemm.json -- "$pm" batch jobs/two.jsonl -o jobs/gemm.json
ln -s jobs/data/gemm_cpu.csv alias.csv
unharmed "-o another name of a job's data" 1 'cannot write alias.csv: it is jobs/two.jsonl:1.s "data"' \
	jobs/data/gemm_cpu.csv -- "$pm" batch jobs/two.jsonl -o alias.csv
unharmed "-o the jobs file" 1 "it is the jobs file jobs/two.jsonl" \
	jobs/two.jsonl -- "$pm" batch jobs/two.jsonl -o jobs/two.jsonl
unharmed "--resume the jobs file" 1 "it is the jobs file jobs/two.jsonl" \
	jobs/two.jsonl -- "$pm" batch jobs/two.jsonl --resume jobs/two.jsonl
expect_fail "-o in a folder that is not there" 1 \
	"cannot write nodir/r.jsonl: No such file or directory \(the file is unchanged\)" -- \
	"$pm" batch jobs/two.jsonl -o nodir/r.jsonl
expect_fail "an empty -o" 2 "an empty file name \(the output\)" -- "$pm" batch jobs/two.jsonl -o ""
# a full disk: writes past 2 KiB fail (EFBIG, its signal ignored)
cp timed.jsonl full.jsonl
unharmed "a full disk" 1 "cannot write full.jsonl: File too large \(the file is unchanged\)" \
	full.jsonl -- bash -c 'trap "" XFSZ; ulimit -f 2; exec "$0" batch jobs/two.jsonl -o full.jsonl' "$pm"

# SIGINT: job 3 runs until stopped; jobs 1 and 2 are written before it
fast='"data": "data/gemm_cpu.csv", "spec": "gemm.json", "threads": 1'
printf '%s\n' "{\"id\": \"j1\", $fast, \"seed\": 1}" "{\"id\": \"j2\", $fast, \"seed\": 2}" \
	"{\"id\": \"j3\", $fast, \"tol\": 0, \"maxiter\": 100000000}" \
	"{\"id\": \"j4\", $fast, \"seed\": 4}" >jobs/long.jsonl
# the same jobs with a job 3 that ends: what --resume is to finish
sed 's/"tol": 0, "maxiter": 100000000/"seed": 3/' jobs/long.jsonl >jobs/short.jsonl
"$pm" batch jobs/short.jsonl -o onego.jsonl
"$pm" batch jobs/long.jsonl -o cut.jsonl 2>cut.err &
pid=$!
wait_results cut.jsonl 2
sleep 0.5
kill -INT $pid
wait $pid
rc=$?
if [ $rc -eq 130 ] && [ "$(wc -l <cut.jsonl)" -eq 3 ] &&
	[ "$(sed -n 1,2p cut.jsonl)" = "$(sed -n 1,2p onego.jsonl)" ] &&
	[ "$(tail -1 cut.jsonl)" = '{"incomplete": true, "done": 2, "jobs": 4}' ]; then
	ok "SIGINT: the finished lines, the marker, exit 130"
else
	bad "SIGINT" "exit $rc" "$(cut -c1-80 cut.jsonl)" "$(cat cut.err)"
fi
"$pm" batch jobs/short.jsonl --resume cut.jsonl
rc=$?
if [ $rc -eq 0 ] && cmp -s cut.jsonl onego.jsonl; then
	ok "--resume: the file as if run in one go"
else
	bad "--resume" "exit $rc" "$(cut -c1-80 cut.jsonl)"
fi
# a resumed run that cannot write: the results so far stay whole
head -1 onego.jsonl >part.jsonl
unharmed "--resume on a full disk" 1 "cannot write part.jsonl: File too large" part.jsonl -- \
	bash -c 'trap "" XFSZ; ulimit -f 2; exec "$0" batch jobs/short.jsonl --resume part.jsonl' "$pm"
# a resumed file whose last line a kill cut in two: that line is run again
head -c -100 onego.jsonl >killed.jsonl
"$pm" batch jobs/short.jsonl --resume killed.jsonl -o resumed.jsonl
if cmp -s resumed.jsonl onego.jsonl; then
	ok "--resume runs again a line cut in two, -o elsewhere"
else
	bad "--resume after a kill" "$(cut -c1-80 resumed.jsonl)"
fi

# --each-region: a job per region x metric of an Extra-P file, the options
# after -- for all, ids REGION/METRIC; each model is fit --region --metric's
cp "$root/tests/data/ingest/extrap.txt" profile.txt
"$pm" batch --each-region profile.txt -o regions.jsonl --threads 1 -- --form additive --maxiter 30 --seed 2
rc=$?
ids=$(python3 -c 'import json, sys; print(" ".join(json.loads(l)["id"] for l in open(sys.argv[1])))' regions.jsonl)
if [ $rc -eq 0 ] && [ "$ids" = "stencil/time stencil/visits halo_exchange/time" ]; then
	ok "--each-region: one job per region x metric, in the file's order"
else
	bad "--each-region" "exit $rc, ids: $ids"
fi
"$pm" fit --form additive profile.txt --region stencil --metric visits --maxiter 30 --seed 2 --threads 1 \
	-o visits.json -q
if sed -n 2p regions.jsonl | python3 -c '
import json, sys
want = json.load(open("visits.json"))
want.pop("run")
sys.exit(0 if json.loads(sys.stdin.read())["model"] == want else 1)'; then
	ok "--each-region: a job is fit --region R --metric M with the options after --"
else
	bad "--each-region: a job is fit --region R --metric M"
fi
"$pm" batch --each-region profile.txt --command discover -o disc_regions.jsonl -- --max-terms 1 \
	--beam 2 --maxiter 20 --no-intervals
has "--each-region --command discover" disc_regions.jsonl '^\{"id": "halo_exchange/time", "model": '
expect_fail "--each-region and a jobs file" 2 "no jobs file" -- \
	"$pm" batch jobs/jobs.jsonl --each-region profile.txt
expect_fail "options after -- without --each-region" 2 "are --each-region's" -- \
	"$pm" batch jobs/jobs.jsonl -- --seed 3
expect_fail "--command" 2 "--command 'sweep'" -- "$pm" batch --each-region profile.txt --command sweep
expect_fail "--each-region of a CSV file" 1 "gemm_cpu.csv: a csv file, which has no regions or metrics" -- \
	"$pm" batch --each-region jobs/data/gemm_cpu.csv

# what makes an --each-region job the one it is, and what becomes of its
# model, are not the options after --'s to say; nor is --help
unharmed "--each-region -o the profile" 1 "cannot write profile.txt: it is the --each-region profile" \
	profile.txt -- "$pm" batch --each-region profile.txt -o profile.txt
unharmed "--each-region -o a file every job reads" 1 "it is 'jobs/gemm.json' after --, an input" \
	jobs/gemm.json -- "$pm" batch --each-region profile.txt -o jobs/gemm.json -- --spec jobs/gemm.json
for opt in "--callpath main:callpath" "--call=main:callpath" "--region stencil:region" \
	"--metric visits:metric" "--target time:target" "-o m.json:output" "-q:quiet" \
	"--json:json"; do
	unharmed "-- ${opt%:*}" 2 "--${opt#*:} after --: " regions.jsonl -- \
		"$pm" batch --each-region profile.txt -o regions.jsonl -- ${opt%:*}
done
unharmed "-- --help" 2 "--help after --: a job prints no usage" regions.jsonl -- \
	"$pm" batch --each-region profile.txt -o regions.jsonl -- --seed 2 --he
[ ! -s stdout.txt ] && ok "-- --help: no usage printed" || bad "-- --help: no usage printed"
unharmed "-- DATA" 2 "'other.csv' after --: every job reads profile.txt" regions.jsonl -- \
	"$pm" batch --each-region profile.txt -o regions.jsonl -- other.csv
unharmed "-- --seed without a value" 2 "'--seed' after --: needs a value" regions.jsonl -- \
	"$pm" batch --each-region profile.txt -o regions.jsonl -- --seed
unharmed "-- --version" 2 "'--version' after --: not an option of fit" regions.jsonl -- \
	"$pm" batch --each-region profile.txt -o regions.jsonl -- --version

echo "batch: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
