/*
 * flame_folded.c - FlameGraph's folded stacks ("main;a;b 3"): the calls are
 * aggregated in a tree of distinct stacks (a hash of (parent stack, function)
 * finds a stack's node), printed at the end depth first, stacks in the order
 * they first happened.  The value of a stack is the number of calls that
 * ended in it, or their self time in nanoseconds.  The kernel's frames
 * (system calls, off-CPU intervals) end in "_[k]", as FlameGraph spells
 * them.  Functions that would show alike (same-named static functions of
 * two files) are told apart as report tells them (view_names.c).
 */
#include <stdlib.h>
#include <string.h>
#include "call_kind.h"
#include "views.h"
#include "view_names.h"
#include "view_util.h"

struct stack_node {
	uint64_t key;	 /* symbol id, or THREAD_KEY | thread number */
	uint32_t parent; /* node index; 0 is the root (no frame) */
	uint32_t first_child, last_child, next_sibling; /* 0: none */
	const char *name;
	const struct symbol *sym; /* NULL: a thread's label */
	uint8_t kernel;		  /* the name takes FlameGraph's "_[k]" */
	uint64_t calls, self_ns;
};

#define THREAD_KEY (1ull << 32)

struct flame_folded {
	FILE *out;
	enum folded_value value;
	int per_thread;
	int failed;
	struct stack_node *nodes;
	uint32_t nnodes, cap_nodes;
	uint32_t *slots; /* hash of (parent, key) -> node index; 0: empty */
	uint32_t nslots;
	uint32_t *path; /* node of each depth of the current thread */
	uint32_t cap_path;
	uint32_t base; /* node the current thread's stacks start from */
	char **labels; /* thread labels, owned */
	uint32_t nlabels;
};

static uint32_t slot_of(uint32_t parent, uint64_t key, uint32_t nslots)
{
	uint64_t h = (key * 0x9e3779b97f4a7c15ull) ^ (parent * 0xc2b2ae3d27d4eb4full);
	return (uint32_t)((h ^ (h >> 29)) & (nslots - 1));
}

static int grow_slots(struct flame_folded *ff)
{
	uint32_t nslots = ff->nslots ? ff->nslots * 2 : 1024;
	uint32_t *slots = calloc(nslots, sizeof(*slots));
	if (!slots)
		return -1;
	for (uint32_t i = 1; i < ff->nnodes; i++) {
		uint32_t s = slot_of(ff->nodes[i].parent, ff->nodes[i].key, nslots);
		while (slots[s])
			s = (s + 1) & (nslots - 1);
		slots[s] = i;
	}
	free(ff->slots);
	ff->slots = slots;
	ff->nslots = nslots;
	return 0;
}

static uint32_t new_node(struct flame_folded *ff, uint32_t parent, uint64_t key, const char *name)
{
	if (ff->nnodes == ff->cap_nodes) {
		uint32_t cap = ff->cap_nodes * 2;
		struct stack_node *n = realloc(ff->nodes, cap * sizeof(*n));
		if (!n)
			return 0;
		ff->nodes = n;
		ff->cap_nodes = cap;
	}
	if ((ff->nnodes + 1) * 2 > ff->nslots && grow_slots(ff) < 0)
		return 0;
	uint32_t i = ff->nnodes++;
	ff->nodes[i] = (struct stack_node){.key = key, .parent = parent, .name = name};
	struct stack_node *p = &ff->nodes[parent];
	if (p->last_child)
		ff->nodes[p->last_child].next_sibling = i;
	else
		p->first_child = i;
	p->last_child = i;
	uint32_t s = slot_of(parent, key, ff->nslots);
	while (ff->slots[s])
		s = (s + 1) & (ff->nslots - 1);
	ff->slots[s] = i;
	return i;
}

/* The child of `parent` for `key`, made on first use; 0 when out of memory. */
static uint32_t child(struct flame_folded *ff, uint32_t parent, uint64_t key, const char *name)
{
	for (uint32_t s = slot_of(parent, key, ff->nslots); ff->slots[s];
	     s = (s + 1) & (ff->nslots - 1)) {
		const struct stack_node *n = &ff->nodes[ff->slots[s]];
		if (n->key == key && n->parent == parent)
			return ff->slots[s];
	}
	return new_node(ff, parent, key, name);
}

static void begin_thread(void *ctx, const struct walk_thread *t)
{
	struct flame_folded *ff = ctx;
	ff->base = 0;
	if (!ff->per_thread)
		return;
	char label[256];
	char **labels = realloc(ff->labels, (ff->nlabels + 1) * sizeof(*labels));
	if (!labels) {
		ff->failed = 1;
		return;
	}
	ff->labels = labels;
	labels[ff->nlabels] = strdup(view_thread_label(t, label, sizeof(label)));
	if (!labels[ff->nlabels]) {
		ff->failed = 1;
		return;
	}
	ff->base = child(ff, 0, THREAD_KEY | ff->nlabels, labels[ff->nlabels]);
	ff->nlabels++;
}

