/* The regions (call paths) × metrics an Extra-P file or a CUBE profile (or
 * set of them) holds, for `perfmodel batch --each-region` and `perfmodel
 * inspect`: one fit per pair. Only the names are read here, as lightly as
 * can be; reading a pair's measurements (--region, --metric) is the
 * readers' (fmt_extrap*.c, fmt_cube.c), which check everything and say
 * what is wrong, so a pair listed here may still fail there, as its own
 * job. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/error.h"
#include "core/read_file.h"
#include "core/strindex.h"
#include "ingest/cube.h"
#include "ingest/fmt_extrap_json.h"
#include "ingest/ingest_impl.h"
#include "perfmodel/ingest.h"
#include "perfmodel/perfmodel.h"

/* The pairs in order of first appearance, and an index of their keys
 * (region and metric in one string) to find one already listed in
 * constant time: a profile of 100 000 call paths lists as many pairs. */
struct pairs {
	pm_region_list *l;
	char **key;		/* per pair */
	pm__strindex index;
	size_t cap;
	int failed;
};

static const char *key_of(const void *ctx, size_t i)
{
	return ((const struct pairs *)ctx)->key[i];
}

/* s with '\\' and newlines escaped into out (which has room for 2 x
 * strlen(s)), then end: a pair's key, region and metric told apart even
 * when a name holds a newline. */
static char *escape(char *out, const char *s, char end)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '\n')
			*out++ = '\\';
		*out++ = *s == '\n' ? 'n' : *s;
	}
	*out++ = end;
	return out;
}

/* Room for one more pair; p->failed on no memory. */
static int room(struct pairs *p)
{
	pm_region_list *l = p->l;
	size_t cap = p->cap ? 2 * p->cap : 16;
	char **r, **m, **k;

	if (l->n < p->cap)
		return 0;
	if ((r = realloc(l->region, cap * sizeof(*r))))
		l->region = r;
	if ((m = r ? realloc(l->metric, cap * sizeof(*m)) : NULL))
		l->metric = m;
	if ((k = m ? realloc(p->key, cap * sizeof(*k)) : NULL))
		p->key = k;
	if (!k || (!p->index.slot && pm__strindex_init(&p->index, cap, key_of, p))) {
		p->failed = 1;
		return -1;
	}
	p->cap = cap;
	return 0;
}

/* Add (region, metric) unless listed; p->failed on no memory. */
static void add(struct pairs *p, const char *region, const char *metric)
{
	pm_region_list *l = p->l;
	size_t rl = strlen(region), ml = strlen(metric), at;
	char *key;

	if (p->failed || room(p))
		return;
	if (rl > (SIZE_MAX - 2) / 2 - ml || !(key = malloc(2 * (rl + ml) + 2))) {
		p->failed = 1;
		return;
	}
	escape(escape(key, region, '\n'), metric, '\0');
	p->key[l->n] = key;
	at = pm__strindex_add(&p->index, l->n);
	if (at != l->n) {
		free(key);
		p->failed = at == SIZE_MAX;
		return;
	}
	l->region[l->n] = strdup(region);
	l->metric[l->n] = strdup(metric);
	if (!l->region[l->n] || !l->metric[l->n]) {
		free(l->region[l->n]);
		free(l->metric[l->n]);
		free(key);
		p->failed = 1;
		return;
	}
	l->n++;
}

/* Extra-P text: the REGION and METRIC in force at each DATA line. */
static void list_text(struct pairs *p, char *text)
{
	const char *region = "", *metric = "";
	int at_data = 0;

	for (char *line = text, *next; line; line = next) {
		size_t kw;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		line += strspn(line, " \t");
		kw = strcspn(line, " \t\r");
		if ((kw == 6 && !strncmp(line, "REGION", 6)) || (kw == 6 && !strncmp(line, "METRIC", 6))) {
			char *name = line + kw, *end;

			name += strspn(name, " \t");
			end = name + strlen(name);
			while (end > name && strchr(" \t\r", end[-1]))
				*--end = '\0';
			*(line[0] == 'R' ? &region : &metric) = name;
			at_data = 0;
		} else if (kw == 4 && !strncmp(line, "DATA", 4) && !at_data) {
			add(p, region, metric);
			at_data = 1;
		}
	}
}

/* The name of list's entry whose "id" is id (the older layout), or NULL. */
static const char *name_of(const cJSON *list, const cJSON *id)
{
	const cJSON *e;

	if (!cJSON_IsNumber(id))
		return NULL;
	cJSON_ArrayForEach(e, list) {
		const cJSON *eid = cJSON_GetObjectItemCaseSensitive(e, "id");
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "name");

		if (cJSON_IsNumber(eid) && eid->valuedouble == id->valuedouble &&
		    cJSON_IsString(name))
			return name->valuestring;
	}
	return NULL;
}

