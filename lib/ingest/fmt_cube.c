/* CUBE profiles as measurements (docs/formats.md "CUBE profiles"): one
 * profile is one run, and a folder of run folders named after their
 * parameters (mm.x10y1z25.r1), as Extra-P reads them, is a data set. A
 * run's value is the chosen call path's and metric's over the profile's
 * locations: their mean (--scaling weak, Extra-P's default) or sum
 * (strong), or their mean and each location's (each: for lif). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/error.h"
#include "core/read_file.h"
#include "core/stop.h"
#include "ingest/cube.h"
#include "ingest/ingest_impl.h"
#include "data/table.h"

#define MAX_PARAMS PM_CUBE_MAX_PARAMS
#define NO_PROFILE "a folder is read as a set of CUBE profiles, but none of its folders holds " \
		   "a .cubex file"

/* The pairs (call path, metric) read from each profile: one (the read
 * options') or many at once (pm__read_cube_pairs: every profile parsed
 * once for all of them). */
struct pairs {
	size_t n;
	const char *const *region, *const *metric;
	/* per pair: its error, and whether it has one; NULL: the first error
	 * of any pair stops the reading (one pair) */
	pm_error *err;
	unsigned char *failed;
	/* per pair (with err): the runs whose profile lacks its call path,
	 * counted on after its first failed */
	size_t *lacking;
};

struct run {
	char *folder, *file;	/* the folder's name; the profile's path */
	double value[MAX_PARAMS];	/* the parameters */
	double *val;			/* per pair: the profile's value */
	double **loc;			/* per pair, --scaling each: every location's (owned) */
	size_t *nloc;
};

static void run_free(struct run *r, size_t npair)
{
	free(r->folder);
	free(r->file);
	for (size_t k = 0; r->loc && k < npair; k++)
		free(r->loc[k]);
	free(r->val);
	free(r->loc);
	free(r->nloc);
}

/* Pair k's call path in profile c: one more run lacking it, when c does. */
static pm_status count_lacking(pm_cube *c, const struct pairs *pr, size_t k, pm_error *err)
{
	int has = pr->region[k] ? pm__cube_has_callpath(c, pr->region[k]) : 1;

	if (has < 0)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	pr->lacking[k] += !has;
	return PM_OK;
}

/* Run r of profile buf[0, len), for each pair: its value, the mean of its
 * locations' (weak, each) or their sum (strong), and with each those
 * values. A pair that fails here keeps its error and is not read again. */
static pm_status run_value(const unsigned char *buf, size_t len, const char *name,
			   const pm_read_options *o, const struct pairs *pr, struct run *r,
			   pm_error *err)
{
	pm_cube *c = NULL;
	pm_status rc;

	r->val = calloc(pr->n + 1, sizeof(*r->val));
	r->loc = calloc(pr->n + 1, sizeof(*r->loc));
	r->nloc = calloc(pr->n + 1, sizeof(*r->nloc));
	if (!r->val || !r->loc || !r->nloc)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	if ((rc = pm__cube_parse(buf, len, name, o->stop, &c, err)))
		return rc;
	for (size_t k = 0; k < pr->n && !rc; k++) {
		double *vals = NULL, sum = 0;
		size_t n = 0;

		if (pr->failed && pr->failed[k]) {
			if (pr->lacking[k] && (rc = count_lacking(c, pr, k, err)))
				break;
			continue;
		}
		rc = pm__cube_values(c, pr->metric[k], pr->region[k], o->inclusive, &vals, &n,
				     pr->err ? &pr->err[k] : err);
		if (rc && pr->err) {
			/* this pair's error, not the reading's */
			pr->failed[k] = 1;
			rc = rc == PM_ENOMEM ? pm__fail(err, rc, "out of memory")
					     : count_lacking(c, pr, k, err);
			continue;
		}
		for (size_t i = 0; i < n; i++)
			sum += vals[i];
		r->val[k] = o->scaling == PM_SCALING_STRONG || !n ? sum : sum / (double)n;
		if (!rc && o->scaling == PM_SCALING_EACH) {
			r->loc[k] = vals;
			r->nloc[k] = n;
			vals = NULL;
		}
		free(vals);
	}
	pm__cube_free(c);
	return rc;
}

