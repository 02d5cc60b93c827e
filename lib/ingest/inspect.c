/* What a measurements file or profile set holds (`perfmodel inspect`,
 * docs/formats.md "Inspecting an input"): the format, the columns and their
 * roles and values, the points with their repetitions, the regions ×
 * metrics, and for CUBE the profile's metrics and call tree, as one JSON
 * document (docs/schema/inspect.json). Everything is read with the readers
 * fitting uses, so what inspect shows is what a fit sees. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/error.h"
#include "core/sort.h"
#include "data/aggregate.h"
#include "core/jsonw.h"
#include "core/read_file.h"
#include "ingest/cube.h"
#include "ingest/ingest_impl.h"

enum role { ROLE_COLUMN, ROLE_PARAMETER, ROLE_TARGET, ROLE_LOCATION, ROLE_OTHER };
static const char *const role_name[] = { "column", "parameter", "target", "location", "other" };

struct inspect {
	const char *path;
	pm_format format;
	int folder;			/* a set of CUBE profiles */
	pm_read_options o;		/* as read: the pair chosen, no aggregation */
	const char *target;		/* NULL: a CSV file without --target */
	pm_region_list *pairs;		/* Extra-P, CUBE; else NULL */
	pm_dataset *runs;		/* every run, as read */
	pm_dataset *points;		/* one row per point (NULL: no target) */
	pm_read_info info;		/* of making the points */
	enum role *role;		/* per column of runs */
	char *profile;			/* a set's first profile (owned) */
	size_t nfolders, nprofiles;
	char *text;			/* a file's text, read once (it may be a pipe) */
	size_t len;
};

static int is_region_format(pm_format f)
{
	return f == PM_FORMAT_EXTRAP || f == PM_FORMAT_EXTRAP_JSON ||
	       f == PM_FORMAT_EXTRAP_JSONL || f == PM_FORMAT_CUBE;
}

/* The pair to read: the one asked for, else the first listed that has the
 * region or metric given (none matching: as given, for the reader to say
 * what is missing). */
static void choose_pair(struct inspect *in, const pm_read_options *o)
{
	const pm_region_list *l = in->pairs;

	for (size_t i = 0; l && i < l->n; i++)
		if ((!o->region || !strcmp(o->region, l->region[i])) &&
		    (!o->metric || !strcmp(o->metric, l->metric[i]))) {
			in->o.region = l->region[i];
			in->o.metric = l->metric[i];
			return;
		}
}

/* Which column plays which part: the target, CUBE's per-location columns,
 * the parameters (o->key, else every other column), the rest. */
static pm_status roles(struct inspect *in, const pm_read_options *o, pm_error *err)
{
	size_t nc = pm_dataset_ncols(in->runs), col;

	if (!(in->role = calloc(nc + 1, sizeof(*in->role))))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	if (!in->target)
		return PM_OK;	/* all ROLE_COLUMN: which is the time is not known */
	for (size_t c = 0; c < nc; c++)
		in->role[c] = o->key ? ROLE_OTHER : ROLE_PARAMETER;
	for (size_t k = 0; o->key && o->key[k]; k++) {
		pm_status rc = pm_dataset_col_index(in->runs, o->key[k], &col, err);

		if (rc)
			return rc;
		in->role[col] = ROLE_PARAMETER;
	}
	if (in->o.scaling == PM_SCALING_EACH && in->format == PM_FORMAT_CUBE)
		for (size_t c = 0; c < nc; c++)
			if (!strncmp(pm_dataset_col_name(in->runs, c), "loc_", 4))
				in->role[c] = ROLE_LOCATION;
	if (pm_dataset_col_index(in->runs, in->target, &col, NULL))
		return pm_dataset_col_index(in->runs, in->target, &col, err);
	in->role[col] = ROLE_TARGET;
	return PM_OK;
}

/* One row per point: the parameters and the target's median (or the
 * aggregate asked for) over its runs, which may be 0 here (inspect shows a
 * region's zeros; the fit says whether it can take them). */
