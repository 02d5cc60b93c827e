/*
 * perfmodel.so: the predictor as a Lua 5.1 module, for Slurm's job_submit/lua
 * plugin (slurm/job_submit.lua, docs/slurm.md).
 *
 *     local perfmodel = require "perfmodel"
 *     local l, why = perfmodel.limits{models = "/etc/slurm/models",
 *         model = "train.json", inputs = {threads = 8, batch_size = "64"},
 *         iterations = 2000, setup = "0", time_quantile = 0.95,
 *         time_min_quantile = 0.8, margin = 1, unit_s = 1}
 *
 * gives {time_minutes, time_min_minutes, time, time_min, time_s, time_min_s,
 * predicted_s, extrapolated, distance}, or nil and a message. The limits are
 * pm_slurm_limits_at's, the one function advise --slurm calls too.
 *
 * slurmctld runs the plugin as root, under its locks, for every submission:
 * - a model is named relative to the models folder, without "..", and the
 *   file it resolves to (links followed) must lie inside that folder;
 * - a message names the model and the reason, never a file's contents: a
 *   file that does not load is described by the kind of failure alone;
 * - nothing is kept between calls (each reads its model afresh: no cache,
 *   no global state, nothing to lock), and the only allocations are the
 *   model, its point and the file's text, freed before the call returns.
 * Linked to libperfmodel-predict alone; the Lua API comes from the host
 * (the lua5.1 interpreter, or the liblua5.1 slurmctld's plugin loads).
 */
/* realpath() is X/Open's */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>

#include <perfmodel/predict.h>

/* A model file is a few KiB to a few MiB; larger is not one. */
#define MAX_MODEL_BYTES (64L * 1024 * 1024)

/* The message of a refusal, in `why`. */
#define WHY_CHARS 640

/* errno's text, as under the C locale whatever slurmctld's, and
 * thread-safe (pm_strerror). */
struct errtext {
	char text[128];
};

static struct errtext error_text(int code)
{
	struct errtext e;

	pm_strerror(code, e.text, sizeof(e.text));
	return e;
}

/* Fail with nil, message. */
static int refuse(lua_State *L, const char *why)
{
	lua_pushnil(L);
	lua_pushstring(L, why);
	return 2;
}

/* opts[key] as a string, or NULL with why filled. */
static const char *field_string(lua_State *L, int opts, const char *key, char *why)
{
	const char *s;

	lua_getfield(L, opts, key);
	s = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
	lua_pop(L, 1);	/* the string stays alive: opts holds it */
	if (!s)
		pm_snprintf(why, WHY_CHARS, "perfmodel.limits: '%s' must be a string", key);
	return s;
}

/* opts[key] as a number, def when absent: a Lua number, or a text read
 * whatever slurmctld's locale (a job's comment gives text); -1 with why
 * filled for anything else. */
static int field_number(lua_State *L, int opts, const char *key, double def, double *v,
			char *why)
{
	const char *text = NULL;
	char *end = NULL;
	int rc = 0;

	lua_getfield(L, opts, key);
	if (lua_isnil(L, -1)) {
		*v = def;
	} else if (lua_type(L, -1) == LUA_TNUMBER) {
		*v = lua_tonumber(L, -1);
	} else if (lua_type(L, -1) == LUA_TSTRING) {
		text = lua_tostring(L, -1);
		*v = pm_strtod(text, &end);
		rc = end == text || *end ? -1 : 0;
	} else {
		rc = -1;
	}
	if (rc && text)
		pm_snprintf(why, WHY_CHARS, "%s=%s is not a number", key, text);
	else if (rc)
		pm_snprintf(why, WHY_CHARS, "perfmodel.limits: '%s' must be a number", key);
	lua_pop(L, 1);
	return rc;
}

/* The model's file: models/name, refused when the name is absolute or has
 * "..", or when it resolves (links followed) outside models. */
static int resolve(const char *models, const char *name, size_t name_len, char *path,
		   char *why)
{
	char root[PATH_MAX], joined[PATH_MAX];
	size_t n;

	if (!name_len || strlen(name) != name_len)
		return pm_snprintf(why, WHY_CHARS, "model name is empty or holds a NUL byte"), -1;
	if (name[0] == '/')
		return pm_snprintf(why, WHY_CHARS, "model '%s': an absolute path is refused; "
				   "name a file inside the models folder", name), -1;
	if (strstr(name, ".."))
		return pm_snprintf(why, WHY_CHARS, "model '%s': a name with '..' is refused; "
				   "name a file inside the models folder", name), -1;
	if (!models[0] || !realpath(models, root))
		return pm_snprintf(why, WHY_CHARS, "the models folder '%s' cannot be found: %s",
				   models, models[0] ? error_text(errno).text : "it is empty"), -1;
	if ((size_t)pm_snprintf(joined, sizeof(joined), "%s/%s", root, name) >= sizeof(joined))
		return pm_snprintf(why, WHY_CHARS, "model '%s': the path is too long", name), -1;
	if (!realpath(joined, path))
		return pm_snprintf(why, WHY_CHARS, "model '%s' cannot be read: %s", name,
				   error_text(errno).text), -1;
	n = strlen(root);
	if (strncmp(path, root, n) || (path[n] != '/' && root[n - 1] != '/'))
		return pm_snprintf(why, WHY_CHARS, "model '%s': it links outside the models "
				   "folder, which is refused", name), -1;
	return 0;
}

