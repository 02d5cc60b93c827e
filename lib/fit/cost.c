#include "fit/cost.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

/* partial buckets per scatter; scatter() adds exactly four */
#define SCATTER_LANES 4

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
 * quarter of the rows, so the saving clearly outweighs the building (on
 * data/lenet5_cpu.csv a half merges the same pairs, an eighth is slower). */
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
static pm_status merge_group(pm_cost *c, uint32_t *unit, size_t nu, size_t *ntop)
{
	size_t n = c->p->nrows, *cnt = malloc((nu * nu + 1) * sizeof(*cnt));
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
		size_t bi = 0, bj = 0, best = n / MERGE_MAX_SHARE + 1;

		for (size_t i = 0; i < nu; i++)
			for (size_t j = i + 1; unit[i] != PM_NONE && j < nu; j++)
				if (unit[j] != PM_NONE && cnt[i * nu + j] &&
				    cnt[i * nu + j] < best) {
					best = cnt[i * nu + j];
					bi = i;
					bj = j;
				}
		if (best > n / MERGE_MAX_SHARE)
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
static pm_status plan_nodes(pm_cost *c, const struct term_plan *tp)
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
		if ((st = merge_group(c, c->top + nt, c->nnodes - first, &ntop)))
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
	    plan_nodes(c, tp))
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

/* Per trial: x^p once per distinct value of each factor's column
 * (DESIGN.md §8), then the node tables (children first) and the key
 * products. */
static void fill_tables(const pm_cost *c, const double *x, double *s)
{
	const pm_terms *t = &c->m->terms;

	for (size_t f = 0; f < t->nfactors; f++) {
		const pm_factor *fa = &t->factor[f];
		size_t nd = c->p->col[fa->input].ndistinct;
		const double *restrict b = c->base + c->factor_at[f];
		double *restrict tab = s + c->factor_at[f];

		/* the common case without the per-value switch */
		if (fa->kind == PM_FACTOR_POWER) {
			double e = pm__factor_exponent(fa, x);

			for (size_t d = 0; d < nd; d++)
				tab[d] = pm__factor_value(e, b[d]);
		} else {
			for (size_t d = 0; d < nd; d++)
				tab[d] = pm__factor_eval(fa, x, b[d]);
		}
	}
	for (size_t k = 0; k < c->nnodes; k++) {
		const pm_cost_node *nd = &c->node[k];
		double *restrict tab = s + nd->tab_at;

		if (nd->child[0] != PM_NONE) {
			const double *ta = s + c->node[nd->child[0]].tab_at;
			const double *tb = s + c->node[nd->child[1]].tab_at;
			const uint32_t *cc = nd->child_code;

			for (size_t d = 0; d < nd->nd; d++)
				tab[d] = ta[cc[2 * d]] + tb[cc[2 * d + 1]];
			continue;
		}
		for (size_t d = 0; d < nd->nd; d++)
			tab[d] = 0.0;
		for (size_t i = nd->first; i < nd->first + nd->nparts; i++) {
			const pm_cost_part *pa = &c->part[i];
			double coef = x[pa->coef];

			if (pa->factor == PM_NONE) {
				tab[pa->level] += coef;
			} else {
				const double *ft = s + c->factor_at[pa->factor];

				for (size_t d = 0; d < nd->nd; d++)
					tab[d] += coef * ft[d];
			}
		}
	}
	for (size_t g = 0; g < c->ngroups; g++) {
		const pm_cost_group *gr = &c->group[g];
		double *jt = s + gr->j_at;

		for (size_t i = 0; i < gr->ncombos; i++) {
			const uint32_t *cc = gr->combo_code + i * gr->nkeys;
			double v = s[c->factor_at[c->key[gr->first_key]] + cc[0]];

			for (size_t j = 1; j < gr->nkeys; j++)
				v *= s[c->factor_at[c->key[gr->first_key + j]] + cc[j]];
			jt[i] = v;
		}
	}
}

/* a0 (group gr's scalars) plus its first k top nodes (k >= 1), per row,
 * into acc. */