/* Pair k's columns: the parameters kept (keep[0, nkeep) of names), the time
 * and, with --scaling each, loc_1 .. loc_maxloc; then each run's row (a run
 * of fewer locations leaves the rest empty: it had no such location). */
static pm_status build(const struct run *run, size_t nrun, size_t k, char names[][64],
		       const size_t *keep, size_t nkeep, const char *name, pm_dataset **out,
		       pm_error *err)
{
	size_t maxloc = 0;
	const char **cols;
	char (*loc)[32];
	pm_table t = { 0 };
	pm_status rc = PM_OK;

	for (size_t r = 0; r < nrun; r++)
		if (run[r].nloc[k] > maxloc)
			maxloc = run[r].nloc[k];
	cols = malloc((nkeep + 1 + maxloc) * sizeof(*cols));
	loc = malloc((maxloc + 1) * sizeof(*loc));
	if (!cols || !loc) {
		rc = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t p = 0; p < nkeep; p++)
		cols[p] = names[keep[p]];
	cols[nkeep] = PM_INGEST_TIME_COLUMN;
	for (size_t l = 0; l < maxloc; l++) {
		snprintf(loc[l], sizeof(*loc), "loc_%zu", l + 1);
		cols[nkeep + 1 + l] = loc[l];
	}
	t.ncols = nkeep + 1 + maxloc;
	t.names = cols;
	for (size_t r = 0; r < nrun && !rc; r++) {
		for (size_t p = 0; p < nkeep && !rc; p++)
			rc = pm__table_add_number(&t, run[r].value[keep[p]], err);
		if (!rc)
			rc = pm__table_add_number(&t, run[r].val[k], err);
		for (size_t l = 0; l < maxloc && !rc; l++)
			rc = l < run[r].nloc[k] ? pm__table_add_number(&t, run[r].loc[k][l], err)
						: pm__table_add(&t, NULL, err);
	}
	if (!rc)
		rc = pm__table_build(&t, name, out, err);
out:
	pm__table_free(&t);
	free(cols);
	free(loc);
	return rc;
}

/* Every pair not failed built from the runs into out[k]. */
static pm_status build_all(const struct run *run, size_t nrun, const struct pairs *pr,
			   char names[][64], const size_t *keep, size_t nkeep, const char *name,
			   pm_dataset **out, pm_error *err)
{
	pm_status rc = PM_OK;

	for (size_t k = 0; k < pr->n && !rc; k++)
		if (!pr->failed || !pr->failed[k])
			rc = build(run, nrun, k, names, keep, nkeep, name, &out[k], err);
	return rc;
}

/* One profile, text[0, len), as one run of each pair. */
static pm_status read_profile(const char *text, size_t len, const char *name,
			      const pm_read_options *o, const struct pairs *pr, pm_dataset **out,
			      pm_error *err)
{
	struct run r = { 0 };
	pm_status rc = run_value((const unsigned char *)text, len, name, o, pr, &r, err);

	if (!rc)
		rc = build_all(&r, 1, pr, NULL, NULL, 0, name, out, err);
	run_free(&r, pr->n);
	return rc;
}

pm_status pm__read_cube(const char *text, size_t len, const char *name, const pm_read_options *o,
			pm_dataset **out, pm_error *err)
{
	const struct pairs one = { 1, &o->region, &o->metric, NULL, NULL, NULL };

	*out = NULL;
	return read_profile(text, len, name, o, &one, out, err);
}

/* ---- experiment folders --------------------------------------------------- */

struct set {
	const char *dir;
	const pm_read_options *o;
	const struct pairs *pr;
	pm_error *err;
	char name[MAX_PARAMS][64];	/* the first folder's parameter names */
	size_t np;
	const char *first;		/* that folder */
	struct run *run;
	size_t nrun, cap;
};

/* Extra-P's reading of a folder name (abstract_directory_reader.py): the
 * text between the first '.' and the first ".r" (the repetition) is names
 * and numbers in turn, "x10y1z25"; a number is digits, '.' and ',' (a
 * decimal comma), a trailing '.' dropped ("x20,5.y20,5.z1,5"). 0 if the name
 * is not of that shape. */
