/* Reading a spec file (DESIGN.md §5): models/NAME.json, strictly: unknown
 * keys (with a suggestion), duplicates, wrong types and empty names are
 * errors naming the file. */
#include "perfmodel/perfmodel.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/error.h"
#include "core/json_read.h"
#include "core/names.h"
#include "core/read_file.h"
#include "spec/spec_impl.h"

static const char *const top_keys[] = { "target", "intrinsic", "categorical", "extrinsic",
					 "workers", "bounds", "form", "formula", "target_kind",
					 "resource", "per", "ignore" };
/* top_keys' index of the first of the target kind's three keys */
enum { KEY_KIND = NROLES + 4 };
static const char *const bound_keys[] = { "coefficient", "power", "constant" };

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static pm_status unknown_key(const char *key, const char *where, const char *const *keys,
			     size_t nkeys, const char *file, pm_error *err)
{
	const char *hint = pm__closest_key(key, keys, nkeys);

	if (hint)
		return pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
				   "unknown key '%s'%s; did you mean '%s'?", key, where, hint);
	return pm__fail_at(err, PM_ESCHEMA, file, 0, 0, "unknown key '%s'%s", key, where);
}

static int key_index(const char *key, const char *const *keys, size_t nkeys)
{
	for (size_t i = 0; i < nkeys; i++)
		if (strcmp(key, keys[i]) == 0)
			return (int)i;
	return -1;
}

static pm_status parse_names(const cJSON *v, const char *key, pm_names *nm, const char *file,
			     pm_error *err)
{
	const cJSON *item;
	pm__strindex seen;
	size_t first;
	pm_status st = PM_OK;

	if (!cJSON_IsArray(v))
		return pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
				   "'%s' must be an array of column names", key);
	if (pm__names_index(nm, &seen) != 0)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	cJSON_ArrayForEach(item, v) {
		if (!cJSON_IsString(item) || !item->valuestring) {
			st = pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
					 "'%s' must be an array of column names", key);
			break;
		}
		if (!*item->valuestring) {
			st = pm__fail_at(err, PM_ESCHEMA, file, 0, 0, "empty column name in '%s'",
					 key);
			break;
		}
		if (pm__names_push(nm, item->valuestring, strlen(item->valuestring)) != 0 ||
		    (first = pm__strindex_add(&seen, nm->n - 1)) == SIZE_MAX) {
			st = pm__fail(err, PM_ENOMEM, "out of memory");
			break;
		}
		if (first != nm->n - 1) {
			st = pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
					 "column '%s' appears twice in '%s'", item->valuestring,
					 key);
			break;
		}
	}
	pm__strindex_free(&seen);
	return st;
}

static pm_status parse_bound(const cJSON *v, const char *key, double *lo, double *hi,
			     const char *file, pm_error *err)
{
	const cJSON *a, *b;

	if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2)
		goto bad;
	a = v->child;
	b = a->next;
	if (!cJSON_IsNumber(a) || !cJSON_IsNumber(b) || !isfinite(a->valuedouble) ||
	    !isfinite(b->valuedouble))
		goto bad;
	if (a->valuedouble > b->valuedouble)
		return pm__fail_at(err, PM_ESCHEMA, file, 0, 0, "bounds.%s: lower %g > upper %g",
				   key, a->valuedouble, b->valuedouble);
	*lo = a->valuedouble;
	*hi = b->valuedouble;
	return PM_OK;
bad:
	return pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
			   "bounds.%s must be two finite numbers [lower, upper]", key);
}

static pm_status parse_bounds(const cJSON *v, pm_bounds *bd, const char *file, pm_error *err)
{
	unsigned seen = 0;
	const cJSON *item;
	pm_status st;

	if (!cJSON_IsObject(v))
		return pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
				   "'bounds' must be an object with \"coefficient\", \"power\" "
				   "or \"constant\"");
	cJSON_ArrayForEach(item, v) {
		int k = key_index(item->string, bound_keys, COUNT(bound_keys));

		if (k < 0)
			return unknown_key(item->string, " in 'bounds'", bound_keys,
					   COUNT(bound_keys), file, err);
		if (seen & (1u << k))
			return pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
					   "duplicate key 'bounds.%s'", item->string);
		seen |= 1u << k;
		if (k == 0)
			st = parse_bound(item, "coefficient", &bd->coef_lo, &bd->coef_hi, file, err);
		else if (k == 1)
			st = parse_bound(item, "power", &bd->power_lo, &bd->power_hi, file, err);
		else
			st = parse_bound(item, "constant", &bd->const_lo, &bd->const_hi, file, err);
		if (st)
			return st;
	}
	return PM_OK;
}

/* "form": "additive" | "multiplicative", or "formula": TEXT (not both). A
 * formula's mistakes keep their place in the formula and name the file. */
static pm_status parse_form(const cJSON *item, pm_spec *s, const char *file, pm_error *err)
{
	int is_form = strcmp(item->string, "form") == 0;
	pm_status st;

	if (s->form)
		return pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
				   "give either \"form\" or \"formula\", not both");
	if (!cJSON_IsString(item) || !item->valuestring)
		return pm__fail_at(err, PM_ESCHEMA, file, 0, 0, "'%s' must be a string",
				   item->string);
	if (is_form && !pm__spec_is_named_form(item->valuestring))
		return pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
				   "'form' must be \"additive\" or \"multiplicative\" (a formula "
				   "goes in \"formula\")");
	st = pm_spec_set_form(s, item->valuestring, err);
	if (st == PM_EPARSE)
		pm__err_append(err, " (in %s)", file);
	return st;
}