static void group_sum(const pm_cost *c, const pm_cost_group *gr, double a0, const double *s,
		      size_t k, double *restrict acc)
{
	size_t n = c->p->nrows, q = gr->first_top, qend = q + k;

	/* the first top sets acc: one pass fewer over the rows */
	{
		const pm_cost_node *nd = &c->node[c->top[q++]];
		const uint32_t *restrict code = nd->code;
		const double *restrict tab = s + nd->tab_at;

		if (gr->nscalars)
			for (size_t r = 0; r < n; r++)
				acc[r] = a0 + tab[code[r]];
		else
			for (size_t r = 0; r < n; r++)
				acc[r] = tab[code[r]];
	}
	/* two gathers a pass halve the loads and stores of acc */
	for (; q + 1 < qend; q += 2) {
		const pm_cost_node *n1 = &c->node[c->top[q]], *n2 = &c->node[c->top[q + 1]];
		const uint32_t *restrict c1 = n1->code, *restrict c2 = n2->code;
		const double *restrict t1 = s + n1->tab_at, *restrict t2 = s + n2->tab_at;

		for (size_t r = 0; r < n; r++)
			acc[r] += t1[c1[r]] + t2[c2[r]];
	}
	if (q < qend) {
		const pm_cost_node *nd = &c->node[c->top[q]];
		const uint32_t *restrict code = nd->code;
		const double *restrict tab = s + nd->tab_at;

		for (size_t r = 0; r < n; r++)
			acc[r] += tab[code[r]];
	}
}

/* The last pass of a group: pred[r] (+)= (base + up to FUSED_TOPS gathers)
 * × key, base being acc[r] or, without acc, the scalars' sum a0. One pass
 * instead of several: the branches are the same for every row. */
#define FUSED_TOPS 3

struct fused {
	double *acc;		/* the base per row (NULL: a0), and with keep the
				 * pre-key sum back */
	double a0;
	size_t k;
	const uint32_t *code[FUSED_TOPS];
	const double *tab[FUSED_TOPS];
	const uint32_t *key;	/* per-row key combination, or NULL */
	const double *jt;
	int add, keep;
};

static inline void fused_rows(size_t n, const struct fused *fu, double *restrict pred,
			      size_t k, int has_key)
{
	double *restrict acc = fu->acc;
	const double *restrict jt = fu->jt;
	const double *restrict t0 = fu->tab[0], *restrict t1 = fu->tab[1], *restrict t2 = fu->tab[2];
	const uint32_t *restrict c0 = fu->code[0], *restrict c1 = fu->code[1];
	const uint32_t *restrict c2 = fu->code[2], *restrict key = fu->key;
	double a0 = fu->a0;

	for (size_t r = 0; r < n; r++) {
		double v = acc ? acc[r] : a0;

		if (k > 0)
			v += t0[c0[r]];
		if (k > 1)
			v += t1[c1[r]];
		if (k > 2)
			v += t2[c2[r]];
		if (fu->keep)
			acc[r] = v;
		if (has_key)
			v *= jt[key[r]];
		pred[r] = fu->add ? pred[r] + v : v;
	}
}

/* constant k and has_key: the compiler drops the unused branches */
static void fused_pass(size_t n, const struct fused *fu, double *restrict pred)
{
	switch (fu->k * 2 + (fu->key != NULL)) {
	case 0: fused_rows(n, fu, pred, 0, 0); break;
	case 1: fused_rows(n, fu, pred, 0, 1); break;
	case 2: fused_rows(n, fu, pred, 1, 0); break;
	case 3: fused_rows(n, fu, pred, 1, 1); break;
	case 4: fused_rows(n, fu, pred, 2, 0); break;
	case 5: fused_rows(n, fu, pred, 2, 1); break;
	case 6: fused_rows(n, fu, pred, 3, 0); break;
	default: fused_rows(n, fu, pred, 3, 1); break;
	}
}

/* Every row's prediction less the biases, into s[pred_at]. With keep, each
 * group's pre-key sum stays in its own row array (the gradient needs it),
 * formed the same way, so the smoothed cost sees the same predictions. */
