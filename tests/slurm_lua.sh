#!/usr/bin/env bash
# The Slurm plugin without a cluster (issue 36, item 4): the Lua module
# (slurm/perfmodel_lua.c) and slurm/job_submit.lua run by the lua5.1
# interpreter with a fake slurm table and job descriptions. The limits are
# advise --slurm's for the same job; every refusal is told, never shows a
# file's contents, and leaves the job as it was.
# usage: slurm_lua.sh PERFMODEL SOURCE_ROOT MODULE_DIR
set -u
pm=$(realpath "$1")
root=$(realpath "$2")
moddir=$(realpath "$3")
here=$(dirname "$(realpath "$0")")
. "$here/tap.sh"
. "$here/slurm_models.sh"

if ! command -v lua5.1 >/dev/null || [ ! -f "$moddir/perfmodel.so" ]; then
	echo "1..0 # SKIP lua5.1 or the module perfmodel.so was not built (meson -Dslurm, liblua5.1-0-dev)"
	exit 77	# meson: skipped
fi
export LUA_CPATH="$moddir/?.so"
make_models "$pm" || { echo "Bail out! the test's models cannot be fitted"; exit 1; }
models=$(pwd)/models
read -r want_time want_min <<<"$(advise_minutes "$pm" 8 64 relu 200000)"

# ---- the module
# limits MODEL 'INPUTS' [EXTRA]: "ok TIME_MIN TIME_MIN_MIN EXTRAPOLATED" or "nil MESSAGE"
limits() {
	lua5.1 - "$models" "$1" "$2" "${3:-}" <<'LUA'
local perfmodel = require "perfmodel"
local models, model, inputs, extra = ...
local opts = loadstring("return {" .. (extra or "") .. "}")()
opts.models = opts.models or models
opts.model = model
opts.inputs = loadstring("return " .. inputs)()
for k, v in pairs({ iterations = 200000, time_quantile = 0.95, time_min_quantile = 0.8 }) do
	if opts[k] == nil then opts[k] = v end
end
local l, why = perfmodel.limits(opts)
if l then
	print(string.format("ok %d %d %s %s %s", l.time_minutes, l.time_min_minutes,
		tostring(l.extrapolated), l.time, l.time_min))
else
	print("nil " .. why)
end
LUA
}
limits train.json '{threads = 8, batch_size = 64, activation = "relu"}' >out.txt
if [ "$(cut -d' ' -f1-3 out.txt)" = "ok $want_time $want_min" ]
then ok "perfmodel.limits: TimeLimit and TimeMin in minutes as advise --slurm's ($want_time, $want_min)"
else bad "perfmodel.limits: TimeLimit and TimeMin in minutes as advise --slurm's" "want $want_time $want_min" "$(cat out.txt)"; fi
# strings as the comment gives them read the same
limits train.json '{threads = "8", batch_size = "64", activation = "relu"}' >out2.txt
if cmp -s out.txt out2.txt; then ok "perfmodel.limits: numbers given as text read the same"
else bad "perfmodel.limits: numbers given as text read the same" "$(cat out.txt out2.txt)"; fi
limits train.json '{threads = 8, batch_size = 64, activation = "relu"}' 'iterations = "2e5"' >out4.txt
if cmp -s out.txt out4.txt; then ok "perfmodel.limits: iterations given as text read the same"
else bad "perfmodel.limits: iterations given as text read the same" "$(cat out.txt out4.txt)"; fi
limits sub/train.json '{threads = 8, batch_size = 64, activation = "relu"}' >out3.txt
if cmp -s out.txt out3.txt; then ok "perfmodel.limits: a model in a subfolder"
else bad "perfmodel.limits: a model in a subfolder" "$(cat out.txt out3.txt)"; fi
# the margin scales the seconds before the rounding: twice the limits, give or take a minute
limits train.json '{threads = 8, batch_size = 64, activation = "relu"}' 'margin = 2' >m.txt
read -r _ mt mm _ <m.txt
if [ "$mt" -ge $((2 * want_time - 1)) ] && [ "$mt" -le $((2 * want_time)) ] &&
	[ "$mm" -ge $((2 * want_min - 1)) ] && [ "$mm" -le $((2 * want_min)) ]
