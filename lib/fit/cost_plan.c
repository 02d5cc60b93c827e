/* The cost's evaluation plan (cost.h): how the cost of a parameter vector
 * is organised, built once per fit from the model's terms and the rows;
 * cost_kernels.c runs it per trial. Groups of terms by key, leaf tables
 * per column, merged tables, key combinations, and the scratch layout. */
#include "fit/cost_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

void pm__cost_free(pm_cost *c)
{
	if (!c)
		return;
	for (size_t g = 0; c->group && g < c->ngroups; g++) {
		free(c->group[g].combo);
		free(c->group[g].combo_code);
	}
	for (size_t k = 0; c->node && k < c->nnodes; k++) {
		free(c->node[k].own_code);
		free(c->node[k].child_code);
	}
	free(c->factor_at);
	free(c->base);
	free(c->dlog);
	free(c->part);
	free(c->node);
	free(c->top);
	free(c->group);
	free(c->scalar);
	free(c->key);
	free(c->bias);
	c->factor_at = NULL;
	c->base = c->dlog = NULL;
	c->part = NULL;
	c->node = NULL;
	c->group = NULL;
	c->top = c->scalar = c->key = c->bias = NULL;
	c->nnodes = c->ngroups = c->nbias = 0;
}

/* How pm__cost_init files one term. */
enum term_kind { T_BIAS, T_SCALAR, T_FACTOR, T_LEVEL };

struct term_plan {
	enum term_kind kind;
	uint32_t col;		/* T_FACTOR, T_LEVEL: the gathered column */
	uint32_t factor;	/* T_FACTOR: its own factor */
	size_t group;
};

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* A key combination's codes, for sorting the distinct ones. */
struct combo_key {
	const uint32_t *code;
	size_t n, id;
};