static void predict_rows(const pm_cost *c, const double *x, double *s, int keep)
{
	size_t n = c->p->nrows;
	double *restrict pred = s + c->pred_at;

	if (c->ngroups == 0)
		for (size_t r = 0; r < n; r++)
			pred[r] = 0.0;
	for (size_t g = 0; g < c->ngroups; g++) {
		const pm_cost_group *gr = &c->group[g];
		double *restrict acc = s + c->acc_at + (keep ? g * n : 0);
		struct fused fu = { .key = gr->nkeys ? gr->combo : NULL, .jt = s + gr->j_at,
				    .add = g > 0, .keep = keep };
		size_t pre = gr->ntops > FUSED_TOPS ? gr->ntops - FUSED_TOPS : 0;

		for (size_t i = gr->first_scalar; i < gr->first_scalar + gr->nscalars; i++)
			fu.a0 += x[c->scalar[i]];
		if (pre > 0) {
			group_sum(c, gr, fu.a0, s, pre, acc);
			fu.acc = acc;
		} else if (keep) {
			for (size_t r = 0; r < n; r++)
				acc[r] = fu.a0;
			fu.acc = acc;
		}
		for (size_t q = pre; q < gr->ntops; q++) {
			const pm_cost_node *nd = &c->node[c->top[gr->first_top + q]];

			fu.code[fu.k] = nd->code;
			fu.tab[fu.k++] = s + nd->tab_at;
		}
		fused_pass(n, &fu, pred);
	}
}

static double bias(const pm_cost *c, const double *x)
{
	double b = 0.0;

	for (size_t i = 0; i < c->nbias; i++)
		b += x[c->bias[i]];
	return b;
}

/* λ_coef Σ_{a,b} φ + λ_pow Σ_{p,q} φ, C never penalised (thesis §4.1.2);
 * φ(x) = |x| (L1, smoothed when eps > 0) or x² (L2). With grad, adds the
 * penalty's gradient. */
static double penalty(const pm_cost *c, const double *x, double eps, double *grad)
{
	double f = 0.0;

	for (size_t k = 0; k < c->m->nparams; k++) {
		pm_param_kind kind = c->m->params[k].desc.kind;
		double lambda, phi, dphi;

		if (kind == PM_PARAM_CONST)
			continue;
		lambda = kind == PM_PARAM_COEF || kind == PM_PARAM_LEVEL ? c->lambda_coef
									 : c->lambda_power;
		if (c->reg == PM_REG_L2) {
			phi = x[k] * x[k];
			dphi = 2.0 * x[k];
		} else if (eps > 0) {
			double root = sqrt(x[k] * x[k] + eps * eps);

			phi = root - eps;
			dphi = x[k] / root;
		} else {
			phi = fabs(x[k]);
			dphi = 0.0;
		}
		f += lambda * phi;
		if (grad)
			grad[k] += lambda * dphi;
	}
	return f;
}

/* Σ v[r] as four running sums over rows r ≡ 0, 1, 2, 3 (mod 4), added in a
 * fixed order: the same result every time, without one long chain of
 * dependent adds. */
static double sum4(const double *restrict v, size_t n)
{
	double l0 = 0.0, l1 = 0.0, l2 = 0.0, l3 = 0.0, tail = 0.0;
	size_t r = 0;

	for (; r + 4 <= n; r += 4) {
		l0 += v[r];
		l1 += v[r + 1];
		l2 += v[r + 2];
		l3 += v[r + 3];
	}
	for (; r < n; r++)
		tail += v[r];
	return tail + ((l0 + l1) + (l2 + l3));
}

/* One row's loss (pm_loss) for measured t and predicted tp. log: a tp <= 0
 * gives +inf or NaN, which the caller turns into +inf. */
static inline double row_loss(pm_loss loss, double t, double tp)
{
	switch (loss) {
	case PM_LOSS_MSE: return (t - tp) * (t - tp);
	case PM_LOSS_MAPE: return fabs(t - tp) / t;
	case PM_LOSS_LOG: return fabs(pm__log(tp / t));
	default: return fabs(t - tp);
	}
}

