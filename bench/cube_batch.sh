#!/usr/bin/env bash
# batch --each-region over a CUBE set (docs/batch.md, "A CUBE set is read
# once"): the same jobs, every call path × metric of a set from
# bench/cube_set.py, run by --each-region (the set read once for all of
# them, pm_read_cache) and from a jobs file (each job reads the profiles
# itself, as every job did before); prints each one's wall and CPU time and
# whether the models are the same. Timings are printed, never asserted.
#
# usage: bench/cube_batch.sh [BUILD] [CALLPATHS] [LOCATIONS] [POINTS] [REPS]
#   BUILD: the build folder (default build); the set's shape: bench/cube_set.py's
#   (defaults 500 call paths, 128 locations, 8 points x 3 repetitions)
set -u
root=$(realpath "$(dirname "$0")/..")
build=$(realpath "${1:-$root/build}")
pm=$build/cli/perfmodel
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
shift $(($# > 0 ? 1 : 0))
python3 "$root/bench/cube_set.py" "$work/set" "$@" || exit 1
opts=(--intrinsic x --maxiter 20 --no-intervals)
echo "set: $(ls "$work/set" | wc -l) profiles, $(du -sh "$work/set" | cut -f1); load $(cut -d' ' -f1 /proc/loadavg)"
# the jobs file: the pairs --each-region makes, in its order and with its ids
"$pm" inspect "$work/set" --json | python3 -c '
import json, sys
opts = sys.argv[2:]
for p in json.load(sys.stdin)["regions"]:
    job = {"id": p["region"] + "/" + p["metric"], "data": sys.argv[1], "region": p["region"],
           "metric": p["metric"], "intrinsic": "x", "maxiter": 20, "intervals": False}
    print(json.dumps(job))' "$work/set" >"$work/jobs.jsonl"
echo "jobs: $(wc -l <"$work/jobs.jsonl")"
/usr/bin/time -f "--each-region (the set read once): %e s wall, %U s CPU" \
	"$pm" batch --each-region "$work/set" -o "$work/once.jsonl" -- "${opts[@]}"
/usr/bin/time -f "jobs file (each job reads the set): %e s wall, %U s CPU" \
	"$pm" batch "$work/jobs.jsonl" -o "$work/each.jsonl"
if cmp -s "$work/once.jsonl" "$work/each.jsonl"; then
	echo "results: the same bytes"
else
	echo "results: DIFFER"
	exit 1
fi
echo "load $(cut -d' ' -f1 /proc/loadavg)"
