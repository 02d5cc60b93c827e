# shellcheck shell=bash
# The set-up bench/select_vs_rf.sh and bench/discover_vs_rf.sh share; sourced,
# not run. From the caller's arguments it takes [PERFMODEL] [--] (the rest stay
# in "$@"), sets root, pm (the binary, default build/cli/perfmodel), seed (SEED,
# default 1) and out (OUT, else a temporary folder removed on exit), installs the
# forest's dependency and defines heldout.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
pm=${1:-$root/build/cli/perfmodel}
shift $(($# > 0 ? 1 : 0))
[ "${1:-}" = "--" ] && shift
# shellcheck disable=SC2034  # used by the scripts that source this
seed=${SEED:-1}
if [ -n "${OUT:-}" ]; then
	out=$OUT
	mkdir -p "$out"
else
	out=$(mktemp -d)
	trap 'rm -rf "$out"' EXIT
fi
"$root/bench/setup-rf.sh"

heldout() {	# heldout MODEL TEST.csv: the MAPE on the held-out rows
	"$pm" eval -m "$1" "$2" --json | /usr/bin/python3 -c 'import json,sys; print("%.2f" % json.load(sys.stdin)["mape"])'
}