/* Extra-P JSON: "measurements" {CALLPATH: {METRIC: [...]}}, or the older
 * array of {"callpath_id", "metric_id"} referring to "callpaths" and
 * "metrics". */
static void list_json(struct pairs *p, const cJSON *root)
{
	const cJSON *meas = cJSON_GetObjectItemCaseSensitive(root, "measurements"), *cp, *m;

	if (cJSON_IsObject(meas)) {
		cJSON_ArrayForEach(cp, meas)
			if (cJSON_IsObject(cp))
				cJSON_ArrayForEach(m, cp)
					add(p, cp->string, m->string);
		return;
	}
	cJSON_ArrayForEach(m, meas) {
		const char *region = name_of(cJSON_GetObjectItemCaseSensitive(root, "callpaths"),
					     cJSON_GetObjectItemCaseSensitive(m, "callpath_id"));
		const char *metric = name_of(cJSON_GetObjectItemCaseSensitive(root, "metrics"),
					     cJSON_GetObjectItemCaseSensitive(m, "metric_id"));

		if (region && metric)
			add(p, region, metric);
	}
}

/* The "callpath" or "metric" of a JSON Lines line, or Extra-P's default. */
static const char *member_or(const cJSON *o, const char *key, const char *dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : dflt;
}

/* Extra-P JSON Lines: each line's callpath and metric. */
static void list_jsonl(struct pairs *p, char *text)
{
	for (char *line = text, *next; line && !p->failed; line = next) {
		cJSON *o;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		o = cJSON_Parse(line);
		if (cJSON_IsObject(o))
			add(p, member_or(o, "callpath", PM_EXTRAP_DEFAULT_CALLPATH),
			    member_or(o, "metric", PM_EXTRAP_DEFAULT_METRIC));
		cJSON_Delete(o);
	}
}

/* A CUBE profile buf[0, len) of file name: every call path × every metric
 * whose values can be read. */
static pm_status list_profile(struct pairs *p, const char *buf, size_t len, const char *name,
			      pm_error *err)
{
	pm_cube *c = NULL;
	pm_status rc = pm__cube_parse((const unsigned char *)buf, len, name, NULL, &c, err);
	size_t nm = rc ? 0 : pm__cube_nmetrics(c), nread = 0;
	/* the readable metrics, found once, not once per call path */
	const char **metric = malloc((nm + 1) * sizeof(*metric));

	if (!rc && !metric)
		rc = pm__fail(err, PM_ENOMEM, "out of memory");
	for (size_t m = 0; !rc && m < nm; m++) {
		pm_cube_metric_info info = pm__cube_metric(c, m);

		if (!info.unreadable)
			metric[nread++] = info.name;
	}
	for (size_t i = 0; !rc && i < pm__cube_ncnodes(c) && !p->failed; i++) {
		size_t depth;
		char *callpath = NULL;

		rc = pm__cube_callpath(c, i, &callpath, &depth, err);
		for (size_t m = 0; callpath && m < nread; m++)
			add(p, callpath, metric[m]);
		free(callpath);
	}
	free(metric);
	pm__cube_free(c);
	return rc;
}

/* A set of CUBE profiles: the pairs of all its profiles, in the order
 * they first appear. A pair some profiles lack is listed: reading it fails
 * as its own job, naming the call path and the profile without it, rather
 * than the pair being left out unsaid (or fitted on some runs only). */
static pm_status list_set(struct pairs *p, const char *dir, pm_error *err)
{
	char **profile = NULL;
	size_t nprofiles, nfolders;
	pm_status rc = pm__cube_set_profiles(dir, &profile, &nprofiles, &nfolders, err);

	for (size_t i = 0; !rc && i < nprofiles && !p->failed; i++) {
		char *text = NULL;
		size_t len;

		if (!(rc = pm__read_file(profile[i], &text, &len, err)))
			rc = list_profile(p, text, len, profile[i], err);
		free(text);
	}
	pm__cube_set_profiles_free(profile, nprofiles);
	return rc;
}

/* An Extra-P file by its layout: a JSON document, JSON Lines, else text. */
static void list_extrap(struct pairs *p, char *text, pm_format format)
{
	cJSON *root = NULL;

	if (format == PM_FORMAT_AUTO) {
		const char *first = text + strspn(text, " \t\r\n");

		/* one document with nothing after it (text ends in a NUL:
		 * pm__read_file); JSON Lines have more */
		format = *first != '{' ? PM_FORMAT_EXTRAP
			 : (root = cJSON_ParseWithOpts(text, NULL, 1)) ? PM_FORMAT_EXTRAP_JSON
								: PM_FORMAT_EXTRAP_JSONL;
	} else if (format == PM_FORMAT_EXTRAP_JSON) {
		root = cJSON_ParseWithOpts(text, NULL, 1);
	}
	if (format == PM_FORMAT_EXTRAP)
		list_text(p, text);
	else if (format == PM_FORMAT_EXTRAP_JSONL)
		list_jsonl(p, text);
	else if (root)
		list_json(p, root);
	cJSON_Delete(root);
}

