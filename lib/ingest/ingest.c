/* Measurements in any supported format, as fitted: pick the reader (by
 * --format or by content), then turn throughput into time and aggregate
 * repetitions (lib/data/aggregate.c). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "data/aggregate.h"
#include "data/dataset_impl.h"
#include "core/error.h"
#include "ingest/ingest_impl.h"
#include "core/json_read.h"
#include "core/read_file.h"

static const char *const format_names[] = { "auto", "csv", "hyperfine", "gbench", "extrap",
					     "extrap-json", "extrap-jsonl", "cube", NULL };
static const char *const aggregate_names[] = { "default", "none", "median", "mean", "min",
					       NULL };

static pm_status from_name(const char *const *names, const char *what, const char *name,
			   int *out, pm_error *err)
{
	for (int i = 0; name && names[i]; i++) {
		if (strcmp(names[i], name) == 0) {
			*out = i;
			return PM_OK;
		}
	}
	return pm__fail(err, PM_EINVAL, "unknown %s '%s'", what, name ? name : "(null)");
}

pm_status pm_format_from_name(const char *name, pm_format *out, pm_error *err)
{
	int i = 0;
	pm_status rc = from_name(format_names, "format", name, &i, err);

	if (!rc && out)
		*out = (pm_format)i;
	return rc;
}

const char *pm_format_name(pm_format f)
{
	return f <= PM_FORMAT_CUBE ? format_names[f] : "?";
}

pm_status pm_aggregate_from_name(const char *name, pm_aggregate *out, pm_error *err)
{
	int i = 0;
	/* "default" is the absence of a choice, not a name to give */
	pm_status rc = name && strcmp(name, "default") == 0 ?
		pm__fail(err, PM_EINVAL, "unknown aggregate 'default'") :
		from_name(aggregate_names, "aggregate", name, &i, err);

	if (!rc && out)
		*out = (pm_aggregate)i;
	return rc;
}

pm_read_options pm_read_options_default(void)
{
	pm_read_options o = { 0 };

	return o;
}

int pm_read_merges_runs(const pm_read_options *o)
{
	return (o->aggregate != PM_AGG_DEFAULT && o->aggregate != PM_AGG_NONE) || o->drop_first ||
	       o->weights != PM_WEIGHTS_NONE;
}

void pm_read_info_clear(pm_read_info *info)
{
	if (!info)
		return;
	free(info->reps);
	free(info->cv);
	memset(info, 0, sizeof(*info));
	info->cv_median = info->cv_max = NAN;
}

/* Where the first line that is not blank or a '#' comment starts. */
static size_t first_line(const char *text, size_t len)
{
	size_t i = len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;

	for (;;) {
		while (i < len && text[i] && strchr(" \t\r\n", text[i]))
			i++;
		if (i == len || text[i] != '#')
			return i;
		while (i < len && text[i] != '\n')
			i++;
	}
}

/* 1 if the line at text (to a newline or len) is a JSON object with
 * "params": Extra-P JSON Lines. */
static int jsonl_line(const char *text, size_t len)
{
	const char *nl = memchr(text, '\n', len);
	cJSON *o = NULL;
	int yes;

	if (pm__json_parse(text, nl ? (size_t)(nl - text) : len, "", &o, NULL))
		return 0;
	yes = cJSON_IsObject(o) && cJSON_HasObjectItem(o, "params");
	cJSON_Delete(o);
	return yes;
}

/* 1 if text[0, len) starts with one of Extra-P's keywords and a blank: a
 * file that starts with POINTS or REGION is Extra-P text gone wrong (its
 * reader says what), not CSV. */
static int extrap_keyword(const char *text, size_t len)
{
	static const char *const kw[] = { "PARAMETER", "POINTS", "REGION", "METRIC", "DATA" };

	for (size_t k = 0; k < sizeof(kw) / sizeof(*kw); k++) {
		size_t n = strlen(kw[k]);

		if (len > n && memcmp(text, kw[k], n) == 0 && (text[n] == ' ' || text[n] == '\t'))
			return 1;
	}
	return 0;
}

