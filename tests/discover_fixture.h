/* Test helpers of pm_discover's suites (test_discover.c,
 * test_discover_small.c): synthetic data as CSV text, a spec, a search that
 * must succeed, its log. */
#ifndef PM_TEST_DISCOVER_FIXTURE_H
#define PM_TEST_DISCOVER_FIXTURE_H

#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "perfmodel/perfmodel.h"

/* A relative noise in [-amp, amp], the same on every run. */
static inline double noise(size_t r, double amp)
{
	uint32_t h = (uint32_t)r * 2654435761u;

	h ^= h >> 15;
	h *= 2246822519u;
	h ^= h >> 13;
	return amp * ((double)(h % 20001) / 10000.0 - 1.0);
}

struct text {
	char *buf;
	size_t len, cap;
};

static inline void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static inline void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!t->buf) {
		t->cap = 1 << 16;
		t->buf = malloc(t->cap);
		cr_assert_not_null(t->buf);
		t->len = 0;
	}
	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
	cr_assert(n > 0 && (size_t)n < t->cap - t->len);
	t->len += (size_t)n;
}

static inline pm_dataset *parse(struct text *t, const char *name)
{
	pm_dataset *d = NULL;
	pm_error err = { 0 };

	cr_assert_eq(pm_dataset_parse_csv(t->buf, t->len, name, &d, &err), PM_OK, "%s", err.msg);
	free(t->buf);
	return d;
}

static inline pm_spec *spec_of(const char *target, const char *ignore)
{
	pm_spec *s = NULL;
	pm_error err = { 0 };

	cr_assert_eq(pm_spec_new(&s, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_spec_set_target(s, target, &err), PM_OK, "%s", err.msg);
	if (ignore)
		cr_assert_eq(pm_spec_ignore(s, ignore, &err), PM_OK, "%s", err.msg);
	return s;
}

static inline pm_discovery *discover(const pm_dataset *d, const pm_spec *s,
				     const pm_discover_options *o)
{
	pm_discovery *x = NULL;
	pm_error err = { 0 };

	cr_assert_eq(pm_discover(d, s, o, &x, &err), PM_OK, "%s", err.msg);
	cr_assert_not_null(x);
	cr_assert(x->n >= 1 && x->chosen < x->n, "%zu candidates, chosen %zu", x->n, x->chosen);
	return x;
}

static inline void show(const pm_discovery *x)
{
	for (size_t i = 0; i < x->n; i++)
		cr_log_info("%zu: %u terms, %.3f +- %.3f %%: %s%s", i, x->cand[i].terms,
			    x->cand[i].mape, x->cand[i].mape_se, x->cand[i].formula,
			    i == x->chosen ? "  <- chosen" : "");
}

static inline const char *chosen(const pm_discovery *x)
{
	return x->cand[x->chosen].formula;
}

#endif
