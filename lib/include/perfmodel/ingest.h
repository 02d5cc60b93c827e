/*
 * perfmodel/ingest.h — measurements in the formats users already have:
 * tidy CSV with repetitions, hyperfine --export-json, Google Benchmark
 * JSON and Extra-P text, JSON and JSON Lines, with throughput turned into time and repetitions aggregated. Every
 * reader makes an ordinary pm_dataset whose cells keep their place in the
 * file, so later errors still name FILE:LINE:COL. Included by perfmodel.h;
 * the conventions there hold (nothing prints, exits or aborts).
 */
#ifndef PERFMODEL_INGEST_H
#define PERFMODEL_INGEST_H

#include <signal.h>
#include <stddef.h>
#include "perfmodel/predict.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pm_dataset pm_dataset;

typedef enum pm_format {
	/* by content: a tar archive is CUBE, JSON by its keys (JSON Lines: a
	 * first line with "params"), Extra-P text by its keywords, else CSV */
	PM_FORMAT_AUTO = 0,
	PM_FORMAT_CSV,
	PM_FORMAT_HYPERFINE,	/* hyperfine --export-json */
	PM_FORMAT_GBENCH,	/* Google Benchmark --benchmark_format=json */
	PM_FORMAT_EXTRAP,	/* Extra-P text input (PARAMETER/POINTS/DATA lines) */
	PM_FORMAT_EXTRAP_JSON,	/* Extra-P JSON: "parameters", "measurements" */
	PM_FORMAT_EXTRAP_JSONL,	/* Extra-P JSON Lines: one {"params", "value"} per line */
	/* a CUBE4 profile (.cubex: a tar archive), one run; pm_dataset_read of
	 * a folder reads a set of them (docs/formats.md "CUBE profiles") */
	PM_FORMAT_CUBE,
} pm_format;

/* "auto", "csv", "hyperfine", "gbench", "extrap", "extrap-json",
 * "extrap-jsonl", "cube"; PM_EINVAL for another. */
PM_API pm_status pm_format_from_name(const char *name, pm_format *out, pm_error *err);
PM_API const char *pm_format_name(pm_format f);

/* How the values of a CUBE profile's locations (processes, threads) make
 * one run, as Extra-P's scaling types. */
typedef enum pm_cube_scaling {
	PM_SCALING_WEAK = 0,	/* their mean: each process has the same work */
	PM_SCALING_STRONG,	/* their sum: the work is divided */
	/* their mean, and each in a column of its own, loc_1 .. loc_N (a run
	 * of fewer locations leaves the rest empty), for lif and --target lif;
	 * runs are not merged unless asked for */
	PM_SCALING_EACH,
} pm_cube_scaling;

typedef enum pm_aggregate {
	PM_AGG_DEFAULT = 0,	/* median for formats that hold repetitions, none for CSV */
	PM_AGG_NONE,		/* every run is a row */
	PM_AGG_MEDIAN,		/* thesis §4.2.4: the median of the runs */
	PM_AGG_MEAN,
	PM_AGG_MIN,
} pm_aggregate;

/* "none", "median", "mean", "min"; PM_EINVAL for another name. */
PM_API pm_status pm_aggregate_from_name(const char *name, pm_aggregate *out, pm_error *err);

/* The time column of the JSON formats, in seconds. */
#define PM_INGEST_TIME_COLUMN "time_s"

typedef struct pm_read_cache pm_read_cache;