/* Extra-P's JSON reader takes a file that is not JSON for JSON Lines when
 * some line starts with '{' and every line that is not blank does. */
static int jsonl_lines(const char *text, size_t len)
{
	int any = 0;

	for (size_t i = 0; i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - text) : len;

		while (i < end && text[i] && strchr(" \t\r\f\v", text[i]))
			i++;
		if (i < end && text[i] != '{')
			return 0;
		any |= i < end;
		i = end + 1;
	}
	return any;
}

/* JSON starts with '{' (after a BOM and blanks): which JSON, its top key;
 * JSON Lines, its first line's. Extra-P text starts with a keyword (after
 * comments). */
static pm_status detect(const char *text, size_t len, const char *name, pm_format *f,
			pm_error *err)
{
	size_t i = first_line(text, len);
	cJSON *root;
	pm_status rc;

	if (pm__is_tar(text, len)) {
		*f = PM_FORMAT_CUBE;
		return PM_OK;
	}
	if (extrap_keyword(text + i, len - i)) {
		*f = PM_FORMAT_EXTRAP;
		return PM_OK;
	}
	if (i == len || text[i] != '{') {
		*f = PM_FORMAT_CSV;
		return PM_OK;
	}
	if (jsonl_line(text + i, len - i)) {
		*f = PM_FORMAT_EXTRAP_JSONL;
		return PM_OK;
	}
	if ((rc = pm__json_parse(text, len, name, &root, err)))
		return rc;
	*f = cJSON_HasObjectItem(root, "benchmarks") ? PM_FORMAT_GBENCH :
	     cJSON_HasObjectItem(root, "results") ? PM_FORMAT_HYPERFINE :
	     cJSON_HasObjectItem(root, "measurements") ? PM_FORMAT_EXTRAP_JSON : PM_FORMAT_AUTO;
	cJSON_Delete(root);
	if (*f == PM_FORMAT_AUTO)
		return pm__fail_at(err, PM_ESCHEMA, name, 0, 0, "a JSON file with neither "
				   "'benchmarks' (Google Benchmark), 'results' (hyperfine) nor "
				   "'measurements' (Extra-P): not a measurements format perfmodel "
				   "knows");
	return PM_OK;
}

static pm_status check_options(const pm_read_options *o, pm_format f, const char **target,
			       pm_aggregate *method, pm_error *err)
{
	*method = o->aggregate;
	/* each location's value is a worker's time of the run: merging runs
	 * would drop them */
	if (*method == PM_AGG_DEFAULT)
		*method = (f != PM_FORMAT_CSV && !(f == PM_FORMAT_CUBE &&
						     o->scaling == PM_SCALING_EACH)) ||
				  o->drop_first || o->weights ? PM_AGG_MEDIAN : PM_AGG_NONE;
	if (o->weights != PM_WEIGHTS_NONE && o->weights != PM_WEIGHTS_INVERSE_VARIANCE)
		return pm__fail(err, PM_EINVAL, "weights: only inverse-variance comes from "
				"reading (pm_dataset_set_weights sets others)");
	if (o->weights && *method == PM_AGG_NONE)
		return pm__fail(err, PM_EINVAL, "--weights inverse-variance weighs "
				"configurations by their runs: not with --aggregate none");
	if (o->per && !o->throughput)
		return pm__fail(err, PM_EINVAL, "--per goes with --throughput (or, for fit and "
				"select, --target-kind throughput)");
	if (o->drop_first && *method == PM_AGG_NONE)
		return pm__fail(err, PM_EINVAL, "--drop-first drops runs of a configuration: "
				"not with --aggregate none");
	if (o->name_pattern && f != PM_FORMAT_GBENCH)
		return pm__fail(err, PM_EINVAL, "--name-pattern is for Google Benchmark files");
	if ((o->region || o->metric) && f != PM_FORMAT_EXTRAP && f != PM_FORMAT_EXTRAP_JSON &&
	    f != PM_FORMAT_EXTRAP_JSONL && f != PM_FORMAT_CUBE)
		return pm__fail(err, PM_EINVAL, "--region and --metric are for Extra-P and CUBE "
				"files");
	if ((o->inclusive || o->scaling != PM_SCALING_WEAK) && f != PM_FORMAT_CUBE)
		return pm__fail(err, PM_EINVAL, "--inclusive and --scaling are for CUBE profiles");
	*target = o->target ? o->target :
		  f != PM_FORMAT_CSV || o->throughput ? PM_INGEST_TIME_COLUMN : NULL;
	if (*method != PM_AGG_NONE && !*target)
		return pm__fail(err, PM_EINVAL, "aggregating runs needs the time column: "
				"give --target or a spec with \"target\"");
	return PM_OK;
}