static pm_status make_points(struct inspect *in, const pm_read_options *o, pm_error *err)
{
	size_t nc = pm_dataset_ncols(in->runs), nkey = 0;
	const char **key = malloc((nc + 1) * sizeof(*key));
	pm_read_options ao = in->o;
	pm_aggregate method = o->aggregate == PM_AGG_MEAN || o->aggregate == PM_AGG_MIN
				      ? o->aggregate : PM_AGG_MEDIAN;
	pm_status rc;

	if (!key)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	for (size_t c = 0; c < nc; c++)
		if (in->role[c] == ROLE_PARAMETER)
			key[nkey++] = pm_dataset_col_name(in->runs, c);
	key[nkey] = NULL;
	ao.key = key;
	ao.throughput = ao.per = NULL;	/* converted as the runs were read */
	ao.drop_first = o->drop_first;
	rc = pm__dataset_aggregate(in->runs, &ao, in->target, method, 1, &in->points, &in->info,
				   err);
	free(key);
	return rc;
}

static pm_status gather(struct inspect *in, const pm_read_options *o, pm_error *err)
{
	struct stat st;
	pm_read_info scratch = { 0 };
	pm_status rc;

	/* a folder is a set of CUBE profiles (pm_dataset_read), read from its
	 * files; a file is read once, here: it may be standard input or a pipe */
	in->folder = (!o->format || o->format == PM_FORMAT_CUBE) && stat(in->path, &st) == 0 &&
		     S_ISDIR(st.st_mode);
	in->format = in->folder ? PM_FORMAT_CUBE : o->format;
	if (!in->folder && (rc = pm__read_file(in->path, &in->text, &in->len, err)))
		return rc;
	if (!in->format && (rc = pm__detect_text(in->text, in->len, in->path, &in->format, err)))
		return rc;
	in->o = *o;
	in->o.aggregate = PM_AGG_NONE;
	in->o.drop_first = 0;
	in->o.weights = PM_WEIGHTS_NONE;
	in->o.key = NULL;
	in->o.format = in->format;
	if (is_region_format(in->format)) {
		if ((rc = in->folder ? pm_region_list_read(in->path, in->format, &in->pairs, err)
				     : pm__region_list_parse(in->text, in->len, in->path, in->format,
							     &in->pairs, err)))
			return rc;
		choose_pair(in, o);
	}
	if (in->folder && (rc = pm__cube_set_first(in->path, &in->profile, &in->nfolders,
						   &in->nprofiles, err)))
		return rc;
	rc = in->folder ? pm_dataset_read(in->path, &in->o, &in->runs, &scratch, err)
			: pm_dataset_parse(in->text, in->len, in->path, &in->o, &in->runs, &scratch,
					   err);
	pm_read_info_clear(&scratch);
	if (rc)
		return rc;
	in->target = o->target ? o->target
		     : in->format != PM_FORMAT_CSV || o->throughput ? PM_INGEST_TIME_COLUMN : NULL;
	if ((rc = roles(in, o, err)))
		return rc;
	return in->target ? make_points(in, o, err) : PM_OK;
}

/* ---- writing -------------------------------------------------------------- */

/* A column: its role, whether every cell that is not empty is a number, its
 * distinct values (numbers ascending, texts in order of first appearance;
 * listed for parameters and texts), their range, its empty cells. */
