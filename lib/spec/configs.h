/* A model's inputs over a dataset, and the configurations they make: rows
 * whose inputs are all equal are runs of one configuration (issue 33).
 * Private to the library. */
#ifndef PM_CONFIGS_H
#define PM_CONFIGS_H

#include "perfmodel/perfmodel.h"

/* The inputs of a spec over a dataset: their columns, of each whether it is
 * categorical (read its codes, else its numbers), and the target's column. */
typedef struct pm_inputs {
	size_t n, *col;
	int *cat;
	size_t target;
} pm_inputs;

/* The inputs of s's model over d (s resolved on a copy, as pm_fit does).
 * Errors: those of pm_spec_resolve, PM_ENOMEM. */
pm_status pm__inputs_of(const pm_dataset *d, const pm_spec *s, pm_inputs *out, pm_error *err);
void pm__inputs_free(pm_inputs *in);

/* id[r]: the configuration of row r, numbered 0..*nconfigs-1 in the order
 * of their first rows; rows with every input equal share one. s NULL: every
 * row its own. Errors: as pm__inputs_of, those of reading a number. */
pm_status pm__config_ids(const pm_dataset *d, const pm_spec *s, size_t *id, size_t *nconfigs,
			 pm_error *err);

#endif
