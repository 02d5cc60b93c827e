/* The pieces behind pm_dataset_read (lib/ingest/ingest.c). Private to the libraries. */
#ifndef PM_INGEST_IMPL_H
#define PM_INGEST_IMPL_H

#include <stddef.h>

#include "perfmodel/ingest.h"
#include "perfmodel/perfmodel.h"

/* The JSON readers: text[0, len) (text[len] may be read) of file `name`,
 * one row per run with the parameters and PM_INGEST_TIME_COLUMN. */
pm_status pm__read_hyperfine(const char *text, size_t len, const char *name,
			     pm_dataset **out, pm_error *err);
pm_status pm__read_gbench(const char *text, size_t len, const char *name,
			  const char *pattern, pm_dataset **out, pm_error *err);
/* Extra-P text input; region and metric choose (NULL: the file must have
 * one). The cells keep their places in the file. */
pm_status pm__read_extrap(const char *text, size_t len, const char *name, const char *region,
			  const char *metric, pm_dataset **out, pm_error *err);
/* Extra-P JSON and JSON Lines (lib/ingest/fmt_extrap_json.c), choosing likewise;
 * JSON Lines cells have their line. */
pm_status pm__read_extrap_json(const char *text, size_t len, const char *name,
			       const char *region, const char *metric, pm_dataset **out,
			       pm_error *err);
pm_status pm__read_extrap_jsonl(const char *text, size_t len, const char *name,
				const char *region, const char *metric, pm_dataset **out,
				pm_error *err);

/* CUBE (lib/ingest/fmt_cube.c): one profile text[0, len) as one run in
 * PM_INGEST_TIME_COLUMN; a folder of run folders as runs with their
 * parameters (o: region, metric, inclusive, scaling). */
pm_status pm__read_cube(const char *text, size_t len, const char *name, const pm_read_options *o,
			pm_dataset **out, pm_error *err);
pm_status pm__read_cube_set(const char *dir, const pm_read_options *o, pm_dataset **out,
			    pm_error *err);
/* n pairs (call path region[k], metric metric[k]) of the CUBE profile or
 * folder of run folders at path (folder: which), each profile read once:
 * out[k] the runs of pair k as pm__read_cube or pm__read_cube_set with
 * that region and metric makes them, or NULL and its error in perr[k] (a
 * call path or metric that one of the profiles lacks). An error of the
 * reading itself (a folder, a profile that cannot be read) is returned,
 * every out[k] NULL. */
pm_status pm__read_cube_pairs(const char *path, int folder, const pm_read_options *o, size_t n,
			      const char *const *region, const char *const *metric,
			      pm_dataset **out, pm_error *perr, pm_error *err);
/* Whether o->cache (pm_read_cache_new) holds o's read of path: the same
 * path, inclusive, scaling and a pair it has. pm__read_cache_take: a copy
 * of that pair's runs into *out, or the error reading them gave. */
int pm__read_cache_holds(const char *path, const pm_read_options *o);
pm_status pm__read_cache_take(const char *path, const pm_read_options *o, pm_dataset **out,
			      pm_error *err);
/* A run folder's parameters as Extra-P reads its name (mm.x10y1z25.r1:
 * x = 10, y = 1, z = 25): name[0, *np) and value[0, *np) (room for
 * PM_CUBE_MAX_PARAMS); 0 if the name is not of that shape. */
#define PM_CUBE_MAX_PARAMS 16
int pm__cube_folder_params(const char *folder, char name[][64], double *value, size_t *np);
/* The profiles of the set in dir, in name order (folder, then file):
 * (*profile)[0, *nprofiles), owned (pm__cube_set_profiles_free), and how
 * many run folders hold them. PM_ESCHEMA when no folder holds a profile;
 * PM_EIO naming a run's .cubex that is no regular file (a dangling link, a
 * FIFO). */
pm_status pm__cube_set_profiles(const char *dir, char ***profile, size_t *nprofiles,
			       size_t *nfolders, pm_error *err);
void pm__cube_set_profiles_free(char **profile, size_t n);
/* Its first profile (*profile, owned), and the counts. */
pm_status pm__cube_set_first(const char *dir, char **profile, size_t *nfolders,
			     size_t *nprofiles, pm_error *err);
/* The format of text[0, len) of file name, as pm_dataset_read detects it
 * (PM_EPARSE, PM_ESCHEMA for JSON that is no format perfmodel reads). */
pm_status pm__detect_text(const char *text, size_t len, const char *name, pm_format *f,
			  pm_error *err);
/* pm_region_list_read of text[0, len) of file name (a profile, not a set). */
pm_status pm__region_list_parse(const char *text, size_t len, const char *name, pm_format format,
				pm_region_list **out, pm_error *err);

#endif