static pm_status write_column(pm_jw *w, const pm_dataset *d, size_t c, enum role role,
			      pm_error *err)
{
	size_t n = pm_dataset_nrows(d), nv = 0, missing = 0, distinct;
	double *v = malloc((n + 1) * sizeof(*v));
	int numeric = 1;

	if (!v)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	for (size_t r = 0; r < n; r++) {
		if (!*pm_dataset_cell(d, r, c))
			missing++;
		else if (pm_dataset_number(d, r, c, &v[nv], NULL) == PM_OK)
			nv++;
		else
			numeric = 0;
	}
	numeric &= nv > 0;
	qsort(v, nv, sizeof(*v), pm__cmp_double);
	distinct = nv > 0;
	for (size_t i = 1; i < nv; i++)
		if (v[i] != v[distinct - 1])
			v[distinct++] = v[i];
	if (!numeric)
		distinct = pm_dataset_col_nlevels(d, c) - (missing > 0);
	pm__jw_object_begin(w);
	pm__jw_key(w, "name");
	pm__jw_string(w, pm_dataset_col_name(d, c));
	pm__jw_key(w, "role");
	pm__jw_string(w, role_name[role]);
	pm__jw_key(w, "numeric");
	pm__jw_bool(w, numeric);
	pm__jw_key(w, "distinct");
	pm__jw_uint(w, distinct);
	pm__jw_key(w, "empty");
	pm__jw_uint(w, missing);
	if (numeric) {
		pm__jw_key(w, "min");
		pm__jw_double(w, v[0]);
		pm__jw_key(w, "max");
		pm__jw_double(w, v[distinct - 1]);
	}
	if (role == ROLE_PARAMETER || (!numeric && role != ROLE_TARGET)) {
		pm__jw_key(w, "values");
		pm__jw_array_begin(w);
		for (size_t i = 0; numeric && i < distinct; i++)
			pm__jw_double(w, v[i]);
		for (size_t l = 0; !numeric && l < pm_dataset_col_nlevels(d, c); l++)
			if (*pm_dataset_level_name(d, c, l))
				pm__jw_string(w, pm_dataset_level_name(d, c, l));
		pm__jw_array_end(w);
	}
	pm__jw_object_end(w);
	free(v);
	return PM_OK;
}

/* Points in the order of their parameters (numbers ascending, texts by
 * their bytes), column by column: as Extra-P lists them. */
struct by_params {
	size_t row;
	const double *num;	/* row-major: the points' numbers (NaN: text) */
	const pm_dataset *d;
	size_t ncols, skip;	/* skip: the target's column */
};

static int cmp_points(const void *a, const void *b)
{
	const struct by_params *x = a, *y = b;

	for (size_t c = 0; c < x->ncols; c++) {
		double u = x->num[x->row * x->ncols + c], v = x->num[y->row * x->ncols + c];
		int k = c == x->skip ? 0 : isnan(u) || isnan(v)
				? strcmp(pm_dataset_cell(x->d, x->row, c), pm_dataset_cell(x->d, y->row, c))
				: (u > v) - (u < v);

		if (k)
			return k;
	}
	return (x->row > y->row) - (x->row < y->row);
}

/* order[0, n): the points' rows sorted by cmp_points; NULL if no memory. */
static size_t *point_order(const pm_dataset *p, size_t tcol)
{
	size_t n = pm_dataset_nrows(p), nc = pm_dataset_ncols(p);
	double *num = malloc((n * nc + 1) * sizeof(*num));
	struct by_params *e = malloc((n + 1) * sizeof(*e));
	size_t *order = malloc((n + 1) * sizeof(*order));

	if (num && e && order) {
		for (size_t r = 0; r < n; r++) {
			for (size_t c = 0; c < nc; c++)
				if (!pm_dataset_col_is_numeric(p, c) ||
				    pm_dataset_number(p, r, c, &num[r * nc + c], NULL))
					num[r * nc + c] = NAN;
			e[r] = (struct by_params){ r, num, p, nc, tcol };
		}
		qsort(e, n, sizeof(*e), cmp_points);
		for (size_t r = 0; r < n; r++)
			order[r] = e[r].row;
	} else {
		free(order);
		order = NULL;
	}
	free(num);
	free(e);
	return order;
}