/* The text of the regular file at path (links were resolved already: one
 * swapped in since is not followed), NUL-terminated, into *text. */
static int read_model_text(const char *path, const char *name, char **text, char *why)
{
	struct stat st;
	ssize_t got = 0, r;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	*text = NULL;
	if (fd < 0)
		return pm_snprintf(why, WHY_CHARS, "model '%s' cannot be read: %s", name,
				   error_text(errno).text), -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > MAX_MODEL_BYTES) {
		close(fd);
		return pm_snprintf(why, WHY_CHARS, "model '%s' is not a regular file of at most "
				   "%ld bytes", name, MAX_MODEL_BYTES), -1;
	}
	if (!(*text = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return pm_snprintf(why, WHY_CHARS, "model '%s': out of memory", name), -1;
	}
	while (got < st.st_size && (r = read(fd, *text + got, (size_t)(st.st_size - got))) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			pm_snprintf(why, WHY_CHARS, "model '%s' cannot be read: %s", name,
				    error_text(errno).text);
			close(fd);
			free(*text);
			*text = NULL;
			return -1;
		}
		got += r;
	}
	close(fd);
	(*text)[got] = '\0';
	return 0;
}

/* Load the model. The loader's own message may quote the file (a JSON
 * token, a member's value): only the kind of failure and its place are
 * told. */
static int load(const char *path, const char *name, pm_model **m, char *why)
{
	char *text;
	pm_error err;
	pm_status st;

	if (read_model_text(path, name, &text, why))
		return -1;
	st = pm_model_load_string(text, name, m, &err);
	free(text);
	if (st == PM_EPARSE)
		return pm_snprintf(why, WHY_CHARS, "model '%s' is not a model file: invalid "
				   "text at line %u, column %u", name, err.line, err.column), -1;
	if (st)
		return pm_snprintf(why, WHY_CHARS, "model '%s' is not a model file this version "
				   "reads (%s)", name, pm_status_string(st)), -1;
	return 0;
}

/* Set the point from the table at index `inputs`: a number, or a string
 * (a level of a categorical input, or a number written out). */
static int set_inputs(lua_State *L, int inputs, const pm_model *m, pm_point *p, char *why)
{
	pm_error err;
	pm_status st = PM_OK;

	lua_pushnil(L);
	while (lua_next(L, inputs)) {
		const char *key, *text;
		size_t i;
		double v;
		char *end;

		if (lua_type(L, -2) != LUA_TSTRING) {
			lua_pop(L, 2);
			return pm_snprintf(why, WHY_CHARS, "perfmodel.limits: 'inputs' must be "
					   "a table of name = value"), -1;
		}
		key = lua_tostring(L, -2);
		if (pm_model_input_index(m, key, &i, NULL)) {
			pm_snprintf(why, WHY_CHARS, "the model has no input '%s'", key);
			lua_pop(L, 2);
			return -1;
		}
		if (lua_type(L, -1) == LUA_TNUMBER) {
			st = pm_point_set_num(p, key, lua_tonumber(L, -1), &err);
		} else if (lua_type(L, -1) == LUA_TSTRING) {
			text = lua_tostring(L, -1);
			if (pm_model_input_role(m, i) == PM_ROLE_CATEGORICAL) {
				st = pm_point_set_cat(p, key, text, &err);
			} else {
				/* a number whatever slurmctld's locale */
				v = pm_strtod(text, &end);
				if (end == text || *end) {
					pm_snprintf(why, WHY_CHARS, "input '%s' is numeric: '%s' is "
						    "not a number", key, text);
					lua_pop(L, 2);
					return -1;
				}
				st = pm_point_set_num(p, key, v, &err);
			}
		} else {
			pm_snprintf(why, WHY_CHARS, "input '%s': a number or a text is needed", key);
			lua_pop(L, 2);
			return -1;
		}
		lua_pop(L, 1);
		if (st) {
			lua_pop(L, 1);
			return pm_snprintf(why, WHY_CHARS, "%s", err.msg), -1;
		}
	}
	for (size_t i = 0; i < pm_model_ninputs(m); i++)
		if (isnan(pm_point_values(p)[i]))
			return pm_snprintf(why, WHY_CHARS, "missing input '%s' (the model needs %s "
					   "set)", pm_model_input_name(m, i),
					   pm_model_ninputs(m) > 1 ? "each of its inputs" : "it"), -1;
	return 0;
}