static int cmp_combo_key(const void *a, const void *b)
{
	const struct combo_key *x = a, *y = b;

	for (size_t j = 0; j < x->n; j++)
		if (x->code[j] != y->code[j])
			return x->code[j] < y->code[j] ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

/* Where the codes of row r (or, with col NULL, those at `code`) hash to in
 * a table of mask + 1 slots. */
static size_t combo_hash(const uint32_t *const *col, const uint32_t *code, size_t r,
			 size_t k, size_t mask)
{
	uint64_t h = 0;

	for (size_t j = 0; j < k; j++)
		h = (h ^ (col ? col[j][r] : code[j])) * UINT64_C(0x9e3779b97f4a7c15);
	return (size_t)((h >> 32) ^ h) & mask;
}

/* Room for `need` combinations of k codes in *seen and a hash table at most
 * half full over them, rehashed; -1 when out of memory. */
static int combo_room(uint32_t **seen, uint32_t **slot, size_t *cap, size_t *mask,
		      size_t need, size_t nc, size_t k)
{
	size_t ncap = *cap ? *cap * 2 : 64, nslot;
	uint32_t *s, *t;

	if (need <= *cap)
		return 0;
	if (ncap > SIZE_MAX / 4 / sizeof(**seen) / k)
		return -1;
	nslot = 2 * ncap;
	s = realloc(*seen, ncap * k * sizeof(**seen));
	if (!s)
		return -1;
	*seen = s;
	t = calloc(nslot, sizeof(*t));
	if (!t)
		return -1;
	free(*slot);
	*slot = t;
	*cap = ncap;
	*mask = nslot - 1;
	for (size_t id = 0; id < nc; id++) {
		size_t h = combo_hash(NULL, s + id * k, 0, k, *mask);

		while (t[h])
			h = (h + 1) & *mask;
		t[h] = (uint32_t)(id + 1);
	}
	return 0;
}

/* Number the distinct combinations of the key columns' codes over the rows:
 * g->combo[r] and g->combo_code, in the lexicographic order of the codes, so
 * that the numbering (and so the table order) is a function of the data
 * alone. A hash table numbers them in order of appearance, and sorting the
 * few distinct ones renumbers them: nothing of rows × keys is built, which
 * on a large data set was the fit's peak of memory. */
static pm_status build_combos(pm_cost *c, pm_cost_group *g)
{
	const pm_problem *p = c->p;
	const pm_terms *t = &c->m->terms;
	size_t n = p->nrows, k = g->nkeys, nc = 0, cap = 0, mask = 0;
	const uint32_t **col = malloc(k * sizeof(*col));
	uint32_t *seen = NULL, *slot = NULL, *rank = NULL;
	struct combo_key *ck = NULL;

	g->combo = malloc(n * sizeof(*g->combo));
	if (!col || !g->combo)
		goto oom;
	for (size_t j = 0; j < k; j++)
		col[j] = p->col[t->factor[c->key[g->first_key + j]].input].code;
	for (size_t r = 0; r < n; r++) {
		size_t h;

		if (combo_room(&seen, &slot, &cap, &mask, nc + 1, nc, k))
			goto oom;
		for (h = combo_hash(col, NULL, r, k, mask); slot[h]; h = (h + 1) & mask) {
			const uint32_t *s = seen + (size_t)(slot[h] - 1) * k;
			size_t j = 0;

			while (j < k && s[j] == col[j][r])
				j++;
			if (j == k)
				break;
		}
		if (!slot[h]) {
			for (size_t j = 0; j < k; j++)
				seen[nc * k + j] = col[j][r];
			slot[h] = (uint32_t)++nc;
		}
		g->combo[r] = slot[h] - 1;
	}
	ck = malloc(nc * sizeof(*ck));
	rank = malloc(nc * sizeof(*rank));
	g->combo_code = malloc(nc * k * sizeof(*g->combo_code));
	if (!ck || !rank || !g->combo_code)
		goto oom;
	for (size_t i = 0; i < nc; i++)
		ck[i] = (struct combo_key){ seen + i * k, k, i };
	qsort(ck, nc, sizeof(*ck), cmp_combo_key);
	for (size_t i = 0; i < nc; i++) {
		rank[ck[i].id] = (uint32_t)i;
		memcpy(g->combo_code + i * k, ck[i].code, k * sizeof(*g->combo_code));
	}
	for (size_t r = 0; r < n; r++)
		g->combo[r] = rank[g->combo[r]];
	g->ncombos = nc;
	free(col);
	free(seen);
	free(slot);
	free(ck);
	free(rank);
	return PM_OK;
oom:
	free(col);
	free(seen);
	free(slot);
	free(ck);
	free(rank);
	return PM_ENOMEM;
}

/* File each term: a term with a level indicator gathers on its categorical
 * column and keys on all its factors; otherwise one factor used by no other
 * term (its own) is gathered and the rest is the key; a term with no factor
 * of its own is a scalar times its key, or, with no factor at all, a bias.
 * Terms with equal keys (as multisets) share a group, groups in order of
 * first use. */
static pm_status plan_terms(pm_cost *c, struct term_plan *tp)
{
	const pm_terms *t = &c->m->terms;
	size_t *uses = calloc(t->nfactors + 1, sizeof(*uses));
	size_t *last = malloc((t->nfactors + 1) * sizeof(*last));
	size_t nkey = 0, longest = 1;
	uint32_t *kbuf;

	for (size_t k = 0; k < t->nterms; k++)
		if (t->term[k].nfactors > longest)
			longest = t->term[k].nfactors;	/* a factor may repeat in a term */
	kbuf = malloc(longest * sizeof(*kbuf));
	if (!uses || !last || !kbuf) {
		free(uses);
		free(last);
		free(kbuf);
		return PM_ENOMEM;
	}
	for (size_t f = 0; f < t->nfactors; f++)
		last[f] = SIZE_MAX;
	for (size_t k = 0; k < t->nterms; k++)
		for (uint32_t j = 0; j < t->term[k].nfactors; j++) {
			uint32_t f = t->ref[t->term[k].first + j];

			if (last[f] != k)
				uses[f]++;
			last[f] = k;
		}
	c->ngroups = 0;
	c->nbias = 0;
	for (size_t k = 0; k < t->nterms; k++) {
		const pm_term *tm = &t->term[k];
		const uint32_t *ref = t->ref + tm->first;
		size_t n = 0, own = SIZE_MAX, g;

		if (tm->level_input == PM_NONE)
			for (uint32_t j = 0; j < tm->nfactors && own == SIZE_MAX; j++)
				if (uses[ref[j]] == 1)
					own = j;
		for (uint32_t j = 0; j < tm->nfactors; j++)
			if (j != own)
				kbuf[n++] = ref[j];
		qsort(kbuf, n, sizeof(*kbuf), cmp_u32);
		if (tm->level_input != PM_NONE)
			tp[k] = (struct term_plan){ T_LEVEL, tm->level_input, PM_NONE, 0 };
		else if (own != SIZE_MAX)
			tp[k] = (struct term_plan){ T_FACTOR, t->factor[ref[own]].input, ref[own], 0 };
		else if (n > 0)
			tp[k] = (struct term_plan){ T_SCALAR, 0, PM_NONE, 0 };
		else {
			tp[k] = (struct term_plan){ T_BIAS, 0, PM_NONE, 0 };
			c->bias[c->nbias++] = tm->coef;
			continue;
		}
		for (g = 0; g < c->ngroups; g++)
			if (c->group[g].nkeys == n &&
			    memcmp(c->key + c->group[g].first_key, kbuf, n * sizeof(*kbuf)) == 0)
				break;
		if (g == c->ngroups) {
			c->group[g] = (pm_cost_group){ .first_key = nkey, .nkeys = n };
			memcpy(c->key + nkey, kbuf, n * sizeof(*kbuf));
			nkey += n;
			c->ngroups++;
		}
		tp[k].group = g;
	}
	free(uses);
	free(last);
	free(kbuf);
	return PM_OK;
}

/* A merged table costs an entry per combination per trial and saves a
 * lookup per row: merge only tables whose combinations are at most a
 * quarter of the rows, so the saving clearly outweighs the building.
 * `tune_bench DATA SPEC merge` (bench/tune_bench.c) sweeps it: on
 * data/lenet5_cpu.csv (eq. 4.4, 600 rows) a half merges the same pairs (4
 * lookups a row), an eighth and a sixteenth fewer (5 and 6 lookups, 8-18 %
 * and 25-32 % slower), none 11 lookups and 1.8x the time. */
#define MERGE_MAX_SHARE 4

/* Combinations of nodes a and b's codes that occur in the rows, counted
 * with stamp[] (ndA·ndB entries, reset by bumping *now). 0: not a
 * candidate, the product of sizes being too large to tabulate. */
static size_t joint_count(const pm_cost *c, const pm_cost_node *a, const pm_cost_node *b,
			  uint32_t *stamp, uint32_t *now)
{
	size_t n = c->p->nrows, nc = 0;

	if (a->nd > n / b->nd)
		return 0;
	++*now;
	for (size_t r = 0; r < n; r++) {
		size_t k = (size_t)a->code[r] * b->nd + b->code[r];

		if (stamp[k] != *now) {
			stamp[k] = *now;
			nc++;
		}
	}
	return nc;
}

/* Only top nodes are gathered per row (children get their gradient
 * buckets through child_code): a merged node that becomes a child gives up
 * its per-row codes, on many rows a good part of the fit's memory. A leaf's
 * are its column's. */
static void drop_row_codes(pm_cost_node *nd)
{
	if (nd->child[0] == PM_NONE)
		return;
	free(nd->own_code);
	nd->own_code = NULL;
	nd->code = NULL;
}

/* Append the node a + b over their occurring combinations, numbered in
 * (code a, code b) order. id[] has ndA·ndB entries. */
static pm_status merge_nodes(pm_cost *c, uint32_t ia, uint32_t ib, uint32_t *id)
{
	size_t n = c->p->nrows, nab, nc = 0;
	pm_cost_node *a = &c->node[ia], *b = &c->node[ib], *m = &c->node[c->nnodes];

	nab = a->nd * b->nd;
	*m = (pm_cost_node){ .child = { ia, ib } };
	c->nnodes++;	/* now pm__cost_free frees what m owns */
	for (size_t k = 0; k < nab; k++)
		id[k] = 0;
	for (size_t r = 0; r < n; r++)
		id[(size_t)a->code[r] * b->nd + b->code[r]] = 1;
	for (size_t k = 0; k < nab; k++)
		if (id[k])
			id[k] = (uint32_t)++nc;
	m->child_code = malloc(2 * nc * sizeof(*m->child_code));
	if (!m->child_code)
		return PM_ENOMEM;
	/* a merged child's row codes are overwritten in place (row r is read
	 * before it is written): no second row array, nor a hole it would
	 * leave in the heap */
	if (a->own_code || b->own_code) {
		pm_cost_node *from = a->own_code ? a : b;

		m->own_code = from->own_code;
		from->own_code = NULL;
	} else if (!(m->own_code = malloc(n * sizeof(*m->own_code)))) {
		return PM_ENOMEM;
	}
	for (size_t k = 0; k < nab; k++)
		if (id[k]) {
			m->child_code[2 * (id[k] - 1)] = (uint32_t)(k / b->nd);
			m->child_code[2 * (id[k] - 1) + 1] = (uint32_t)(k % b->nd);
		}
	for (size_t r = 0; r < n; r++)
		m->own_code[r] = id[(size_t)a->code[r] * b->nd + b->code[r]] - 1;
	m->code = m->own_code;
	drop_row_codes(a);
	drop_row_codes(b);
	m->nd = nc;
	return PM_OK;
}

/* Greedily merge the pair of group g's top nodes with the fewest joint
 * combinations (the first such pair on ties) while that is few enough.
 * unit[0..nu) are the group's leaves in order, and become its tops. */
static pm_status merge_group(pm_cost *c, uint32_t *unit, size_t nu, unsigned share,
			      size_t *ntop)
{
	size_t n = c->p->nrows, *cnt = malloc((nu * nu + 1) * sizeof(*cnt));
	size_t most = share ? n / share : 0;	/* combinations a merge may have */
	uint32_t *stamp = calloc(n + 1, sizeof(*stamp)), *id = malloc((n + 1) * sizeof(*id));
	uint32_t now = 0;
	pm_status st = PM_OK;

	if (!cnt || !stamp || !id) {
		st = PM_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nu; i++)
		for (size_t j = i + 1; j < nu; j++)
			cnt[i * nu + j] = joint_count(c, &c->node[unit[i]], &c->node[unit[j]],
						      stamp, &now);
	for (;;) {
		size_t bi = 0, bj = 0, best = most + 1;

		for (size_t i = 0; i < nu; i++)
			for (size_t j = i + 1; unit[i] != PM_NONE && j < nu; j++)
				if (unit[j] != PM_NONE && cnt[i * nu + j] &&
				    cnt[i * nu + j] < best) {
					best = cnt[i * nu + j];
					bi = i;
					bj = j;
				}
		if (best > most)
			break;
		if ((st = merge_nodes(c, unit[bi], unit[bj], id)))
			goto out;
		unit[bi] = (uint32_t)(c->nnodes - 1);
		unit[bj] = PM_NONE;
		for (size_t j = 0; j < nu; j++)
			if (j != bi && unit[j] != PM_NONE) {
				size_t lo = j < bi ? j : bi, hi = j < bi ? bi : j;

				cnt[lo * nu + hi] = joint_count(c, &c->node[unit[lo]],
								&c->node[unit[hi]], stamp, &now);
			}
	}
	*ntop = 0;
	for (size_t i = 0; i < nu; i++)
		if (unit[i] != PM_NONE)
			unit[(*ntop)++] = unit[i];
out:
	free(cnt);
	free(stamp);
	free(id);
	return st;
}

/* Lay out each group's scalars, leaves (one per column, in order of first
 * use) with their parts (in term order), merged nodes and tops. */
static pm_status plan_nodes(pm_cost *c, const struct term_plan *tp, unsigned share)
{
	const pm_terms *t = &c->m->terms;
	size_t ns = 0, np = 0, nt = 0;

	for (size_t g = 0; g < c->ngroups; g++) {
		pm_cost_group *gr = &c->group[g];
		size_t first = c->nnodes, ntop;
		pm_status st;

		gr->first_scalar = ns;
		gr->first_node = first;
		for (size_t k = 0; k < t->nterms; k++) {
			const uint32_t *code;
			size_t q;

			if (tp[k].group != g || tp[k].kind == T_BIAS)
				continue;
			if (tp[k].kind == T_SCALAR) {
				c->scalar[ns++] = t->term[k].coef;
				continue;
			}
			code = c->p->col[tp[k].col].code;
			for (q = first; q < c->nnodes; q++)
				if (c->node[q].code == code)
					break;
			if (q == c->nnodes)
				c->node[c->nnodes++] = (pm_cost_node){
					.code = code, .nd = c->p->col[tp[k].col].ndistinct,
					.child = { PM_NONE, PM_NONE } };
		}
		gr->nscalars = ns - gr->first_scalar;
		for (size_t q = first; q < c->nnodes; q++) {
			c->node[q].first = np;
			for (size_t k = 0; k < t->nterms; k++) {
				const pm_term *tm = &t->term[k];

				if (tp[k].group != g ||
				    (tp[k].kind != T_FACTOR && tp[k].kind != T_LEVEL) ||
				    c->p->col[tp[k].col].code != c->node[q].code)
					continue;
				c->part[np++] = (pm_cost_part){ tm->coef, tp[k].factor,
								tp[k].kind == T_LEVEL ? tm->level : 0 };
			}
			c->node[q].nparts = np - c->node[q].first;
		}
		gr->first_top = nt;
		for (size_t q = first; q < c->nnodes; q++)
			c->top[nt + q - first] = (uint32_t)q;
		if ((st = merge_group(c, c->top + nt, c->nnodes - first, share, &ntop)))
			return st;
		gr->ntops = ntop;
		nt += ntop;
		gr->nnodes = c->nnodes - first;
	}
	return PM_OK;
}

/* Each factor's base and dlog over its column's distinct values (len:
 * their total), computed from the raw values as prediction computes them,
 * so that the plan's tables are the predictor's factor values. */
static pm_status factor_bases(pm_cost *c, size_t len, pm_error *err)
{
	const pm_terms *t = &c->m->terms;

	c->base = malloc((len + 1) * sizeof(*c->base));
	c->dlog = malloc((len + 1) * sizeof(*c->dlog));
	if (!c->base || !c->dlog)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	for (size_t f = 0; f < t->nfactors; f++) {
		const pm_factor *fa = &t->factor[f];
		const pm_column *col = &c->p->col[fa->input];
		double *b = c->base + c->factor_at[f], *dl = c->dlog + c->factor_at[f];

		for (size_t d = 0; d < col->ndistinct; d++) {
			if (fa->kind == PM_FACTOR_LOG2 && !(col->x[d] >= 1))
				return pm__fail(err, PM_EDOMAIN, "column '%s': %g is below 1, as "
						"log2(%s) needs", col->name, col->x[d], col->name);
			b[d] = col->x ? pm__factor_base(fa, col->x[d], col->log_scale) : (double)d;
			dl[d] = isfinite(b[d]) ? b[d] : 0.0;
		}
	}
	return PM_OK;
}

pm_status pm__cost_init(pm_cost *c, const pm_problem *p, const pm_model *m,
			const pm_fit_options *o, pm_error *err)
{
	return pm__cost_init_merging(c, p, m, o, MERGE_MAX_SHARE, err);
}

pm_status pm__cost_init_merging(pm_cost *c, const pm_problem *p, const pm_model *m,
				const pm_fit_options *o, unsigned share, pm_error *err)
{
	const pm_terms *t = &m->terms;
	size_t nt = t->nterms + 1, n = p->nrows, len = 0, maxb = 1, nref = 1;
	struct term_plan *tp = NULL;
	pm_status st;

	*c = (pm_cost){ .p = p, .m = m, .lambda_coef = o->lambda_coef,
			.lambda_power = o->lambda_power, .reg = o->reg, .loss = o->loss };
	if (n == 0)
		return pm__fail(err, PM_EINVAL, "no rows to fit");
	for (size_t k = 0; k < t->nterms; k++)
		nref += t->term[k].nfactors;
	tp = malloc(nt * sizeof(*tp));
	c->factor_at = malloc((t->nfactors + 1) * sizeof(*c->factor_at));
	c->part = malloc(nt * sizeof(*c->part));
	c->node = malloc(2 * nt * sizeof(*c->node));	/* leaves, and fewer merges */
	c->top = malloc(nt * sizeof(*c->top));
	c->group = calloc(nt, sizeof(*c->group));
	c->scalar = malloc(nt * sizeof(*c->scalar));
	c->bias = malloc(nt * sizeof(*c->bias));
	c->key = malloc(nref * sizeof(*c->key));	/* keys are parts of factor lists */
	if (!tp || !c->factor_at || !c->part || !c->node || !c->top || !c->group ||
	    !c->scalar || !c->bias || !c->key || plan_terms(c, tp) ||
	    plan_nodes(c, tp, share))
		goto oom;
	for (size_t g = 0; g < c->ngroups; g++)
		if (c->group[g].nkeys && build_combos(c, &c->group[g]))
			goto oom;
	free(tp);
	tp = NULL;

	/* scratch: factor tables, node tables and buckets, key tables, then
	 * row arrays */
	for (size_t f = 0; f < t->nfactors; f++) {
		c->factor_at[f] = len;
		len += p->col[t->factor[f].input].ndistinct;
	}
	if ((st = factor_bases(c, len, err)))
		goto fail;
	for (size_t k = 0; k < c->nnodes; k++) {
		c->node[k].tab_at = len;
		len += c->node[k].nd;
		c->node[k].grad_at = len;
		len += c->node[k].nd;
		if (c->node[k].nd > maxb)
			maxb = c->node[k].nd;
	}
	for (size_t g = 0; g < c->ngroups; g++) {
		c->group[g].j_at = len;
		len += c->group[g].ncombos;
		if (c->group[g].ncombos > maxb)
			maxb = c->group[g].ncombos;
	}
	c->pred_at = len;
	len += n;
	c->w_at = len;
	len += n;
	c->lanes_at = len;
	len += SCATTER_LANES * maxb;
	c->sums_at = len;
	len += maxb;
	c->acc_at = len;	/* one row array per group (the smooth keeps them all) */
	len += n * (c->ngroups ? c->ngroups : 1);
	c->scratch_bytes = len * sizeof(double);
	return PM_OK;
oom:
	st = pm__fail(err, PM_ENOMEM, "out of memory");
fail:
	free(tp);
	pm__cost_free(c);
	return st;
}