/* Each point on a line: its parameters, runs, value and their variation. */
static pm_status write_points(pm_jw *w, const struct inspect *in, pm_error *err)
{
	const pm_dataset *p = in->points;
	size_t tcol = 0, n = pm_dataset_nrows(p), zeros = 0, *order;
	unsigned lo = 0, hi = 0;

	pm_dataset_col_index(p, in->target, &tcol, NULL);
	if (!(order = point_order(p, tcol)))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	for (size_t r = 0; r < n; r++) {
		double v = 0;

		pm_dataset_number(p, r, tcol, &v, NULL);
		zeros += v == 0;
		lo = !r || in->info.reps[r] < lo ? in->info.reps[r] : lo;
		hi = in->info.reps[r] > hi ? in->info.reps[r] : hi;
	}
	pm__jw_key(w, "points");
	pm__jw_object_begin(w);
	pm__jw_key(w, "count");
	pm__jw_uint(w, n);
	pm__jw_key(w, "runs_min");
	pm__jw_uint(w, lo);
	pm__jw_key(w, "runs_max");
	pm__jw_uint(w, hi);
	pm__jw_key(w, "dropped");
	pm__jw_uint(w, in->info.dropped);
	pm__jw_key(w, "zeros");
	pm__jw_uint(w, zeros);
	pm__jw_key(w, "cv_median");
	pm__jw_double(w, in->info.cv_median);
	pm__jw_key(w, "cv_max");
	pm__jw_double(w, in->info.cv_max);
	pm__jw_key(w, "list");
	pm__jw_array_begin(w);
	for (size_t i = 0; i < n; i++) {
		size_t r = order[i];
		double v = 0;

		pm__jw_object_begin_line(w);
		pm__jw_key(w, "point");
		pm__jw_object_begin_line(w);
		for (size_t c = 0; c < pm_dataset_ncols(p); c++) {
			if (c == tcol)
				continue;
			pm__jw_key(w, pm_dataset_col_name(p, c));
			if (pm_dataset_col_is_numeric(p, c) && !pm_dataset_number(p, r, c, &v, NULL))
				pm__jw_double(w, v);
			else
				pm__jw_string(w, pm_dataset_cell(p, r, c));
		}
		pm__jw_object_end(w);
		pm__jw_key(w, "runs");
		pm__jw_uint(w, in->info.reps[r]);
		pm__jw_key(w, "value");
		pm_dataset_number(p, r, tcol, &v, NULL);
		pm__jw_double(w, v);
		pm__jw_key(w, "cv");
		pm__jw_double(w, in->info.cv[r]);
		pm__jw_object_end(w);
	}
	pm__jw_array_end(w);
	pm__jw_object_end(w);
	free(order);
	return PM_OK;
}

/* A set's folder-name parameters with one value in every run folder: no
 * parameters (as in Extra-P), but the user named them, so say where they
 * went. Read from the first profile's folder (the others agree, or the
 * set would not have been read). */
static void write_constants(pm_jw *w, const struct inspect *in)
{
	char name[PM_CUBE_MAX_PARAMS][64], folder[256] = "";
	double value[PM_CUBE_MAX_PARAMS];
	const char *end = strrchr(in->profile, '/'), *start = end;
	size_t np = 0, col;

	while (start > in->profile && start[-1] != '/')
		start--;
	if (end && (size_t)(end - start) < sizeof(folder))
		memcpy(folder, start, (size_t)(end - start));
	pm__jw_key(w, "constant");
	pm__jw_object_begin_line(w);
	if (pm__cube_folder_params(folder, name, value, &np))
		for (size_t k = 0; k < np; k++)
			if (pm_dataset_col_index(in->runs, name[k], &col, NULL)) {
				pm__jw_key(w, name[k]);
				pm__jw_double(w, value[k]);
			}
	pm__jw_object_end(w);
}

static void write_pairs(pm_jw *w, const pm_region_list *l)
{
	pm__jw_key(w, "regions");
	pm__jw_array_begin(w);
	for (size_t i = 0; i < l->n; i++) {
		pm__jw_object_begin_line(w);
		pm__jw_key(w, "region");
		pm__jw_string(w, l->region[i]);
		pm__jw_key(w, "metric");
		pm__jw_string(w, l->metric[i]);
		pm__jw_object_end(w);
	}
	pm__jw_array_end(w);
}