int pm__cube_folder_params(const char *folder, char name[][64], double *value, size_t *np)
{
	const char *dot = strchr(folder, '.'), *s = dot ? dot + 1 : folder;
	const char *rep = strstr(folder, ".r"), *end = rep && rep >= s ? rep : s + strlen(s);

	*np = 0;
	while (s < end) {
		size_t nl = strcspn(s, "0123456789.,"), vl;
		char num[64], *stop;

		if (!nl || s + nl >= end || nl >= 64 || *np == MAX_PARAMS)
			return 0;
		memcpy(name[*np], s, nl);
		name[*np][nl] = '\0';
		s += nl;
		vl = strspn(s, "0123456789.,");
		if (s + vl > end)
			vl = (size_t)(end - s);
		if (vl >= sizeof(num))
			return 0;
		memcpy(num, s, vl);
		num[vl] = '\0';
		for (char *p = num; *p; p++)
			if (*p == ',')
				*p = '.';
		while (vl && num[vl - 1] == '.')
			num[--vl] = '\0';
		value[*np] = pm_strtod(num, &stop);	/* "2.5" under any locale */
		if (!vl || *stop)
			return 0;
		(*np)++;
		s += strspn(s, "0123456789.,");
	}
	return *np > 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int dangling(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && stat(path, &st) != 0;
}

/* Whether a name is a run folder's (mm.x10y1z25.r1). */
static int run_name(const char *name)
{
	char names[MAX_PARAMS][64];
	double value[MAX_PARAMS];
	size_t np;

	return pm__cube_folder_params(name, names, value, &np);
}

/* Why the profile at path, not a regular file, cannot be read. */
static pm_status unreadable_profile(const char *path, pm_error *err)
{
	struct stat st;
	char why[128];

	if (dangling(path))
		return pm__fail_at(err, PM_EIO, path, 0, 0, "a symbolic link to nothing (a run's "
				   "profile that cannot be read)");
	if (stat(path, &st) != 0)
		return pm__fail_at(err, PM_EIO, path, 0, 0, "cannot read the run's profile: %s",
				   pm_strerror(errno, why, sizeof(why)));
	return pm__fail_at(err, PM_EIO, path, 0, 0, "%s, not a regular file: a run's profile "
			   "must be one", S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISDIR(st.st_mode)
			   ? "a folder" : S_ISSOCK(st.st_mode) ? "a socket" : "a device");
}

/* The names in folder dir (not those starting with '.'), sorted, that are
 * folders (want_dir) or regular files ending in suffix; a name ending in
 * suffix that is no regular file (a dangling link, a FIFO) is an error. */
static pm_status list(const char *dir, int want_dir, const char *suffix, char ***out, size_t *n,
		      pm_error *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	size_t cap = 0;
	pm_status rc = PM_OK;

	*out = NULL;
	*n = 0;
	if (!d)
		return pm__fail_at(err, PM_EIO, dir, 0, 0, "cannot open the folder");
	while ((e = readdir(d)) && !rc) {
		size_t l = strlen(e->d_name), sl = suffix ? strlen(suffix) : 0;
		char *path;
		struct stat st;
		int ok;

		if (e->d_name[0] == '.' || (suffix && (l <= sl || strcmp(e->d_name + l - sl, suffix))))
			continue;
		if (!(path = malloc(strlen(dir) + l + 2))) {
			rc = pm__fail(err, PM_ENOMEM, "out of memory");
			break;
		}
		sprintf(path, "%s/%s", dir, e->d_name);
		ok = stat(path, &st) == 0 && (want_dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));
		/* a profile that cannot be read is an error, not a run fewer; and
		 * a FIFO is not opened, where reading would wait for a writer */
		if (!ok && suffix)
			rc = unreadable_profile(path, err);
		else if (!ok && dangling(path) && run_name(e->d_name))
			rc = pm__fail_at(err, PM_EIO, path, 0, 0, "a symbolic link to nothing (a run "
					 "folder that cannot be read)");
		free(path);
		if (!ok)
			continue;
		if (*n == cap) {
			char **p = realloc(v, (cap = cap ? 2 * cap : 16) * sizeof(*p));

			if (!p) {
				rc = pm__fail(err, PM_ENOMEM, "out of memory");
				break;
			}
			v = p;
		}
		if (!(v[*n] = strdup(e->d_name))) {
			rc = pm__fail(err, PM_ENOMEM, "out of memory");
			break;
		}
		(*n)++;
	}
	closedir(d);
	if (!rc && *n)
		qsort(v, *n, sizeof(*v), cmp_str);
	*out = v;
	return rc;
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* The runs of one folder: each profile in it (none: the folder is not a
 * run, and is skipped). */
static pm_status folder_runs(struct set *s, const char *folder)
{
	char *path = malloc(strlen(s->dir) + strlen(folder) + 2), **files = NULL;
	char name[MAX_PARAMS][64];
	double value[MAX_PARAMS];
	size_t nf = 0, np;
	pm_status rc;

	if (!path)
		return pm__fail(s->err, PM_ENOMEM, "out of memory");
	sprintf(path, "%s/%s", s->dir, folder);
	if ((rc = list(path, 0, ".cubex", &files, &nf, s->err)) || !nf)
		goto out;
	if (!pm__cube_folder_params(folder, name, value, &np)) {
		rc = pm__fail_at(s->err, PM_ESCHEMA, s->dir, 0, 0, "folder '%s': no parameters in "
				 "its name (Extra-P's form: name.x10y1z25.r1, letters then numbers)",
				 folder);
		goto out;
	}
	if (!s->first) {
		s->first = folder;
		s->np = np;
		memcpy(s->name, name, sizeof(name));
	}
	for (size_t i = 0; i < s->np || i < np; i++)
		if (np != s->np || strcmp(name[i], s->name[i])) {
			rc = pm__fail_at(s->err, PM_ESCHEMA, s->dir, 0, 0, "folders '%s' and '%s' "
					 "name other parameters (or in another order)", s->first,
					 folder);
			goto out;
		}
	for (size_t k = 0; k < nf && !rc; k++) {
		struct run *r;
		char *text = NULL;
		size_t len;

		if (s->nrun == s->cap) {
			size_t cap = s->cap ? 2 * s->cap : 16;
			struct run *p = realloc(s->run, cap * sizeof(*p));

			if (!p) {
				rc = pm__fail(s->err, PM_ENOMEM, "out of memory");
				break;
			}
			s->run = p;
			s->cap = cap;
		}
		if (pm__stop_requested(s->o->stop)) {
			rc = pm__fail_at(s->err, PM_EIO, s->dir, 0, 0, "interrupted before run folder "
					 "'%s' was read (a stop request)", folder);
			break;
		}
		r = &s->run[s->nrun++];
		memset(r, 0, sizeof(*r));
		memcpy(r->value, value, sizeof(value));
		r->folder = strdup(folder);
		r->file = malloc(strlen(path) + strlen(files[k]) + 2);
		if (!r->folder || !r->file) {
			rc = pm__fail(s->err, PM_ENOMEM, "out of memory");
			break;
		}
		sprintf(r->file, "%s/%s", path, files[k]);
		if (!(rc = pm__read_file(r->file, &text, &len, s->err)))
			rc = run_value((const unsigned char *)text, len, r->file, s->o, s->pr, r,
				       s->err);
		free(text);
	}
out:
	free_list(files, nf);
	free(path);
	return rc;
}

/* The set in dir, each pair's runs into out[k]. */
static pm_status read_set(const char *dir, const pm_read_options *o, const struct pairs *pr,
			  pm_dataset **out, pm_error *err)
{
	struct set s = { .dir = dir, .o = o, .pr = pr, .err = err };
	size_t keep[MAX_PARAMS], nkeep = 0, nd = 0;
	char **folders = NULL;
	pm_status rc;

	if ((rc = list(dir, 1, NULL, &folders, &nd, err)))
		goto out;
	for (size_t i = 0; i < nd && !rc; i++)
		rc = folder_runs(&s, folders[i]);
	if (!rc && !s.nrun)
		rc = pm__fail_at(err, PM_ESCHEMA, dir, 0, 0, NO_PROFILE);
	if (rc)
		goto out;
	/* a call path some runs lack: how many, after the first's error */
	for (size_t k = 0; pr->lacking && k < pr->n; k++)
		if (pr->lacking[k])
			pm__err_append(&pr->err[k], "; %zu of the %zu runs lack it", pr->lacking[k],
				       s.nrun);
	/* as Extra-P: a parameter that has one value in every folder is none */
	for (size_t p = 0; p < s.np; p++) {
		size_t r = 1;

		while (r < s.nrun && s.run[r].value[p] == s.run[0].value[p])
			r++;
		if (r < s.nrun)
			keep[nkeep++] = p;
	}
	if (!nkeep) {
		rc = pm__fail_at(err, PM_ESCHEMA, dir, 0, 0, "no parameter varies between the run "
				 "folders (as '%s')", s.first);
		goto out;
	}
	rc = build_all(s.run, s.nrun, pr, s.name, keep, nkeep, dir, out, err);
out:
	for (size_t r = 0; r < s.nrun; r++)
		run_free(&s.run[r], pr->n);
	free(s.run);
	free_list(folders, nd);
	return rc;
}

pm_status pm__read_cube_set(const char *dir, const pm_read_options *o, pm_dataset **out,
			    pm_error *err)
{
	const struct pairs one = { 1, &o->region, &o->metric, NULL, NULL, NULL };

	*out = NULL;
	return read_set(dir, o, &one, out, err);
}

pm_status pm__read_cube_pairs(const char *path, int folder, const pm_read_options *o, size_t n,
			      const char *const *region, const char *const *metric,
			      pm_dataset **out, pm_error *perr, pm_error *err)
{
	unsigned char *failed = calloc(n + 1, 1);
	size_t *lacking = calloc(n + 1, sizeof(*lacking));
	struct pairs pr = { n, region, metric, perr, failed, lacking };
	char *text = NULL;
	size_t len;
	pm_status rc;

	for (size_t k = 0; k < n; k++)
		out[k] = NULL;
	if (!failed || !lacking) {
		free(failed);
		free(lacking);
		return pm__fail(err, PM_ENOMEM, "out of memory");
	}
	if (folder)
		rc = read_set(path, o, &pr, out, err);
	else if (!(rc = pm__read_file(path, &text, &len, err)))
		rc = read_profile(text, len, path, o, &pr, out, err);
	free(text);
	free(failed);
	free(lacking);
	if (rc)
		for (size_t k = 0; k < n; k++) {
			pm_dataset_free(out[k]);
			out[k] = NULL;
		}
	return rc;
}

pm_status pm__cube_set_profiles(const char *dir, char ***profile, size_t *nprofiles,
			       size_t *nfolders, pm_error *err)
{
	char **folders = NULL, **all = NULL;
	size_t nd = 0, cap = 0;
	pm_status rc = list(dir, 1, NULL, &folders, &nd, err);

	*profile = NULL;
	*nfolders = *nprofiles = 0;
	for (size_t i = 0; i < nd && !rc; i++) {
		char *path = malloc(strlen(dir) + strlen(folders[i]) + 2), **files = NULL;
		size_t nf = 0;

		if (!path) {
			rc = pm__fail(err, PM_ENOMEM, "out of memory");
			break;
		}
		sprintf(path, "%s/%s", dir, folders[i]);
		rc = list(path, 0, ".cubex", &files, &nf, err);
		*nfolders += nf > 0;
		for (size_t k = 0; k < nf && !rc; k++) {
			char **p = *nprofiles < cap ? all
				   : realloc(all, (cap = cap ? 2 * cap : 16) * sizeof(*p));

			if (p)
				all = p;
			if (!p || !(all[*nprofiles] = malloc(strlen(path) + strlen(files[k]) + 2))) {
				rc = pm__fail(err, PM_ENOMEM, "out of memory");
				break;
			}
			sprintf(all[(*nprofiles)++], "%s/%s", path, files[k]);
		}
		free_list(files, nf);
		free(path);
	}
	free_list(folders, nd);
	if (!rc && !*nprofiles)
		rc = pm__fail_at(err, PM_ESCHEMA, dir, 0, 0, NO_PROFILE);
	if (rc) {
		free_list(all, *nprofiles);
		*nprofiles = *nfolders = 0;
		return rc;
	}
	*profile = all;
	return PM_OK;
}

void pm__cube_set_profiles_free(char **profile, size_t n)
{
	free_list(profile, n);
}

pm_status pm__cube_set_first(const char *dir, char **profile, size_t *nfolders,
			     size_t *nprofiles, pm_error *err)
{
	char **all = NULL;
	pm_status rc = pm__cube_set_profiles(dir, &all, nprofiles, nfolders, err);

	*profile = NULL;
	if (rc)
		return rc;
	*profile = all[0];
	all[0] = NULL;
	free_list(all, *nprofiles);
	return PM_OK;
}
