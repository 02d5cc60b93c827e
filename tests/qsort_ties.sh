#!/usr/bin/env bash
# Nothing perfmodel writes depends on the order qsort gives elements its
# comparator calls equal, which C leaves to the library: each command
# below, run with tests/qsort_reversed.c preloaded (ties last to first)
# and without (glibc's order), gives the same bytes, run times aside.
# Hypotheses of one score in discover (the chosen formula changed with the
# order before their comparator broke ties), -0 beside 0 (which zero a
# de-duplication keeps), an Extra-P point listed twice (which line the
# error names).
# usage: qsort_ties.sh PERFMODEL QSORT_REVERSED.so SOURCE_ROOT
set -u
pm=$(realpath "$1")
reversed=$(realpath "$2")
root=$(realpath "$3")
here=$(dirname "$(realpath "$0")")
. "$here/tap.sh"

# a column of 0 and -0 (and a switch between them for discover to place)
printf 'x,n,t\n' >zeros.csv
for n in 1 2 4 8 16 32; do
	printf -- '-0,%s,%s\n0,%s,%s\n1,%s,%s\n' "$n" "$((n * 3 + 1))" "$n" "$((n * 3 + 2))" \
		"$n" "$((n * 5 + 1))" >>zeros.csv
done
# point 2 of region a on lines 2 and 3, region b without it
printf '%s\n' '{"params": {"p": 1}, "value": 1, "callpath": "a"}' \
	'{"params": {"p": 2}, "value": 2, "callpath": "a"}' \
	'{"params": {"p": 2}, "value": 4, "callpath": "a"}' \
	'{"params": {"p": 1}, "value": 3, "callpath": "b"}' >twice.jsonl

cmds=(
	"discover $root/data/lenet5_cpu.csv --spec $root/models/lenet5.json --threads 2 -q -o out.json"
	"fit $root/data/ddp_mlp.csv --spec $root/models/ddp_mlp.json --threads 2 -q -o out.json"
	"inspect zeros.csv --json"
	"discover zeros.csv --target t --intrinsic x,n --threads 1 -q -o out.json"
	"fit zeros.csv --target t --formula a*n^p+b*[x>0.5]+C --validate extrapolate:x:0.4 --maxiter 20 --no-intervals -q -o out.json"
	"inspect twice.jsonl --region b")
# what a command wrote, less its run time
steady() { cat "$1"; [ -f out.json ] && sed -E 's/"wall_time_s": [0-9.e+-]+//' out.json; }
for args in "${cmds[@]}"; do
	rm -f out.json
	# shellcheck disable=SC2086
	"$pm" $args >glibc.out 2>&1
	rc=$?
	steady glibc.out >glibc.all
	rm -f out.json
	# shellcheck disable=SC2086
	LD_PRELOAD=$reversed "$pm" $args >reversed.out 2>&1
	rrc=$?
	steady reversed.out >reversed.all
	if [ "$rc" -eq "$rrc" ] && [ -s glibc.all ] && cmp -s glibc.all reversed.all; then
		ok "ties of qsort in either order: the same bytes from $(echo "$args" | cut -c1-70)"
	else
		bad "ties of qsort in either order: the same bytes from $args" "exit $rc/$rrc" \
			"$(diff glibc.all reversed.all | head -6)"
	fi
done
echo "1..$((pass + fail))"
[ "$fail" -eq 0 ]