/* The profile (a set's first): its locations, metrics and call tree. */
static pm_status write_cube(pm_jw *w, const struct inspect *in, pm_error *err)
{
	const char *file = in->profile ? in->profile : in->path;
	char *text = NULL;
	size_t len = in->len;
	pm_cube *c = NULL;
	pm_status rc = in->profile ? pm__read_file(file, &text, &len, err) : PM_OK;

	if (!rc)
		rc = pm__cube_parse((const unsigned char *)(text ? text : in->text), len, file,
				    in->o.stop, &c, err);
	if (rc)
		goto out;
	pm__jw_key(w, "cube");
	pm__jw_object_begin(w);
	pm__jw_key(w, "profile");
	pm__jw_string(w, file);
	if (in->folder) {
		pm__jw_key(w, "run_folders");
		pm__jw_uint(w, in->nfolders);
		pm__jw_key(w, "profiles");
		pm__jw_uint(w, in->nprofiles);
	}
	pm__jw_key(w, "locations");
	pm__jw_uint(w, pm__cube_nlocations(c));
	pm__jw_key(w, "metrics");
	pm__jw_array_begin(w);
	for (size_t m = 0; m < pm__cube_nmetrics(c); m++) {
		pm_cube_metric_info mi = pm__cube_metric(c, m);

		pm__jw_object_begin_line(w);
		pm__jw_key(w, "name");
		pm__jw_string(w, mi.name);
		pm__jw_key(w, "type");
		pm__jw_string(w, mi.type);
		pm__jw_key(w, "dtype");
		pm__jw_string(w, mi.dtype);
		pm__jw_key(w, "unreadable");
		pm__jw_string(w, mi.unreadable);
		pm__jw_object_end(w);
	}
	pm__jw_array_end(w);
	pm__jw_key(w, "callpaths");
	pm__jw_array_begin(w);
	for (size_t i = 0; i < pm__cube_ncnodes(c) && !rc; i++) {
		size_t depth;
		char *path = NULL;

		if ((rc = pm__cube_callpath(c, i, &path, &depth, err)))
			break;
		pm__jw_object_begin_line(w);
		pm__jw_key(w, "path");
		pm__jw_string(w, path);
		pm__jw_key(w, "depth");
		pm__jw_uint(w, depth);
		pm__jw_object_end(w);
		free(path);
	}
	pm__jw_array_end(w);
	pm__jw_object_end(w);
out:
	pm__cube_free(c);
	free(text);
	return rc;
}

static pm_status write_inspection(pm_jw *w, const struct inspect *in, pm_error *err)
{
	pm_status rc = PM_OK;

	pm__jw_object_begin(w);
	pm__jw_key(w, "file");
	pm__jw_string(w, in->path);
	pm__jw_key(w, "format");
	pm__jw_string(w, pm_format_name(in->format));
	pm__jw_key(w, "folder");
	pm__jw_bool(w, in->folder);
	if (is_region_format(in->format)) {
		pm__jw_key(w, "region");
		pm__jw_string(w, in->o.region);
		pm__jw_key(w, "metric");
		pm__jw_string(w, in->o.metric);
	}
	if (in->format == PM_FORMAT_CUBE) {
		static const char *const scaling[] = { "weak", "strong", "each" };

		pm__jw_key(w, "inclusive");
		pm__jw_bool(w, in->o.inclusive);
		pm__jw_key(w, "scaling");
		pm__jw_string(w, scaling[in->o.scaling]);
	}
	pm__jw_key(w, "target");
	pm__jw_string(w, in->target);
	pm__jw_key(w, "runs");
	pm__jw_uint(w, pm_dataset_nrows(in->runs));
	if (in->folder)
		write_constants(w, in);
	pm__jw_key(w, "columns");
	pm__jw_array_begin(w);
	for (size_t c = 0; c < pm_dataset_ncols(in->runs) && !rc; c++)
		rc = write_column(w, in->runs, c, in->role[c], err);
	pm__jw_array_end(w);
	if (!rc && in->points)
		rc = write_points(w, in, err);
	if (in->pairs)
		write_pairs(w, in->pairs);
	if (!rc && in->format == PM_FORMAT_CUBE)
		rc = write_cube(w, in, err);
	pm__jw_object_end(w);
	return rc;
}

pm_status pm_inspect_to_json(const char *path, const pm_read_options *o, char **out,
			     pm_error *err)
{
	pm_read_options dflt = pm_read_options_default();
	struct inspect in = { .path = path };
	pm_jw w;
	pm_status rc;

	if ((rc = pm__jw_start(&w, out, path != NULL, "file name", err)))
		return rc;
	rc = gather(&in, o ? o : &dflt, err);
	if (!rc)
		rc = write_inspection(&w, &in, err);
	pm_region_list_free(in.pairs);
	pm_dataset_free(in.runs);
	pm_dataset_free(in.points);
	pm_read_info_clear(&in.info);
	free(in.role);
	free(in.profile);
	free(in.text);
	if (rc) {
		free(w.buf);
		return rc;
	}
	return pm__jw_finish(&w, out, err);
}
