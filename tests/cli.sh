#!/usr/bin/env bash
# End-to-end tests of the perfmodel command line: real data in data/ with the
# specs in models/, and every bad input the core issue lists. Each bad input
# must exit 1 with one line on stderr naming the place, and leave no file.
# usage: cli.sh PERFMODEL SOURCE_ROOT
set -u
pm=$(realpath "$1")
root=$(realpath "$2")
data=$root/data
fix=$root/tests/data/cli
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
pass=0
fail=0

ok() { pass=$((pass + 1)); echo "ok $((pass + fail)) - $1"; }
bad() { fail=$((fail + 1)); echo "not ok $((pass + fail)) - $1"; shift; printf '  %s\n' "$@"; }

# expect_fail NAME WANT_EXIT STDERR_REGEX -- COMMAND...: exit code, one stderr
# line matching the regex, and no out.json left behind.
expect_fail() {
	local name=$1 want=$2 regex=$3
	shift 4
	rm -f out.json
	"$@" >stdout.txt 2>stderr.txt
	local rc=$? lines
	lines=$(wc -l <stderr.txt)
	if [ "$rc" -ne "$want" ]; then
		bad "$name" "exit $rc, wanted $want" "$(cat stderr.txt)"
	elif [ "$lines" -ne 1 ]; then
		bad "$name" "stderr has $lines lines" "$(cat stderr.txt)"
	elif ! grep -Eq -e "$regex" stderr.txt; then
		bad "$name" "stderr does not match /$regex/" "$(cat stderr.txt)"
	elif [ -e out.json ] || ls out.json.* >/dev/null 2>&1; then
		bad "$name" "an output file was left behind"
	else
		ok "$name"
	fi
}

check() {	# check NAME COMMAND...: the command must succeed
	local name=$1
	shift
	if "$@" >/dev/null 2>check.err; then ok "$name"; else bad "$name" "$(cat check.err)"; fi
}

# ---- the happy path on real data
if "$pm" fit "$data/gemm_cpu.csv" --spec "$root/models/gemm.json" -o gemm.json >fit.txt 2>fit.err &&
	grep -q "q_threads" fit.txt && grep -q "MAPE" fit.txt && [ -s gemm.json ]; then
	ok "fit gemm with a spec"
else
	bad "fit gemm with a spec" "$(cat fit.err fit.txt)"
fi
check "model.json has the format" grep -q '"format": "perfmodel-model"' gemm.json

"$pm" fit "$data/lenet5_cpu.csv" --spec "$root/models/lenet5.json" --maxiter 40 --threads 1 -o t1.json -q
"$pm" fit "$data/lenet5_cpu.csv" --spec "$root/models/lenet5.json" --maxiter 40 --threads 2 -o t2.json -q
if [ -s t1.json ] && diff <(sed '/"run"/,$d' t1.json) <(sed '/"run"/,$d' t2.json) >/dev/null; then
	ok "--threads 1 and 2 give the same model.json"
else
	bad "--threads 1 and 2 give the same model.json" "$(diff t1.json t2.json | head)"
fi

"$pm" fit "$data/gemm_cpu.csv" --target time_s --extrinsic threads -q -o roles.json
if grep -q '"name": "n", "role": "intrinsic"' roles.json 2>/dev/null ||
	grep -A1 '"name": "n"' roles.json | grep -q intrinsic; then
	ok "roles from flags, the rest inferred"
else
	bad "roles from flags, the rest inferred" "$(head -30 roles.json)"
fi
if grep -q loadavg_1m roles.json; then ok "inferred numeric column used"; else bad "inferred numeric column used"; fi

printf 'n,threads\n512,1\n512,2\n' >points.csv
if "$pm" predict -m gemm.json points.csv >pred.csv && [ "$(head -1 pred.csv)" = "n,threads,predicted" ] &&
	[ "$(wc -l <pred.csv)" -eq 3 ]; then
	ok "predict -m with a CSV"
else
	bad "predict -m with a CSV" "$(cat pred.csv)"
fi

mkdir -p sub
cp gemm.json sub/model.json
printf '{"model": "model.json", "points": [{"n": 512, "threads": 1}, {"n": 512, "threads": 2}]}' >sub/config.json
if "$pm" predict sub/config.json >pred2.csv && diff pred.csv pred2.csv >/dev/null; then
	ok "predict CONFIG resolves the model next to it and agrees with -m"
else
	bad "predict CONFIG resolves the model next to it and agrees with -m" "$(cat pred2.csv)"
fi
printf '{"model": "model.json", "point": {"n": 512, "threads": 1}}' >sub/one.json
check "predict a single \"point\"" "$pm" predict sub/one.json
if "$pm" predict sub/config.json --json | grep -q '"predicted": '; then ok "predict --json"; else bad "predict --json"; fi

if "$pm" eval -m gemm.json "$data/gemm_cpu.csv" | grep -q "MAPE"; then ok "eval"; else bad "eval"; fi
if "$pm" eval -m gemm.json "$data/gemm_cpu.csv" --json | grep -q '"r2": '; then ok "eval --json"; else bad "eval --json"; fi
check "--version" "$pm" --version
check "help fit" "$pm" help fit
check "fit -h" "$pm" fit -h