/* Row r's loss times its weight (w NULL: the loss itself, unrounded). */
#define ROW_LOSS(loss, w, t, pred, b, r) \
	((w) ? (w)[r] * row_loss(loss, (t)[r], (pred)[r] + (b)) \
	     : row_loss(loss, (t)[r], (pred)[r] + (b)))

/* Σ w[r]·loss(t[r], pred[r] + b) in sum4()'s order (w NULL: weights 1). */
static inline double loss_sum_k(const double *restrict t, const double *restrict pred,
				const double *restrict w, double b, size_t n, pm_loss loss)
{
	double l0 = 0.0, l1 = 0.0, l2 = 0.0, l3 = 0.0, tail = 0.0;
	size_t r = 0;

	for (; r + 4 <= n; r += 4) {
		l0 += ROW_LOSS(loss, w, t, pred, b, r);
		l1 += ROW_LOSS(loss, w, t, pred, b, r + 1);
		l2 += ROW_LOSS(loss, w, t, pred, b, r + 2);
		l3 += ROW_LOSS(loss, w, t, pred, b, r + 3);
	}
	for (; r < n; r++)
		tail += ROW_LOSS(loss, w, t, pred, b, r);
	return tail + ((l0 + l1) + (l2 + l3));
}

/* The weights' test outside the loop: a literal NULL lets the unweighted
 * loop stay as it was. */
static inline double loss_sum_w(const double *t, const double *pred, const double *w,
				double b, size_t n, pm_loss loss)
{
	return w ? loss_sum_k(t, pred, w, b, n, loss) : loss_sum_k(t, pred, NULL, b, n, loss);
}

/* constant loss: one branch-free loop per loss */
static double loss_sum(const double *t, const double *pred, const double *w, double b,
		       size_t n, pm_loss loss)
{
	switch (loss) {
	case PM_LOSS_MSE: return loss_sum_w(t, pred, w, b, n, PM_LOSS_MSE);
	case PM_LOSS_MAPE: return loss_sum_w(t, pred, w, b, n, PM_LOSS_MAPE);
	case PM_LOSS_LOG: return loss_sum_w(t, pred, w, b, n, PM_LOSS_LOG);
	default: return loss_sum_w(t, pred, w, b, n, PM_LOSS_MAE);
	}
}

double pm__cost_value(const double *x, void *ctx, void *scratch)
{
	const pm_cost *c = ctx;
	const pm_problem *p = c->p;
	double *s = scratch, f;

	fill_tables(c, x, s);
	predict_rows(c, x, s, 0);
	f = loss_sum(p->t, s + c->pred_at, p->w, bias(c, x), p->nrows, c->loss) /
	    (double)p->nrows;
	if (c->reg != PM_REG_NONE)
		f += penalty(c, x, 0.0, NULL);
	return isnan(f) ? INFINITY : f;
}

/* out[d] = Σ v[r] over the rows with code[r] == d, d < nd. Rows go to
 * SCATTER_LANES partial buckets in turn, so consecutive rows with the same
 * code do not wait on each other's store; the partials are added in a fixed
 * order. lanes has SCATTER_LANES·nd doubles. */
static void scatter(const uint32_t *restrict code, const double *restrict v, size_t n,
		    size_t nd, double *restrict lanes, double *restrict out)
{
	size_t r = 0;

	for (size_t d = 0; d < SCATTER_LANES * nd; d++)
		lanes[d] = 0.0;
	for (; r + SCATTER_LANES <= n; r += SCATTER_LANES)
		for (size_t l = 0; l < SCATTER_LANES; l++)
			lanes[(size_t)code[r + l] * SCATTER_LANES + l] += v[r + l];
	for (size_t l = 0; r < n; r++, l++)
		lanes[(size_t)code[r] * SCATTER_LANES + l] += v[r];
	for (size_t d = 0; d < nd; d++)
		out[d] = (lanes[SCATTER_LANES * d] + lanes[SCATTER_LANES * d + 1]) +
			 (lanes[SCATTER_LANES * d + 2] + lanes[SCATTER_LANES * d + 3]);
}