/* text[0, len) (text[len] a NUL; written to) of file name, read as format
 * (PM_FORMAT_AUTO: by content). */
static pm_status list_text_of(struct pairs *p, char *text, size_t len, const char *name,
			      pm_format format, pm_error *err)
{
	pm_format found = format;
	pm_status st;

	if (format == PM_FORMAT_AUTO && (st = pm__detect_text(text, len, name, &found, err)))
		return st;
	if (found == PM_FORMAT_CUBE)
		return list_profile(p, text, len, name, err);
	if (found != PM_FORMAT_EXTRAP && found != PM_FORMAT_EXTRAP_JSON &&
	    found != PM_FORMAT_EXTRAP_JSONL)
		return pm__fail_at(err, PM_ESCHEMA, name, 0, 0, "a %s file, which has no regions or "
				   "metrics (Extra-P files and CUBE profiles have)",
				   pm_format_name(found));
	/* the Extra-P layouts tell themselves apart, as Extra-P's readers do */
	list_extrap(p, text, format);
	return PM_OK;
}

/* The list p made (st: how its making went), into *out. */
static pm_status done(struct pairs *p, pm_status st, const char *name, pm_region_list **out,
		      pm_error *err)
{
	for (size_t i = 0; i < p->l->n; i++)
		free(p->key[i]);
	free(p->key);
	pm__strindex_free(&p->index);
	if (!st && p->failed)
		st = pm__fail(err, PM_ENOMEM, "out of memory");
	if (!st && !p->l->n)
		st = pm__fail_at(err, PM_ESCHEMA, name, 0, 0, "no region with measurements: not an "
				 "Extra-P file or CUBE profile?");
	if (st) {
		pm_region_list_free(p->l);
		return st;
	}
	*out = p->l;
	return PM_OK;
}

/* The arguments' checks, and *out NULL. */
static pm_status start(const char *name, pm_format format, pm_region_list **out,
		       struct pairs *p, pm_error *err)
{
	if (!out)
		return pm__fail(err, PM_EINVAL, "pm_region_list_read: out is NULL");
	*out = NULL;
	if (format != PM_FORMAT_AUTO && format != PM_FORMAT_EXTRAP &&
	    format != PM_FORMAT_EXTRAP_JSON && format != PM_FORMAT_EXTRAP_JSONL &&
	    format != PM_FORMAT_CUBE)
		return pm__fail(err, PM_EINVAL, "regions and metrics are Extra-P's and CUBE's: not "
				"--format %s", pm_format_name(format));
	if (!name)
		return pm__fail(err, PM_EINVAL, "no file name");
	if (!(p->l = calloc(1, sizeof(*p->l))))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	return PM_OK;
}

pm_status pm_region_list_read(const char *path, pm_format format, pm_region_list **out,
			      pm_error *err)
{
	struct pairs p = { 0 };
	struct stat sb;
	char *text = NULL;
	size_t len;
	pm_status st = start(path, format, out, &p, err);

	if (st)
		return st;
	/* a folder is a set of CUBE profiles; a file is read once (it may be
	 * standard input or a pipe) */
	if ((format == PM_FORMAT_AUTO || format == PM_FORMAT_CUBE) && stat(path, &sb) == 0 &&
	    S_ISDIR(sb.st_mode))
		st = list_set(&p, path, err);
	else if (!(st = pm__read_file(path, &text, &len, err)))
		st = list_text_of(&p, text, len, path, format, err);
	free(text);
	return done(&p, st, path, out, err);
}

pm_status pm__region_list_parse(const char *text, size_t len, const char *name, pm_format format,
				pm_region_list **out, pm_error *err)
{
	struct pairs p = { 0 };
	char *copy = NULL;
	pm_status st = start(name, format, out, &p, err);

	if (st)
		return st;
	/* the listing writes NULs into the text */
	if (!(copy = malloc(len + 1)))
		st = pm__fail(err, PM_ENOMEM, "out of memory");
	else {
		memcpy(copy, text, len);
		copy[len] = '\0';
		st = list_text_of(&p, copy, len, name, format, err);
	}
	free(copy);
	return done(&p, st, name, out, err);
}

void pm_region_list_free(pm_region_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++) {
		free(l->region[i]);
		free(l->metric[i]);
	}
	free(l->region);
	free(l->metric);
	free(l);
}