static void on_call(void *ctx, const struct walk_event *e)
{
	struct flame_folded *ff = ctx;
	if (e->depth >= ff->cap_path) {
		uint32_t cap = ff->cap_path ? ff->cap_path : 64;
		while (cap <= e->depth)
			cap *= 2;
		uint32_t *p = realloc(ff->path, cap * sizeof(*p));
		if (!p) {
			ff->failed = 1;
			return;
		}
		ff->path = p;
		ff->cap_path = cap;
	}
	uint32_t parent = e->depth ? ff->path[e->depth - 1] : ff->base;
	uint32_t node = child(ff, parent, e->sym->id, e->sym->name);
	if (!node)
		ff->failed = 1;
	else
		ff->nodes[node].sym = e->sym;
	if (node && e->sym->kind != CALL_FUNCTION && e->sym->kind != CALL_LIBRARY)
		ff->nodes[node].kernel = 1;
	ff->path[e->depth] = node;
}

static void on_leave(void *ctx, const struct walk_event *e)
{
	struct flame_folded *ff = ctx;
	if (e->depth >= ff->cap_path || !ff->path[e->depth])
		return;
	struct stack_node *n = &ff->nodes[ff->path[e->depth]];
	n->calls++;
	n->self_ns += e->duration_ns > e->child_ns ? e->duration_ns - e->child_ns : 0;
}

struct flame_folded *flame_folded_new(FILE *out, enum folded_value value, int per_thread)
{
	struct flame_folded *ff = calloc(1, sizeof(*ff));
	if (!ff)
		return NULL;
	ff->out = out;
	ff->value = value;
	ff->per_thread = per_thread;
	ff->cap_nodes = 1024;
	ff->nodes = malloc(ff->cap_nodes * sizeof(*ff->nodes));
	if (!ff->nodes || grow_slots(ff) < 0) {
		flame_folded_free(ff);
		return NULL;
	}
	ff->nodes[0] = (struct stack_node){.name = ""};
	ff->nnodes = 1;
	return ff;
}

void flame_folded_consumer(struct flame_folded *ff, struct walk_consumer *c)
{
	memset(c, 0, sizeof(*c));
	c->ctx = ff;
	c->begin_thread = begin_thread;
	c->enter = on_call;
	c->exit = on_leave;
}

/* Appends a frame name to the stack text; ';' would split it, so it goes. */
static size_t append_frame(char **buf, size_t *cap, size_t len, const char *name, int kernel)
{
	size_t n = strlen(name), suffix = kernel ? 4 : 0;
	if (len + n + suffix + 2 > *cap) {
		size_t c = *cap ? *cap : 256;
		while (len + n + suffix + 2 > c)
			c *= 2;
		char *b = realloc(*buf, c);
		if (!b)
			return (size_t)-1;
		*buf = b;
		*cap = c;
	}
	if (len)
		(*buf)[len++] = ';';
	for (size_t i = 0; i < n; i++)
		(*buf)[len + i] = name[i] == ';' || name[i] == '\n' ? '_' : name[i];
	memcpy(*buf + len + n, "_[k]", suffix);
	return len + n + suffix;
}

/* Every frame's name, told apart where two functions would show alike. */
static void settle_names(struct flame_folded *ff, struct view_shown_names *shown)
{
	const struct symbol **syms = malloc(ff->nnodes * sizeof(*syms));
	size_t n = 0;
	if (!syms)
		return;
	for (uint32_t i = 1; i < ff->nnodes; i++)
		if (ff->nodes[i].sym)
			syms[n++] = ff->nodes[i].sym;
	if (view_shown_names_settle(shown, syms, n) == 0)
		for (uint32_t i = 1; i < ff->nnodes; i++)
			if (ff->nodes[i].sym)
				ff->nodes[i].name = view_shown_name(shown, ff->nodes[i].sym);
	free(syms);
}

/* Depth first, without recursion: stacks can be deeper than the C stack. */
int flame_folded_finish(struct flame_folded *ff)
{
	char *text = NULL;
	size_t cap = 0;
	size_t *lens = calloc(ff->nnodes, sizeof(*lens)); /* text length before each node */
	if (!lens)
		return -1;
	struct view_shown_names shown = {NULL, 0};
	settle_names(ff, &shown);
	uint32_t node = ff->nodes[0].first_child;
	while (node) {
		struct stack_node *n = &ff->nodes[node];
		size_t before = n->parent ? lens[n->parent] : 0;
		size_t len = append_frame(&text, &cap, before, n->name, n->kernel);
		if (len == (size_t)-1) {
			ff->failed = 1;
			break;
		}
		lens[node] = len;
		uint64_t v = ff->value == FOLDED_CALLS ? n->calls : n->self_ns;
		if (v) {
			fwrite_unlocked(text, 1, len, ff->out);
			putc_unlocked(' ', ff->out);
			view_put_u64(ff->out, v);
			putc_unlocked('\n', ff->out);
		}
		if (n->first_child) {
			node = n->first_child;
			continue;
		}
		while (node && !ff->nodes[node].next_sibling)
			node = ff->nodes[node].parent;
		if (node)
			node = ff->nodes[node].next_sibling;
	}
	free(lens);
	free(text);
	view_shown_names_free(&shown);
	return ff->failed ? -1 : 0;
}

void flame_folded_free(struct flame_folded *ff)
{
	if (!ff)
		return;
	for (uint32_t i = 0; i < ff->nlabels; i++)
		free(ff->labels[i]);
	free(ff->labels);
	free(ff->nodes);
	free(ff->slots);
	free(ff->path);
	free(ff);
}