/* The runs read (rc, raw) as fitted: throughput into time, runs aggregated;
 * *out and *info filled on success. */
static pm_status finish(pm_status rc, pm_dataset *raw, const pm_read_options *o, pm_format f,
			const char *target, pm_aggregate method, pm_dataset **out,
			pm_read_info *info, pm_error *err)
{
	pm_dataset *agg = NULL;

	if (!rc)
		rc = pm__dataset_aggregate(raw, o, target, method,
					   f == PM_FORMAT_EXTRAP || f == PM_FORMAT_EXTRAP_JSON ||
						   f == PM_FORMAT_EXTRAP_JSONL || f == PM_FORMAT_CUBE,
					   &agg, info, err);
	info->format = f;
	if (rc) {
		pm_dataset_free(raw);
		pm_read_info_clear(info);
		return rc;
	}
	if (agg) {
		pm_dataset_free(raw);
		raw = agg;
	}
	*out = raw;
	return PM_OK;
}

/* o, or the defaults in *dflt; info, or *scratch; *info zeroed. */
static void start(const pm_read_options **o, pm_read_options *dflt, pm_read_info **info,
		  pm_read_info *scratch)
{
	*dflt = pm_read_options_default();
	if (!*o)
		*o = dflt;
	if (!*info)
		*info = scratch;
	/* *info is the caller's to fill, not ours to free */
	memset(*info, 0, sizeof(**info));
	(*info)->cv_median = (*info)->cv_max = NAN;
}

/* text[0, len) with text[len] to spare; owned: the call takes text over, so
 * that CSV, the common case, is tokenized in place without a copy. */
static pm_status ingest(char *text, size_t len, int owned, const char *name,
			const pm_read_options *o, pm_dataset **out, pm_read_info *info,
			pm_error *err)
{
	pm_read_options dflt;
	pm_read_info scratch = { 0 };
	pm_format f;
	pm_aggregate method;
	pm_dataset *raw = NULL;
	const char *target;
	pm_status rc;

	start(&o, &dflt, &info, &scratch);
	f = o->format;
	if ((f == PM_FORMAT_AUTO && (rc = detect(text, len, name, &f, err))) ||
	    (rc = check_options(o, f, &target, &method, err))) {
		if (owned)
			free(text);
		return rc;
	}
	switch (f) {
	case PM_FORMAT_HYPERFINE: rc = pm__read_hyperfine(text, len, name, &raw, err); break;
	case PM_FORMAT_GBENCH:
		rc = pm__read_gbench(text, len, name, o->name_pattern, &raw, err);
		break;
	case PM_FORMAT_EXTRAP:
		rc = pm__read_extrap(text, len, name, o->region, o->metric, &raw, err);
		break;
	case PM_FORMAT_EXTRAP_JSON:
		rc = pm__read_extrap_json(text, len, name, o->region, o->metric, &raw, err);
		if (rc == PM_EPARSE && jsonl_lines(text, len)) {
			f = PM_FORMAT_EXTRAP_JSONL;	/* as Extra-P's --json does */
			rc = pm__read_extrap_jsonl(text, len, name, o->region, o->metric, &raw,
						   err);
		}
		break;
	case PM_FORMAT_EXTRAP_JSONL:
		rc = pm__read_extrap_jsonl(text, len, name, o->region, o->metric, &raw, err);
		break;
	case PM_FORMAT_CUBE: rc = pm__read_cube(text, len, name, o, &raw, err); break;
	default:
		rc = owned ? pm__dataset_from_buffer(text, len, name, &raw, err)
			   : pm_dataset_parse_csv(text, len, name, &raw, err);
		owned = 0;	/* the tokenizer has it */
		break;
	}
	if (owned)
		free(text);
	rc = finish(rc, raw, o, f, target, method, out, info, err);
	pm_read_info_clear(&scratch);
	return rc;
}