then ok "perfmodel.limits: margin = 2 doubles both limits"
else bad "perfmodel.limits: margin = 2 doubles both limits" "$(cat m.txt)"; fi

# refused: nil and a message naming the model and the reason
refused() {
	local name=$1 model=$2 inputs=$3 regex=$4 extra=${5:-}
	limits "$model" "$inputs" "$extra" >r.txt 2>&1
	if grep -Eq -e "^nil .*$regex" r.txt && ! grep -q SECRET r.txt && ! grep -q root: r.txt
	then ok "perfmodel.limits refuses $name"
	else bad "perfmodel.limits refuses $name" "wanted nil and /$regex/" "$(cat r.txt)"; fi
}
in='{threads = 8, batch_size = 64, activation = "relu"}'
refused "a name with .." "../outside.json" "$in" "model '../outside.json': a name with '..' is refused"
refused "a name with .. inside" "sub/../train.json" "$in" "a name with '..' is refused"
refused "an absolute path" "$root/models/gemm.json" "$in" "an absolute path is refused"
refused "an absolute path to /etc/passwd" "/etc/passwd" "$in" "model '/etc/passwd': an absolute path is refused"
refused "a link out of the folder" "out.json" "$in" "model 'out.json': it links outside the models folder"
refused "a missing model" "none.json" "$in" "model 'none.json' cannot be read: No such file"
refused "a broken model, without its contents" "broken.json" "$in" \
	"model 'broken.json' is not a model file: invalid text at line 1, column [0-9]+$"
refused "a folder" "sub" "$in" "model 'sub' is not a regular file"
refused "an unknown level" "train.json" '{threads = 8, batch_size = 64, activation = "gelu"}' \
	"model 'train.json': .*gelu"
refused "a missing input" "train.json" '{threads = 8, activation = "relu"}' \
	"model 'train.json': missing input 'batch_size'"
refused "an unknown input" "train.json" '{threads = 8, batch_size = 64, activation = "relu", gpus = 2}' \
	"model 'train.json': the model has no input 'gpus'"
refused "a numeric input that is no number" "train.json" '{threads = "eight", batch_size = 64, activation = "relu"}' \
	"input 'threads' is numeric: 'eight' is not a number"
refused "a model without intervals" "plain.json" "$in" "model 'plain.json': .*intervals"
refused "a missing models folder" "train.json" "$in" "the models folder '/nonexistent' cannot be found" \
	'models = "/nonexistent"'
refused "a margin below 1" "train.json" "$in" "'margin' must be a finite number >= 1" 'margin = 0.5'
refused "iterations that are no number" "train.json" "$in" "iterations=many is not a number$" 'iterations = "many"'
refused "a setup of the wrong type" "train.json" "$in" "'setup' must be a number" 'setup = true'
refused "iterations of 0" "train.json" "$in" "model 'train.json': .*iterations" 'iterations = 0'

