/*
 * view_names.c - telling apart the functions a view would show alike.
 *
 * With short names (--demangle=simple) overloads show alike
 * ("shapes::area" for area(double) and area(double, double)), and so do
 * same-named static functions of different files, with any naming.  A view
 * that lists functions side by side (report, graph) marks the symbols whose
 * shown name repeats among its own and shows those, and only those, apart:
 * an overload with its parameter list ("shapes::area(double)"), a static
 * function (its full name repeats too) with its file ("scale (a.c)").
 * Library calls keep their "@library" after that.  The views that draw
 * frames (flame graphs, folded stacks) take the same decision over the
 * symbols they draw (view_shown_names), without the "@library".
 */
#include "view_names.h"
#include "call_kind.h"
#include "view_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct alike_key {
	const struct symbol *sym;
	size_t index;
};

static int compare_shown(const struct symbol *a, const struct symbol *b)
{
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	int c = strcmp(a->name, b->name);
	if (c || a->kind != CALL_LIBRARY)
		return c;
	return strcmp(view_basename(a->module), view_basename(b->module));
}

static int compare_keys(const void *a, const void *b)
{
	const struct alike_key *x = a, *y = b;
	int c = compare_shown(x->sym, y->sym);
	if (c)
		return c;
	const char *fx = x->sym->full_name ? x->sym->full_name : x->sym->name;
	const char *fy = y->sym->full_name ? y->sym->full_name : y->sym->name;
	return strcmp(fx, fy);
}

static const char *full_of(const struct symbol *s)
{
	return s->full_name ? s->full_name : s->name;
}

int view_names_apart(const struct symbol *const *syms, size_t n, unsigned char *how)
{
	memset(how, VIEW_NAME_ALONE, n);
	struct alike_key *keys = malloc((n ? n : 1) * sizeof(*keys));
	if (!keys)
		return -1;
	for (size_t i = 0; i < n; i++)
		keys[i] = (struct alike_key){syms[i], i};
	qsort(keys, n, sizeof(*keys), compare_keys);
	for (size_t i = 0, end; i < n; i = end) {
		for (end = i + 1; end < n && compare_shown(keys[end].sym, keys[i].sym) == 0; end++)
			;
		if (end - i < 2)
			continue;
		for (size_t j = i; j < end; j++) {
			int same_full = (j > i && strcmp(full_of(keys[j].sym),
							 full_of(keys[j - 1].sym)) == 0) ||
					(j + 1 < end && strcmp(full_of(keys[j].sym),
							       full_of(keys[j + 1].sym)) == 0);
			how[keys[j].index] = same_full ? VIEW_NAME_BY_FILE : VIEW_NAME_BY_PARAMS;
		}
	}
	free(keys);
	return 0;
}

const char *view_name_told_apart(const struct symbol *s, unsigned how, char *buf, size_t len)
{
	if (how == VIEW_NAME_ALONE || s->kind == CALL_SYSCALL || s->kind == CALL_KERNEL ||
	    s->kind == CALL_OFFCPU)
		return view_kind_shown_name(s, buf, len);
	char apart[1024];
	symbol_name_apart(s, how == VIEW_NAME_BY_FILE, apart, sizeof(apart));
	if (s->kind == CALL_LIBRARY)
		snprintf(buf, len, "%s@%s", apart, view_basename(s->module));
	else
		snprintf(buf, len, "%s", apart);
	return buf;
}

static int by_id(const void *a, const void *b)
{
	uint32_t x = (*(const struct symbol *const *)a)->id;
	uint32_t y = (*(const struct symbol *const *)b)->id;
	return x < y ? -1 : x > y;
}

/* syms[0..n) sorted by id, each symbol once, into a new array; its length
 * in *count.  NULL when out of memory. */
static const struct symbol **distinct_symbols(const struct symbol *const *syms, size_t n,
					      size_t *count)
{
	const struct symbol **d = malloc((n ? n : 1) * sizeof(*d));
	if (!d)
		return NULL;
	if (n)
		memcpy(d, syms, n * sizeof(*d));
	qsort(d, n, sizeof(*d), by_id);
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (m == 0 || d[m - 1]->id != d[i]->id)
			d[m++] = d[i];
	*count = m;
	return d;
}

/* Keeps the name told apart of every symbol of d[0..m) that how[] says
 * shows alike. */
static int keep_apart(struct view_shown_names *v, const struct symbol **d, size_t m,
		      const unsigned char *how)
{
	uint32_t top = m ? d[m - 1]->id + 1 : 0;
	v->apart = calloc(top ? top : 1, sizeof(*v->apart));
	if (!v->apart)
		return -1;
	v->n = top;
	for (size_t i = 0; i < m; i++) {
		if (how[i] == VIEW_NAME_ALONE || d[i]->kind == CALL_SYSCALL ||
		    d[i]->kind == CALL_KERNEL || d[i]->kind == CALL_OFFCPU)
			continue;
		char apart[1024];
		v->apart[d[i]->id] = strdup(
		    symbol_name_apart(d[i], how[i] == VIEW_NAME_BY_FILE, apart, sizeof(apart)));
		if (!v->apart[d[i]->id])
			return -1;
	}
	return 0;
}

int view_shown_names_settle(struct view_shown_names *v, const struct symbol *const *syms, size_t n)
{
	view_shown_names_free(v);
	size_t m = 0;
	const struct symbol **d = distinct_symbols(syms, n, &m);
	unsigned char *how = d ? malloc(m ? m : 1) : NULL;
	int rc = -1;
	if (how && view_names_apart(d, m, how) == 0)
		rc = keep_apart(v, d, m, how);
	free(how);
	free(d);
	if (rc < 0)
		view_shown_names_free(v);
	return rc;
}

const char *view_shown_name(const struct view_shown_names *v, const struct symbol *s)
{
	if (v && s->id < v->n && v->apart[s->id])
		return v->apart[s->id];
	return s->name;
}

void view_shown_names_free(struct view_shown_names *v)
{
	for (uint32_t i = 0; i < v->n; i++)
		free(v->apart[i]);
	free(v->apart);
	v->apart = NULL;
	v->n = 0;
}