/* A folder (a set of CUBE profiles in run folders), or a read the cache
 * holds. */
static pm_status ingest_folder(const char *path, const pm_read_options *o, pm_dataset **out,
			       pm_read_info *info, pm_error *err)
{
	pm_read_options dflt;
	pm_read_info scratch = { 0 };
	pm_aggregate method;
	pm_dataset *raw = NULL;
	const char *target;
	pm_status rc;

	start(&o, &dflt, &info, &scratch);
	if ((rc = check_options(o, PM_FORMAT_CUBE, &target, &method, err)))
		return rc;
	rc = pm__read_cache_holds(path, o) ? pm__read_cache_take(path, o, &raw, err)
					    : pm__read_cube_set(path, o, &raw, err);
	rc = finish(rc, raw, o, PM_FORMAT_CUBE, target, method, out, info, err);
	pm_read_info_clear(&scratch);
	return rc;
}

pm_status pm_dataset_parse(const char *text, size_t len, const char *name,
			   const pm_read_options *o, pm_dataset **out, pm_read_info *info,
			   pm_error *err)
{
	if (!out)
		return pm__fail(err, PM_EINVAL, "no place for the dataset");
	*out = NULL;
	if (!text && len)
		return pm__fail(err, PM_EINVAL, "no text");
	/* not owned: nothing writes to it */
	return ingest((char *)(uintptr_t)(text ? text : ""), len, 0, name ? name : "<input>", o,
		      out, info, err);
}

pm_status pm_dataset_read(const char *path, const pm_read_options *o, pm_dataset **out,
			  pm_read_info *info, pm_error *err)
{
	struct stat st;
	char *text;
	size_t len = 0;
	pm_status rc;

	if (!out)
		return pm__fail(err, PM_EINVAL, "no place for the dataset");
	*out = NULL;
	if (!path)
		return pm__fail(err, PM_EINVAL, "no file name");
	/* a folder is a set of CUBE profiles (any other format: the reader's
	 * "not a regular file") */
	if (pm__read_cache_holds(path, o) ||
	    ((!o || o->format == PM_FORMAT_AUTO || o->format == PM_FORMAT_CUBE) &&
	     stat(path, &st) == 0 && S_ISDIR(st.st_mode)))
		return ingest_folder(path, o, out, info, err);
	if ((rc = pm__read_file(path, &text, &len, err)))
		return rc;
	return ingest(text, len, 1, path, o, out, info, err);
}

pm_status pm__detect_text(const char *text, size_t len, const char *name, pm_format *f,
			  pm_error *err)
{
	return detect(text, len, name, f, err);
}

pm_status pm_dataset_read_csv(const char *path, pm_dataset **out, pm_error *err)
{
	/* CSV as it is: no aggregation without a target, no conversion */
	pm_read_options o = pm_read_options_default();

	o.format = PM_FORMAT_CSV;
	return pm_dataset_read(path, &o, out, NULL, err);
}
