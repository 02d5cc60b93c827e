/* Measurements read for a spec: the spec says which column is the time and
 * which make a configuration, so that repeated runs are merged on them. */
#include "perfmodel/perfmodel.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "spec/spec_impl.h"

/* The spec's inputs, NULL-terminated; NULL when it names none (then every
 * column but the time tells configurations apart). */
static int spec_key(const pm_spec *s, const char ***out)
{
	const pm_names *lists[] = { &s->intrinsic, &s->categorical, &s->extrinsic };
	size_t n = 0;
	const char **key;

	*out = NULL;
	for (size_t i = 0; i < 3; i++)
		n += lists[i]->n;
	if (!n)
		return 0;
	key = malloc((n + 1) * sizeof(*key));
	if (!key)
		return -1;
	n = 0;
	for (size_t i = 0; i < 3; i++)
		for (size_t k = 0; k < lists[i]->n; k++)
			key[n++] = lists[i]->name[k];
	key[n] = NULL;
	*out = key;
	return 0;
}

/* Worker times are per run: rows merged into configurations have none (the
 * merge keeps the configuration's columns and the time). A fit of the time
 * does not use them; a fit of the LIF cannot do without them. */
static pm_status workers_or_merge(const pm_read_options *o, pm_spec *s, pm_error *err)
{
	if (!pm_read_merges_runs(o) || s->workers.n == 0)
		return PM_OK;
	if (s->target && strcmp(s->target, PM_LIF_COLUMN) == 0)
		return pm__fail(err, PM_EINVAL,
				"--target lif is taken per run from the worker times: not with "
				"--aggregate, --drop-first or --weights, which merge runs into "
				"configurations");
	pm_names_clear(&s->workers);
	return PM_OK;
}

pm_status pm_spec_read_data(pm_spec *s, const char *path, const pm_read_options *o,
			    pm_dataset **out, pm_read_info *info, pm_error *err)
{
	pm_read_options ro = o ? *o : pm_read_options_default();
	pm_read_info scratch = { 0 };
	const char **key;
	pm_status rc;

	if (!out)
		return pm__fail(err, PM_EINVAL, "pm_spec_read_data: out is NULL");
	*out = NULL;
	if (!info)
		info = &scratch;
	*info = (pm_read_info){ 0 };
	if (!s || !path)
		return pm__fail(err, PM_EINVAL, "pm_spec_read_data: NULL argument");
	if ((rc = workers_or_merge(&ro, s, err)))
		return rc;
	if (spec_key(s, &key))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	ro.target = s->target;
	ro.key = key;
	rc = pm_dataset_read(path, &ro, out, info, err);
	free(key);
	/* the JSON formats and --throughput make the time column themselves */
	if (!rc && !s->target && (info->format != PM_FORMAT_CSV || ro.throughput) &&
	    (rc = pm_spec_set_target(s, PM_INGEST_TIME_COLUMN, err))) {
		pm_dataset_free(*out);
		*out = NULL;
		pm_read_info_clear(info);
	}
	pm_read_info_clear(&scratch);
	return rc;
}