typedef struct pm_read_options {
	pm_format format;
	/* The measured time: what repetitions are aggregated over, and the name
	 * of the column that --throughput makes. NULL: PM_INGEST_TIME_COLUMN
	 * for the JSON formats and throughput; CSV without it is not aggregated. */
	const char *target;
	/* A configuration is the values of these columns (NULL-terminated);
	 * NULL: every column but the target. Columns outside it are dropped
	 * when rows are aggregated, as they may differ between runs. */
	const char *const *key;
	pm_aggregate aggregate;
	unsigned drop_first;	/* runs dropped at the start of each configuration */
	/* target = per / throughput (1 / throughput without per), replacing
	 * the throughput column (e.g. samples/s and the batch size give seconds
	 * per batch): the model is then of that time. per needs throughput.
	 * (To model the throughput itself, and predict it, the spec's target
	 * kind: pm_spec_set_target_kind.) */
	const char *throughput, *per;
	/* Google Benchmark: how to read parameters from a benchmark name, e.g.
	 * "BM_gemm/{n}/threads:{threads}"; benchmarks that do not match are
	 * skipped. NULL: the name's '/'-parts, "key:value" as column key, the
	 * others as arg1, arg2, ..., the first as column "benchmark". */
	const char *name_pattern;
	/* Extra-P: which REGION (callpath) and METRIC (NULL: the file must
	 * have one). CUBE: the call path as Extra-P names it, region names from
	 * the root joined by "->" ("main->mat_mul"; NULL: the profile must have
	 * one), and the metric's uniq_name (NULL: "time"). */
	const char *region, *metric;
	/* PM_WEIGHTS_INVERSE_VARIANCE: weight each configuration (which implies
	 * aggregating) by 1 / the variance of its aggregated time, s²/runs
	 * (docs/formats.md "Weights"); kept in the dataset for the fit
	 * (pm_dataset_weights). PM_WEIGHTS_GIVEN is not an option here. */
	pm_weights weights;
	/* CUBE: the call path's value with its callees' (1) or its own
	 * (0: exclusive, as Extra-P), and how its locations make one run. */
	int inclusive;
	pm_cube_scaling scaling;
	/* NULL, or runs already read (pm_read_cache_new): a read of the path
	 * and pair it holds takes them from there */
	const pm_read_cache *cache;
	/* 1: drop the rows with an empty or nan cell in a numeric column the
	 * model uses (its target and numeric inputs; pm_dataset_col_has_gaps),
	 * which the fit says in a warning ("dropped 50 incomplete rows ...");
	 * 0: such a cell is an error naming it. Read by pm_fit_file and the
	 * other pipelines, after the roles are resolved; not by
	 * pm_dataset_read, which knows no roles. */
	int drop_incomplete;
	/* NULL, or polled while CUBE profiles are read, as pm_fit_options.stop
	 * (pm_request_stop): once set, the reading ends with PM_EIO
	 * "interrupted", so that a host's Ctrl-C reaches a long parse. */
	volatile sig_atomic_t *stop;
} pm_read_options;

/* Zeroes: detect the format, no target, default aggregation. */
PM_API pm_read_options pm_read_options_default(void);

/* 1 when o asks for runs to be merged into configurations: an aggregate
 * other than the default and none, drop_first or weights; else 0. Columns
 * that differ between runs, such as per-worker times, do not survive it. */
PM_API int pm_read_merges_runs(const pm_read_options *o);

/* What reading found. reps[r] and cv[r] are row r's number of runs and
 * coefficient of variation (sample std / mean; NaN for one run). */
typedef struct pm_read_info {
	pm_format format;	/* the one read */
	int aggregated;		/* 1 if rows are configurations */
	size_t runs;		/* rows before aggregation, after --drop-first */
	size_t dropped;		/* runs dropped by drop_first */
	size_t nrows;
	unsigned *reps;		/* owned: nrows entries, or NULL when not aggregated */
	double *cv;		/* owned: nrows entries, or NULL when not aggregated */
	double cv_median, cv_max;	/* over rows with >= 2 runs; NaN if none */
	size_t cv_max_row;
} pm_read_info;

/* Free reps and cv and zero *info. NULL is fine. */
PM_API void pm_read_info_clear(pm_read_info *info);

/* The regions (call paths) × metrics of an Extra-P file or a CUBE profile,
 * for one fit per pair (`perfmodel batch --each-region`, `perfmodel
 * inspect`): each pair once; region[i] and metric[i] are what --region and
 * --metric take to read pair i (pm_read_options.region, .metric). format:
 * Extra-P text, JSON (both layouts) or JSON Lines, in the order of first
 * appearance; CUBE, a profile or a folder of run folders (pm_dataset_read),
 * every call path in preorder × every metric with readable values, from
 * the set's first profile; or PM_FORMAT_AUTO: by content, as
 * pm_dataset_read. Only the names are read: a pair's measurements are
 * checked when it is read. On success *out owns the list
 * (pm_region_list_free); errors: pm__read_file's (PM_EIO), PM_EINVAL for
 * another format, PM_ESCHEMA for a file of a format without regions or
 * with no pair, the CUBE reader's, PM_ENOMEM. */
