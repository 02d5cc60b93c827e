/* core/names.h — lists of column names (pm_names, perfmodel.h) and the
 * "did you mean" suggestion of an error about a name. */
#ifndef PM_CORE_NAMES_H
#define PM_CORE_NAMES_H

#include <stddef.h>

#include "perfmodel/perfmodel.h"
#include "core/strindex.h"

/* A NUL-terminated copy of s[0..len); NULL when out of memory. */
char *pm__strndup(const char *s, size_t len);
/* Append a copy of s[0..len): 0, or -1 when out of memory (nm unchanged).
 * nm's array must have room for the least power of two >= n names: one
 * this function grew from { 0 } has (pm_names_add_list makes it so). */
int pm__names_push(pm_names *nm, const char *s, size_t len);
/* Drop the names after the first n, so that a failed call can leave a list
 * as it found it; n = 0 frees the list. */
void pm__names_truncate(pm_names *nm, size_t n);
/* A pm_names as the items of a string index: ctx is the list, item i its
 * name i (read through the list, so pushes may move the array). */
const char *pm__key_of_names(const void *names, size_t i);
/* *x: a new index of nm's names (of two equal ones, the first): 0, or -1
 * when out of memory (*x then is { 0 }). */
int pm__names_index(const pm_names *nm, pm__strindex *x);

/* The candidate closest to name — at most 2 edits away, case aside, and
 * changing less than half of the longer name — or NULL. name_at(ctx, i)
 * gives candidate i of n (NULL: none); ties go to the first. */
const char *pm__closest_name(const char *name, size_t n,
			     const char *(*name_at)(const void *ctx, size_t i), const void *ctx);
/* The same over an array of n strings. */
const char *pm__closest_key(const char *name, const char *const *keys, size_t n);

#endif