/* Per row: the smoothed loss into w, dcost/dprediction into dp (which holds
 * the prediction less b on entry). The absolute value in MAE, MAPE and log,
 * |e|, becomes sqrt(e² + eps²) − eps of the same e (the residual, the
 * relative residual, the log ratio): eps is in the cost's units for each.
 * MSE is smooth already: its w is row_loss()'s, bit for bit. Row weights
 * (rw, NULL: none) scale both afterwards, as in pm__cost_value. */
static void smooth_residuals(pm_loss loss, const double *restrict t, const double *restrict rw,
			     double b, double eps, double inv_n, size_t n, double *restrict dp,
			     double *restrict w)
{
	for (size_t r = 0; r < n; r++) {
		double tp = dp[r] + b, res = t[r] - tp, e, de, root;

		switch (loss) {
		case PM_LOSS_MSE:
			w[r] = res * res;
			dp[r] = -2.0 * res * inv_n;
			continue;
		case PM_LOSS_MAPE:
			e = res / t[r];
			de = -1.0 / t[r];
			break;
		case PM_LOSS_LOG:
			e = pm__log(tp / t[r]);
			de = 1.0 / tp;
			break;
		default:
			e = res;
			de = -1.0;
			break;
		}
		root = sqrt(e * e + eps * eps);
		w[r] = root - eps;
		dp[r] = (e / root) * de * inv_n;
	}
	for (size_t r = 0; rw && r < n; r++) {
		w[r] *= rw[r];
		dp[r] *= rw[r];
	}
}

/* Per row: w = dp · key product, and acc (the pre-key sum) times that. */
static void key_weights(const double *restrict dp, const double *restrict jt,
			const uint32_t *restrict combo, size_t n, double *restrict w,
			double *restrict acc)
{
	for (size_t r = 0; r < n; r++) {
		w[r] = dp[r] * jt[combo[r]];
		acc[r] *= w[r];
	}
}

/* Key factor j of group gr: V[i] sums w_r·acc_r (pre-key sum × dcost/dpred
 * × key product) over the rows of combination i, so the factor's
 * parameter gets Σ_i V[i]·d log(value)/dθ at the combination's code: the
 * base for a power (its sign for "/"), 1 for a level's own log multiplier;
 * fixed factors and indicators have none. */
static void key_gradient(const pm_cost *c, const pm_cost_group *gr, size_t j,
			 const double *v, double *grad)
{
	const pm_factor *fa = &c->m->terms.factor[c->key[gr->first_key + j]];
	const double *u = c->dlog + c->factor_at[c->key[gr->first_key + j]];
	double gp = 0.0;

	if (fa->power == PM_NONE || fa->kind == PM_FACTOR_INDICATOR)
		return;
	if (fa->kind == PM_FACTOR_LEVEL) {
		for (size_t i = 0; i < gr->ncombos; i++) {
			uint32_t d = gr->combo_code[i * gr->nkeys + j];

			if (d > 0)
				grad[fa->power + d - 1] += v[i];
		}
		return;
	}
	for (size_t i = 0; i < gr->ncombos; i++)
		gp += v[i] * u[gr->combo_code[i * gr->nkeys + j]];
	grad[fa->power] += fa->negate ? -gp : gp;
}

/* With w_r = dcost/dpred_r · key_r, a top node's bucket W[d] sums w_r over
 * the rows with code d; a merged node passes each combination's bucket to
 * its two children; a leaf part coef·F[d] then has dcost/dcoef =
 * Σ_d W[d]·F[d] and dcost/dpower = coef·Σ_d W[d]·F[d]·u[d]. Per row only
 * scatters; the rest is per table entry. A key factor's power likewise gets
 * Σ_combo V[combo]·u, V summing w_r·acc_r per combination. */