/* "target_kind", "resource", "per" (kind[] in that order, each NULL when
 * absent) into s: the setter's checks, naming the file. */
static pm_status set_kind(pm_spec *s, const cJSON *const *kind, const char *file,
			  pm_error *err)
{
	const char *v[3] = { NULL, NULL, NULL };
	pm_target_kind k = PM_TARGET_TIME;
	pm_status st;

	for (int i = 0; i < 3; i++) {
		if (!kind[i])
			continue;
		if (!cJSON_IsString(kind[i]) || !kind[i]->valuestring)
			return pm__fail_at(err, PM_ESCHEMA, file, 0, 0, "'%s' must be a string",
					   kind[i]->string);
		v[i] = kind[i]->valuestring;
	}
	if ((v[0] && (st = pm_target_kind_from_name(v[0], &k, err))) ||
	    (st = pm_spec_set_target_kind(s, k, v[1], v[2], err))) {
		if (st == PM_ENOMEM)
			return st;
		pm__err_set_file(err, file);	/* a mistake in the file, not a caller's */
		if (err)
			err->code = PM_ESCHEMA;
		return PM_ESCHEMA;
	}
	return PM_OK;
}

/* Fill s from the tree; s is freed by the caller on failure. */
static pm_status spec_from_json(const cJSON *root, pm_spec *s, const char *file,
				pm_error *err)
{
	const cJSON *item, *kind[3] = { NULL, NULL, NULL };
	unsigned seen = 0;
	pm_status st = PM_OK;

	if (!cJSON_IsObject(root))
		return pm__fail_at(err, PM_ESCHEMA, file, 0, 0, "a spec must be a JSON object");
	cJSON_ArrayForEach(item, root) {
		int k = key_index(item->string, top_keys, COUNT(top_keys));

		if (k < 0)
			return unknown_key(item->string, "", top_keys, COUNT(top_keys), file,
					   err);
		if (seen & (1u << k))
			return pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
					   "duplicate key '%s'", item->string);
		seen |= 1u << k;
		if (k == 0) {
			if (!cJSON_IsString(item) || !item->valuestring)
				return pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
						   "'target' must be a column name (a string)");
			if (!*item->valuestring)
				return pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
						   "empty column name in 'target'");
			st = pm_spec_set_target(s, item->valuestring, err);
		} else if (k <= NROLES) {
			st = parse_names(item, pm__spec_role_key[k - 1], pm__spec_role_names(s, k - 1), file, err);
			/* naming either list, even as [], means "these and no others" */
			if (k == 1 || k == 2)
				s->infer_roles = 0;
		} else if (k == NROLES + 1) {
			st = parse_bounds(item, &s->bounds, file, err);
		} else if (strcmp(top_keys[k], "ignore") == 0) {
			/* what pm_spec_ignore (--ignore) takes: pm_spec_resolve
			 * checks the names against the data */
			st = parse_names(item, "ignore", &s->ignore, file, err);
		} else if (k >= KEY_KIND) {
			kind[k - KEY_KIND] = item;	/* set together, once all are seen */
		} else {
			st = parse_form(item, s, file, err);
		}
		if (st)
			return st;
	}
	if (!s->target)
		return pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
				   "no \"target\" in the spec: name the column to model");
	if ((st = set_kind(s, kind, file, err)))
		return st;
	return pm__spec_check_roles(s, file, err);
}

static pm_status spec_parse_text(const char *text, size_t len, const char *name,
				 pm_spec **out, pm_error *err)
{
	cJSON *root = NULL;
	pm_spec *s = NULL;
	pm_status st;

	st = pm__json_parse(text, len, name, &root, err);
	if (st)
		return st;
	st = pm_spec_new(&s, err);
	if (!st)
		st = spec_from_json(root, s, name, err);
	cJSON_Delete(root);
	if (st) {
		pm_spec_free(s);
		return st;
	}
	*out = s;
	return PM_OK;
}

pm_status pm_spec_parse(const char *json, const char *name, pm_spec **out, pm_error *err)
{
	if (!out)
		return pm__fail(err, PM_EINVAL, "pm_spec_parse: out is NULL");
	*out = NULL;
	if (!json)
		return pm__fail(err, PM_EINVAL, "pm_spec_parse: json is NULL");
	return spec_parse_text(json, strlen(json), name ? name : "<input>", out, err);
}

pm_status pm_spec_read_file(const char *path, pm_spec **out, pm_error *err)
{
	char *text = NULL;
	size_t len = 0;
	pm_status st;

	if (!out)
		return pm__fail(err, PM_EINVAL, "pm_spec_read_file: out is NULL");
	*out = NULL;
	if (!path)
		return pm__fail(err, PM_EINVAL, "pm_spec_read_file: path is NULL");
	st = pm__read_file(path, &text, &len, err);
	if (st)
		return st;
	st = spec_parse_text(text, len, path, out, err);
	free(text);
	return st;
}