# ---- bad input: exit 1, one line naming the place, no output file
spec=$root/models/gemm.json
fitcmd() { "$pm" fit "$1" --spec "${2:-$spec}" -o out.json -q; }
expect_fail "empty file" 1 "empty.csv:1:1: empty file" -- fitcmd "$fix/empty.csv"
expect_fail "header only" 1 "header_only.csv:.*no data rows" -- fitcmd "$fix/header_only.csv"
expect_fail "ragged row" 1 "ragged.csv:3:[0-9]+: .*fields" -- fitcmd "$fix/ragged.csv"
expect_fail "unterminated quote" 1 "unterminated.csv:3:[0-9]+: .*quote" -- fitcmd "$fix/unterminated.csv"
expect_fail "duplicate column" 1 "duplicate.csv:1:[0-9]+: .*duplicate column name 'n'" -- fitcmd "$fix/duplicate.csv"
expect_fail "spec column missing" 1 "no column 'threads'" -- fitcmd "$fix/no_threads.csv"
expect_fail "text in a numeric column" 1 "text.csv:3:1: column 'n': 'big' is not a number" -- fitcmd "$fix/text.csv"
expect_fail "NaN" 1 "nan.csv:2:[0-9]+: column 'time_s': .*finite" -- fitcmd "$fix/nan.csv"
expect_fail "Inf" 1 "inf.csv:2:1: column 'n': .*finite" -- fitcmd "$fix/inf.csv"
expect_fail "zero under a power" 1 "zero.csv:3:[0-9]+: column 'threads': 0 must be > 0.*categorical" -- fitcmd "$fix/zero.csv"
expect_fail "negative target" 1 "negative_time.csv:2:[0-9]+: target 'time_s'" -- fitcmd "$fix/negative_time.csv"
expect_fail "fewer rows than unknowns" 1 "2 rows but 4 unknowns" -- fitcmd "$fix/two_rows.csv"
expect_fail "spec syntax error" 1 "syntax.json:3:[0-9]+: " -- fitcmd "$data/gemm_cpu.csv" "$fix/syntax.json"
expect_fail "unknown spec key" 1 "unknown_key.json: unknown key 'intrinsics'" -- fitcmd "$data/gemm_cpu.csv" "$fix/unknown_key.json"
expect_fail "bound lo > hi" 1 "bounds.json: .*power.*5.*-5" -- fitcmd "$data/gemm_cpu.csv" "$fix/bounds.json"
expect_fail "missing data file" 1 "nothing.csv" -- fitcmd "$work/nothing.csv"

printf '{"model": "model.json", "point": {"n": 512, "threads": 1, "thread": 2}}' >sub/typo.json
expect_fail "predict: input the model lacks" 1 "typo.json: point 1: the model has no input 'thread'" -- "$pm" predict sub/typo.json
printf '{"model": "model.json", "point": {"n": 512}}' >sub/missing.json
expect_fail "predict: missing parameter" 1 "missing.json: point 1: missing 'threads'" -- "$pm" predict sub/missing.json
"$pm" fit "$data/ddp_mlp.csv" --spec "$root/models/ddp_mlp.json" --maxiter 5 -q -o ddp.json
printf 'hidden,layers,input_dim,activation,world_size,batch_size\n64,1,64,gelu,1,16\n' >gelu.csv
expect_fail "predict: unknown level" 1 "gelu.csv:2:[0-9]+: column 'activation': unknown level 'gelu' \(known: relu, tanh\)" -- "$pm" predict -m ddp.json gelu.csv
printf 'n,threads\n512,0\n' >zero_pt.csv
expect_fail "predict: zero under a power" 1 "zero_pt.csv:2:5: column 'threads'" -- "$pm" predict -m gemm.json zero_pt.csv
sed 's/"perfmodel-model"/"other-model"/' gemm.json >other.json
expect_fail "model of another format" 1 "other.json: .*not a perfmodel model" -- "$pm" predict -m other.json points.csv
sed 's/"version": 1,/"version": 2,/' gemm.json >v2.json
expect_fail "model of a newer version" 1 "v2.json: .*version 2" -- "$pm" predict -m v2.json points.csv

# ---- usage errors: exit 2
expect_fail "unknown command" 2 "'frobnicate' is not a command" -- "$pm" frobnicate
expect_fail "unknown option" 2 "unknown option '--bogus'" -- "$pm" fit "$data/gemm_cpu.csv" --bogus
expect_fail "bad number" 2 "--threads 'two'" -- "$pm" fit "$data/gemm_cpu.csv" --threads two
expect_fail "no data file" 2 "no data file" -- "$pm" fit
expect_fail "bad scale" 2 "--scale 'raw'" -- "$pm" fit "$data/gemm_cpu.csv" --scale raw
expect_fail "lambda without reg" 2 "--lambda needs --reg" -- "$pm" fit "$data/gemm_cpu.csv" --lambda 0.1

# ---- an existing output survives a failed run
echo keep >out.json
"$pm" fit "$fix/empty.csv" --spec "$spec" -o out.json -q 2>/dev/null
if [ "$(cat out.json)" = keep ]; then ok "a failed fit leaves an old model untouched"; else bad "a failed fit leaves an old model untouched"; fi
rm -f out.json

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