/* What perfmodel.limits answers. */
struct answer {
	pm_slurm_limits l;
	double predicted_s;	/* the job's predicted time, without the margin */
};

/* The limits at the point. */
static int compute(const pm_model *m, const double *x, const pm_job *job, double time_q,
		   double min_q, double margin, double unit_s, struct answer *a, char *why)
{
	pm_error err;
	double predicted;

	/* the margin scales the seconds before Slurm's rounding to minutes */
	if (pm_slurm_limits_at(m, x, job, time_q, min_q, unit_s * margin, &a->l, &err) ||
	    pm_job_time(m, x, job, 0, &predicted, &err))
		return pm_snprintf(why, WHY_CHARS, "%s", err.msg), -1;
	a->predicted_s = predicted * unit_s;
	return 0;
}

/* The answer as a new table on the stack (after every allocation of ours
 * is freed: Lua's may raise an error that skips what follows). */
static void push_answer(lua_State *L, const struct answer *a)
{
	lua_createtable(L, 0, 9);
	lua_pushnumber(L, (lua_Number)a->l.time_minutes);
	lua_setfield(L, -2, "time_minutes");
	lua_pushnumber(L, (lua_Number)a->l.time_min_minutes);
	lua_setfield(L, -2, "time_min_minutes");
	lua_pushstring(L, a->l.time);
	lua_setfield(L, -2, "time");
	lua_pushstring(L, a->l.time_min);
	lua_setfield(L, -2, "time_min");
	lua_pushnumber(L, a->l.time_s);
	lua_setfield(L, -2, "time_s");
	lua_pushnumber(L, a->l.time_min_s);
	lua_setfield(L, -2, "time_min_s");
	lua_pushnumber(L, a->predicted_s);
	lua_setfield(L, -2, "predicted_s");
	lua_pushboolean(L, a->l.extrapolated);
	lua_setfield(L, -2, "extrapolated");
	lua_pushnumber(L, a->l.distance);
	lua_setfield(L, -2, "distance");
}

/* perfmodel.limits{...} (the header comment). */
static int limits(lua_State *L)
{
	char why[WHY_CHARS], path[PATH_MAX];
	const char *models, *name;
	size_t name_len;
	double time_q, min_q, margin, unit_s;
	pm_job job = pm_job_default();
	pm_model *m = NULL;
	pm_point *p = NULL;
	pm_error err;
	struct answer a;
	int rc;

	if (lua_type(L, 1) != LUA_TTABLE)
		return refuse(L, "perfmodel.limits: expected a table of options");
	if (!(models = field_string(L, 1, "models", why)) ||
	    !(name = field_string(L, 1, "model", why)) ||
	    field_number(L, 1, "iterations", 1, &job.iterations, why) ||
	    field_number(L, 1, "setup", 0, &job.setup, why) ||
	    field_number(L, 1, "time_quantile", 0.95, &time_q, why) ||
	    field_number(L, 1, "time_min_quantile", 0.8, &min_q, why) ||
	    field_number(L, 1, "margin", 1, &margin, why) ||
	    field_number(L, 1, "unit_s", 1, &unit_s, why))
		return refuse(L, why);
	if (!(margin >= 1) || !isfinite(margin))
		return refuse(L, "perfmodel.limits: 'margin' must be a finite number >= 1");
	lua_getfield(L, 1, "model");
	lua_tolstring(L, -1, &name_len);
	lua_pop(L, 1);
	lua_getfield(L, 1, "inputs");
	if (lua_type(L, -1) != LUA_TTABLE)
		return refuse(L, "perfmodel.limits: 'inputs' must be a table of name = value");
	if (resolve(models, name, name_len, path, why) || load(path, name, &m, why))
		return refuse(L, why);
	if (pm_point_new(m, &p, &err)) {
		pm_model_free(m);
		return refuse(L, err.msg);
	}
	rc = set_inputs(L, lua_gettop(L), m, p, why) ||
	     compute(m, pm_point_values(p), &job, time_q, min_q, margin, unit_s, &a, why);
	pm_point_free(p);
	pm_model_free(m);
	if (rc) {
		/* the message names the model: the predictor's alone may not */
		char full[WHY_CHARS];

		pm_snprintf(full, sizeof(full), "model '%s': %s", name, why);
		return refuse(L, full);
	}
	push_answer(L, &a);
	return 1;
}

static const luaL_Reg functions[] = {
	{ "limits", limits },
	{ NULL, NULL }
};

/* require "perfmodel": the module's table, no global set. */
int luaopen_perfmodel(lua_State *L);
int luaopen_perfmodel(lua_State *L)
{
	lua_newtable(L);
	luaL_register(L, NULL, functions);
	lua_pushstring(L, pm_version());
	lua_setfield(L, -2, "version");
	return 1;
}