# ---- job_submit.lua with a fake slurm table
# submit 'COMMENT' [strict]: "RC TIME_LIMIT TIME_MIN" then the user's messages
submit() {
	lua5.1 - "$root/slurm/job_submit.lua" "$1" "${2:-false}" <<'LUA'
local script, comment, strict = ...
local NO_VAL = 4294967294
slurm = { SUCCESS = 0, ERROR = -1, NO_VAL = NO_VAL, messages = {} }
function slurm.log_user(fmt, ...) slurm.messages[#slurm.messages + 1] = string.format(fmt, ...) end
function slurm.log_info(fmt, ...) end
-- the site's settings are the script's first lines: strict as asked
local text = assert(io.open(script)):read("*a")
text = text:gsub("strict = false", "strict = " .. strict, 1)
assert(loadstring(text, "job_submit.lua"))()
local job = { comment = comment ~= "" and comment or nil, time_limit = NO_VAL, time_min = NO_VAL }
local rc = slurm_job_submit(job, {}, 1000)
print(rc, job.time_limit, job.time_min)
for _, m in ipairs(slurm.messages) do print(m) end
assert(slurm_job_modify(job, {}, {}, 1000) == slurm.SUCCESS)
LUA
}
NO_VAL=4294967294
export PERFMODEL_MODELS=$models
submit "perfmodel model=train.json threads=8 batch_size=64 activation=relu iterations=200000" >s.txt
if [ "$(head -1 s.txt | tr '\t' ' ')" = "0 $want_time $want_min" ] &&
	grep -Eq "^perfmodel: model 'train.json' predicts [0-9]+ s for 200000 iterations; TimeLimit=.* \($want_time min, its 0.95-quantile\) and TimeMin=.* \($want_min min, its 0.8-quantile\)$" s.txt
then ok "job_submit: TimeLimit and TimeMin set as advise --slurm's, and the user told why"
else bad "job_submit: TimeLimit and TimeMin set as advise --slurm's, and the user told why" "want $want_time $want_min" "$(cat s.txt)"; fi

# untouched: SUCCESS, both limits as submitted, a message saying why
untouched() {
	local name=$1 comment=$2 regex=$3
	submit "$comment" >u.txt
	if [ "$(head -1 u.txt | tr '\t' ' ')" = "0 $NO_VAL $NO_VAL" ] &&
		[ "$(sed 1d u.txt | wc -l)" -eq 1 ] && grep -Eq -e "$regex" u.txt && ! grep -q SECRET u.txt
	then ok "job_submit: $name: accepted unchanged, told why"
	else bad "job_submit: $name: accepted unchanged, told why" "wanted /$regex/" "$(cat u.txt)"; fi
}
untouched "no comment" "" "^perfmodel: no 'perfmodel model=...' comment: time limits left as submitted$"
untouched "another comment" "my own notes" "no 'perfmodel model=...' comment"
untouched "a word that is not key=value" "perfmodel model=train.json threads" \
	"comment .* cannot be read: 'threads' is not key=value \(expected: perfmodel model=NAME"
untouched "no model" "perfmodel threads=8" "cannot be read: no model=NAME"
untouched "a key twice" "perfmodel model=train.json threads=8 threads=4" "'threads' is given twice"
untouched "iterations not a number" "perfmodel model=train.json iterations=many" "iterations=many is not a number"
untouched "a broken model" "perfmodel model=broken.json threads=8" \
	"^perfmodel: model 'broken.json' is not a model file: invalid text at line 1, column [0-9]+: time limits left as submitted$"
untouched "an unknown level" "perfmodel model=train.json threads=8 batch_size=64 activation=gelu iterations=10" \
	"^perfmodel: model 'train.json': .*gelu.*: time limits left as submitted$"
untouched "a missing input" "perfmodel model=train.json threads=8 activation=relu" \
	"missing input 'batch_size'"
untouched "a name with .." "perfmodel model=../outside.json threads=8" "a name with '..' is refused"
untouched "a missing model" "perfmodel model=none.json threads=8" "model 'none.json' cannot be read"
untouched "a limit beyond Slurm's longest" \
	"perfmodel model=train.json threads=8 batch_size=64 activation=relu iterations=1e12" \
	"^perfmodel: model 'train.json': the 0.95-quantile, [0-9]+ s, is longer than Slurm's longest limit: time limits left as submitted$"
# strict: the site asked for it, so a job the model cannot answer is rejected
submit "perfmodel model=train.json threads=8 activation=relu" true >x.txt
if [ "$(head -1 x.txt | cut -f1)" = "-1" ] && grep -Eq "missing input .batch_size.*: job rejected$" x.txt
then ok "job_submit: strict = true rejects a job the model cannot answer"
else bad "job_submit: strict = true rejects a job the model cannot answer" "$(cat x.txt)"; fi
submit "" true >y.txt
if [ "$(head -1 y.txt | cut -f1)" = "0" ]; then ok "job_submit: strict = true still accepts a job without the comment"
else bad "job_submit: strict = true still accepts a job without the comment" "$(cat y.txt)"; fi
# the module missing: every job accepted, told why
LUA_CPATH="/nonexistent/?.so" submit "perfmodel model=train.json threads=8 batch_size=64 activation=relu" >z.txt
if [ "$(head -1 z.txt | tr '\t' ' ')" = "0 $NO_VAL $NO_VAL" ] && grep -q "the perfmodel Lua module cannot be loaded" z.txt
then ok "job_submit: without the module, jobs are accepted unchanged and told why"
else bad "job_submit: without the module, jobs are accepted unchanged and told why" "$(cat z.txt)"; fi

echo "1..$((pass + fail))"
[ "$fail" -eq 0 ]
