-- perfmodel's job_submit script for Slurm's job_submit/lua plugin
-- (docs/slurm.md): a job submitted as
--
--     sbatch --comment "perfmodel model=train.json threads=8 batch_size=64 iterations=2000" job.sh
--
-- gets its TimeLimit from the model's upper quantile and its TimeMin from
-- its lower one, and a message saying what was set and why. Any job the
-- model cannot answer is accepted as it was submitted, with a message
-- saying why, unless the site sets strict below.
--
-- Install: this file next to slurm.conf, JobSubmitPlugins=lua in slurm.conf,
-- and perfmodel.so where slurmctld's Lua finds it (LUA_CPATH, or
-- settings.module_dir below).

---------------------------------------------------------------- site settings
local settings = {
	-- the folder of model files (perfmodel fit -o); a job names its model
	-- relative to it, and can name nothing outside it
	models = os.getenv("PERFMODEL_MODELS") or "/etc/slurm/perfmodel",
	-- TimeLimit: this quantile of the job's time (0.95: 1 run in 20 of
	-- such jobs would reach it); TimeMin: this one, at most the first
	time_quantile = 0.95,
	time_min_quantile = 0.8,
	-- both limits are this many times the quantiles (>= 1), before
	-- Slurm's rounding up to whole minutes
	margin = 1.0,
	-- seconds in the models' time unit (1: the models predict seconds)
	unit_s = 1,
	-- true: a job whose comment asks for a model that cannot answer is
	-- rejected; false: it is accepted unchanged, with a message
	strict = false,
	-- tell a job without a perfmodel comment that its limits were left
	tell_without_comment = true,
	-- the folder holding perfmodel.so, when LUA_CPATH does not name it
	module_dir = nil,
}
--------------------------------------------------------------------------------

if settings.module_dir then
	package.cpath = settings.module_dir .. "/?.so;" .. package.cpath
end
local loaded, perfmodel = pcall(require, "perfmodel")

-- The comment "perfmodel model=NAME key=value ... [iterations=N] [setup=S]"
-- as {model=, iterations=, setup=, inputs={key=value}}, values as text (the
-- module reads numbers whatever the locale); nil when the comment is not
-- perfmodel's; false and a reason when it is, but malformed.
local function parse_comment(comment)
	if type(comment) ~= "string" then
		return nil
	end
	local words = {}
	for word in comment:gmatch("%S+") do
		words[#words + 1] = word
	end
	if words[1] ~= "perfmodel" then
		return nil
	end
	local req = { inputs = {} }
	local seen = {}
	for i = 2, #words do
		local key, value = words[i]:match("^([%w_]+)=(%S+)$")
		if not key then
			return false, string.format("'%s' is not key=value", words[i])
		end
		if seen[key] then
			return false, string.format("'%s' is given twice", key)
		end
		seen[key] = true
		if key == "model" then
			req.model = value
		elseif key == "iterations" or key == "setup" then
			req[key] = value
		else
			req.inputs[key] = value
		end
	end
	if not req.model then
		return false, "no model=NAME"
	end
	return req
end

-- Accept the job unchanged (or reject it, strict), telling the user why.
local function decline(reason, asked)
	local text = "perfmodel: " .. reason
	if asked and settings.strict then
		slurm.log_user("%s: job rejected", text)
		return slurm.ERROR
	end
	slurm.log_user("%s: time limits left as submitted", text)
	return slurm.SUCCESS
end

local function minutes_text(m)
	return string.format("%d min", m)
end

function slurm_job_submit(job_desc, part_list, submit_uid)
	local req, bad = parse_comment(job_desc.comment)
	if req == nil then
		if settings.tell_without_comment then
			slurm.log_user("%s", "perfmodel: no 'perfmodel model=...' comment: time limits left as submitted")
		end
		return slurm.SUCCESS
	end
	if not req then
		return decline("the comment '" .. job_desc.comment .. "' cannot be read: " .. bad ..
			" (expected: perfmodel model=NAME input=value ... iterations=N [setup=S])", true)
	end
	if not loaded then
		return decline("the perfmodel Lua module cannot be loaded: " .. tostring(perfmodel), true)
	end
	local l, why = perfmodel.limits {
		models = settings.models, model = req.model, inputs = req.inputs,
		iterations = req.iterations, setup = req.setup,
		time_quantile = settings.time_quantile,
		time_min_quantile = settings.time_min_quantile,
		margin = settings.margin, unit_s = settings.unit_s,
	}
	if not l then
		return decline(why, true)
	end
	if l.time_minutes == 0 then
		return decline(string.format("model '%s': the %g-quantile, %.0f s, is longer than " ..
			"Slurm's longest limit", req.model, settings.time_quantile, l.time_s), true)
	end
	job_desc.time_limit = l.time_minutes
	job_desc.time_min = l.time_min_minutes
	slurm.log_user("%s", string.format("perfmodel: model '%s' predicts %.0f s for %s " ..
		"iterations; TimeLimit=%s (%s, its %g-quantile%s) and TimeMin=%s (%s, its " ..
		"%g-quantile)%s", req.model, l.predicted_s, req.iterations or "1", l.time,
		minutes_text(l.time_minutes), settings.time_quantile,
		settings.margin ~= 1 and string.format(" x %g", settings.margin) or "",
		l.time_min, minutes_text(l.time_min_minutes), settings.time_min_quantile,
		l.extrapolated and string.format("; beyond the model's data (distance %.2f)",
			l.distance) or ""))
	return slurm.SUCCESS
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
	return slurm.SUCCESS
end

return slurm.SUCCESS
