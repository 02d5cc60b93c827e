# What the end-to-end scripts (validate.sh, discover.sh) share, sourced
# first: a scratch folder to work in, removed on exit, and the TAP helpers
# ok, bad, has and expect_fail, counting into pass and fail.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok $((pass + fail)) - $1"; }
bad() { fail=$((fail + 1)); echo "not ok $((pass + fail)) - $1"; shift; printf '  %s\n' "$@"; }
# has NAME FILE REGEX...: the command's output file matches every regex
has() {
	local name=$1 file=$2
	shift 2
	for re in "$@"; do
		if ! grep -Eq -e "$re" "$file"; then
			bad "$name" "no /$re/ in $file:" "$(cut -c1-300 "$file")"
			return
		fi
	done
	ok "$name"
}
# expect_fail NAME WANT_EXIT STDERR_REGEX -- COMMAND...
expect_fail() {
	local name=$1 want=$2 regex=$3
	shift 4
	"$@" >stdout.txt 2>stderr.txt
	local rc=$?
	if [ "$rc" -ne "$want" ] || [ "$(wc -l <stderr.txt)" -ne 1 ] ||
		! grep -Eq -e "$regex" stderr.txt; then
		bad "$name" "exit $rc, wanted $want and /$regex/" "$(cat stderr.txt)"
	else
		ok "$name"
	fi
}
# wait_lines FILE N: until FILE (written by a command in the background) has
# N lines, for at most a minute
wait_lines() {
	for _ in $(seq 600); do
		[ "$(wc -l 2>/dev/null <"$1" || echo 0)" -ge "$2" ] && return
		sleep 0.1
	done
}
# wait_results FILE N: until perfmodel batch -o FILE has written N lines,
# into the temporary file beside FILE that becomes FILE at the end
wait_results() {
	for _ in $(seq 600); do
		for f in "$(dirname "$1")"/.perfmodel-*; do
			[ -f "$f" ] && [ "$(wc -l <"$f")" -ge "$2" ] && return
		done
		sleep 0.1
	done
}
