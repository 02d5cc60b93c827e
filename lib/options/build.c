/* What the parsed options make beside the structs (perfmodel/options.h):
 * the spec of the roles, and a selection's candidates. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "options/options_impl.h"

/* --target-kind, --resource and --per over the spec's own (each one given
 * replaces the spec file's). */
static pm_status target_kind(const pm_options *o, pm_spec *s, pm_error *err)
{
	pm_target_kind kind = pm_spec_target_kind(s);
	pm_status st;

	if (!o->target_kind && !o->resource && !o->per)
		return PM_OK;
	if (o->target_kind && (st = pm_target_kind_from_name(o->target_kind, &kind, err)))
		return st;
	return pm_spec_set_target_kind(s, kind, o->resource ? o->resource : pm_spec_resource(s),
				       o->per ? o->per : pm_spec_per(s), err);
}

pm_status pm_options_spec(const pm_options *o, pm_spec **out, pm_error *err)
{
	pm_spec *s = NULL;
	pm_status st;

	if (!o || !out)
		return pm__fail(err, PM_EINVAL, "pm_options_spec: no %s", o ? "out" : "options");
	st = o->spec_json ? pm_spec_parse(o->spec_json, o->spec_name ? o->spec_name : "<spec>",
					  &s, err)
	     : o->spec_path ? pm_spec_read_file(o->spec_path, &s, err) : pm_spec_new(&s, err);
	if (st)
		return st;
	if ((o->target && (st = pm_spec_set_target(s, o->target, err))) ||
	    (o->extrinsic && (st = pm_spec_add_names(s, PM_SPEC_EXTRINSIC, o->extrinsic, err))) ||
	    (o->intrinsic && (st = pm_spec_add_names(s, PM_SPEC_INTRINSIC, o->intrinsic, err))) ||
	    (o->categorical &&
	     (st = pm_spec_add_names(s, PM_SPEC_CATEGORICAL, o->categorical, err))) ||
	    (o->form && (st = pm_spec_set_form(s, o->form, err))) ||
	    (o->ignore && (st = pm_spec_ignore(s, o->ignore, err))) ||
	    (st = target_kind(o, s, err)) ||
	    (o->workers && (st = pm_spec_add_names(s, PM_SPEC_WORKERS, o->workers, err)))) {
		pm_spec_free(s);
		return st;
	}
	*out = s;
	return PM_OK;
}

/* The comma-separated items of text (empty ones skipped), copied to *at
 * and listed in item[] (room for one per comma and one more); the count. */
static size_t split(const char *text, char **at, const char **item)
{
	size_t n = 0;

	while (*text) {
		size_t len = strcspn(text, ",");

		if (len) {
			item[n++] = memcpy(*at, text, len);
			(*at)[len] = '\0';
			*at += len + 1;
		}
		text += len + (text[len] == ',');
	}
	return n;
}

static size_t items_at_most(const char *text)
{
	size_t n = 1;

	for (; *text; text++)
		n += *text == ',';
	return n;
}

pm_status pm_options_candidates(const pm_options *o, pm_candidate **cand, size_t *n,
				char **storage, pm_error *err)
{
	const char *forms, *losses;
	const char **form, **loss;
	size_t nf, nl, k = 0;
	char *at;
	pm_status st = PM_OK;

	if (!o || !cand || !n || !storage)
		return pm__fail(err, PM_EINVAL, "pm_options_candidates: a NULL argument");
	forms = o->forms ? o->forms : PM_SELECT_DEFAULT_FORMS;
	losses = o->losses ? o->losses : PM_SELECT_DEFAULT_LOSSES;
	*cand = NULL;
	*n = 0;
	*storage = malloc(strlen(forms) + strlen(losses) + 2);
	form = malloc(items_at_most(forms) * sizeof(*form));
	loss = malloc(items_at_most(losses) * sizeof(*loss));
	if (!*storage || !form || !loss)
		goto oom;
	at = *storage;
	nf = split(forms, &at, form);
	nl = split(losses, &at, loss);
	if (!(*cand = malloc((nf && nl ? nf * nl : 1) * sizeof(**cand))))
		goto oom;
	for (size_t i = 0; i < nf && !st; i++)
		for (size_t j = 0; j < nl && !st; j++) {
			(*cand)[k] = (pm_candidate){ .form = form[i] };
			st = pm_loss_from_name(loss[j], &(*cand)[k++].loss, err);
		}
	if (!st && !k)
		st = pm__fail(err, PM_EINVAL, "--forms '%s', --loss '%s': no candidate", forms,
			      losses);
	free(form);
	free(loss);
	if (st) {
		free(*cand);
		free(*storage);
		*cand = NULL;
		*storage = NULL;
		return st;
	}
	*n = k;
	return PM_OK;
oom:
	free(form);
	free(loss);
	free(*storage);
	*storage = NULL;
	return pm__fail(err, PM_ENOMEM, "out of memory");
}