double pm__cost_smooth(const double *x, double eps, double *grad, void *ctx, void *scratch)
{
	const pm_cost *c = ctx;
	const pm_problem *p = c->p;
	const pm_terms *t = &c->m->terms;
	size_t n = p->nrows;
	double *s = scratch, *dp = s + c->pred_at, *w = s + c->w_at;
	double *lanes = s + c->lanes_at, *v = s + c->sums_at;
	double sum, inv_n = 1.0 / (double)n, sdp, f;

	fill_tables(c, x, s);
	predict_rows(c, x, s, 1);
	memset(grad, 0, c->m->nparams * sizeof(*grad));
	smooth_residuals(c->loss, p->t, p->w, bias(c, x), eps, inv_n, n, dp, w);
	sum = sum4(w, n);
	sdp = sum4(dp, n);
	for (size_t i = 0; i < c->nbias; i++)
		grad[c->bias[i]] += sdp;
	for (size_t g = 0; g < c->ngroups; g++) {
		const pm_cost_group *gr = &c->group[g];
		double *acc = s + c->acc_at + g * n;
		const double *wg = dp;	/* dcost / d(group's pre-key sum) per row */
		double sw;

		if (gr->nkeys) {
			key_weights(dp, s + gr->j_at, gr->combo, n, w, acc);
			wg = w;
			scatter(gr->combo, acc, n, gr->ncombos, lanes, v);
			for (size_t j = 0; j < gr->nkeys; j++)
				key_gradient(c, gr, j, v, grad);
		}
		if (gr->nscalars) {
			sw = sum4(wg, n);
			for (size_t i = gr->first_scalar; i < gr->first_scalar + gr->nscalars; i++)
				grad[c->scalar[i]] += sw;
		}
		for (size_t k = gr->first_node; k < gr->first_node + gr->nnodes; k++) {
			double *gb = s + c->node[k].grad_at;

			for (size_t d = 0; d < c->node[k].nd; d++)
				gb[d] = 0.0;
		}
		for (size_t q = gr->first_top; q < gr->first_top + gr->ntops; q++) {
			const pm_cost_node *nd = &c->node[c->top[q]];

			scatter(nd->code, wg, n, nd->nd, lanes, s + nd->grad_at);
		}
		/* parents come after their children */
		for (size_t k = gr->first_node + gr->nnodes; k-- > gr->first_node;) {
			const pm_cost_node *nd = &c->node[k];
			const double *gb = s + nd->grad_at;

			if (nd->child[0] != PM_NONE) {
				double *ga = s + c->node[nd->child[0]].grad_at;
				double *gbb = s + c->node[nd->child[1]].grad_at;

				for (size_t d = 0; d < nd->nd; d++) {
					ga[nd->child_code[2 * d]] += gb[d];
					gbb[nd->child_code[2 * d + 1]] += gb[d];
				}
				continue;
			}
			for (size_t i = nd->first; i < nd->first + nd->nparts; i++) {
				const pm_cost_part *pa = &c->part[i];
				const pm_factor *fa;
				const double *ft, *u;
				double gc = 0.0, gp = 0.0;

				if (pa->factor == PM_NONE) {
					grad[pa->coef] += gb[pa->level];
					continue;
				}
				fa = &t->factor[pa->factor];
				ft = s + c->factor_at[pa->factor];
				u = c->dlog + c->factor_at[pa->factor];
				for (size_t d = 0; d < nd->nd; d++) {
					gc += gb[d] * ft[d];
					gp += gb[d] * ft[d] * u[d];
				}
				grad[pa->coef] += gc;
				if (fa->power == PM_NONE || fa->kind == PM_FACTOR_INDICATOR)
					continue;
				/* a level's multiplier exp(θ_v) is its own derivative */
				if (fa->kind == PM_FACTOR_LEVEL)
					for (size_t d = 1; d < nd->nd; d++)
						grad[fa->power + d - 1] += x[pa->coef] * gb[d] * ft[d];
				else
					grad[fa->power] += fa->negate ? -(x[pa->coef] * gp)
								      : x[pa->coef] * gp;
			}
		}
	}
	f = sum * inv_n;
	if (c->reg != PM_REG_NONE)
		f += penalty(c, x, eps, grad);
	return isnan(f) ? INFINITY : f;
}