typedef struct pm_region_list {
	size_t n;
	char **region, **metric;
} pm_region_list;
PM_API pm_status pm_region_list_read(const char *path, pm_format format, pm_region_list **out,
				     pm_error *err);
PM_API void pm_region_list_free(pm_region_list *l);	/* NULL: no-op */

/*
 * Every region × metric of l (pm_region_list_read) read at once from the
 * CUBE profile or folder of run folders at path, with o's format,
 * inclusive and scaling (its region and metric are not used): each profile
 * is parsed once, not once per call path. A later pm_dataset_read of the
 * same path (the same text) with o->cache set to it, the same inclusive and
 * scaling, and a region and metric it holds, takes that pair's runs from
 * the cache and makes the dataset reading the files would (aggregated as
 * that o says); any other read reads the files. A pair the profiles do not
 * all have keeps its error, which that read returns. Read-only once made:
 * threads may share it. The runs of every pair are in memory (runs ×
 * (parameters + 1, + locations with PM_SCALING_EACH) numbers each). Errors:
 * PM_EINVAL (no path, l or out; a format other than CUBE), the reading's (a
 * folder or profile that cannot be read), PM_ENOMEM. *out owns the cache
 * (pm_read_cache_free; NULL: no-op).
 */
PM_API pm_status pm_read_cache_new(const char *path, const pm_read_options *o,
				   const pm_region_list *l, pm_read_cache **out, pm_error *err);
PM_API void pm_read_cache_free(pm_read_cache *c);

/*
 * What the measurements at path (a file, or a folder of CUBE run folders)
 * hold, as a JSON document (docs/schema/inspect.json; `perfmodel inspect`):
 * the format; the region, metric and CUBE reading read (the options', else
 * the first pair listed); the runs as read, every column with its role
 * (parameter, target, location, other; "column" when a CSV file has no
 * target), distinct values and range; the points (one per configuration of
 * the parameters, o->key or every other column) with their runs, median
 * value (o->aggregate: mean or min instead) and coefficient of variation;
 * every region × metric (pm_region_list_read); for CUBE the profile's
 * locations, metrics and call paths. o: the read options of a fit (NULL:
 * the defaults); a value of 0 is shown, not refused. Errors are the
 * readers' (a CSV file's --target missing, a region asked for that is not
 * there, ...). On success *out owns the text (free()).
 */
PM_API pm_status pm_inspect_to_json(const char *path, const pm_read_options *o, char **out,
				    pm_error *err);

/*
 * Read measurements in any supported format (o NULL: the defaults), turn
 * throughput into time and aggregate repetitions. path may be a folder: a
 * set of CUBE profiles in run folders named after their parameters
 * (mm.x10y1z25.r1), each profile a run. On success *out owns the
 * dataset and, when info is not NULL, *info owns its arrays
 * (pm_read_info_clear). Errors: those of pm_dataset_read_csv; PM_EPARSE for
 * bad JSON with its place; PM_ESCHEMA for a file of the wrong shape or a bad
 * value (FILE:LINE:COL where the file gives one, the JSON member's path
 * otherwise), a missing or non-positive throughput/per cell, a configuration
 * left with no runs by drop_first; PM_EINVAL for bad options; PM_ENOMEM.
 */
PM_API pm_status pm_dataset_read(const char *path, const pm_read_options *o,
				 pm_dataset **out, pm_read_info *info, pm_error *err);
/* The same from memory; `name` labels errors (NULL: "<input>"). */
PM_API pm_status pm_dataset_parse(const char *text, size_t len, const char *name,
				  const pm_read_options *o, pm_dataset **out,
				  pm_read_info *info, pm_error *err);

#ifdef __cplusplus
}
#endif
#endif
