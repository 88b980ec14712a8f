/*
 * callgraph_focus.c - `calltrace graph --focus FUNC`: every call path from
 * the outermost calls to FUNC, merged into one tree (two stack trees, see
 * stack_tree.h), with the calls of FUNC made under each function and their
 * time, then FUNC's own callees beneath it.  Only the outermost calls of
 * FUNC count on the paths, so recursion counts its time once; beneath FUNC
 * every node is one distinct stack and counts its own calls.  FUNC is a
 * name as the views show it, whole, without its parameter list, or its
 * scope and name alone (view_short_name): every function of that name is
 * a match, their paths and callees merged.
 * callgraph_focus_filter passes on to another consumer only the calls on
 * those paths and beneath FUNC, for the dot and svg graphs.
 * Memory: the distinct paths and a stack as deep as the calls.
 */
#include "views.h"
#include "stack_tree.h"
#include "view_util.h"
#include "../utils/array.h"

#include <stdlib.h>
#include <string.h>

#define NOT_YET UINT32_MAX /* a frame's path node, not made yet */
#define NOT_OPEN UINT32_MAX
#define MAX_INDENT 40 /* levels drawn with connectors; deeper ones say their level */
#define IS_FOCUS ((void *)1)
#define NOT_FOCUS ((void *)2)

struct focus_frame {
	uint32_t path;	 /* node in the paths tree, NOT_YET until needed */
	uint32_t callee; /* node in the callees tree, 0 outside FUNC */
	const struct symbol *sym;
};

/* callgraph_focus_filter: a call held until FUNC is seen beneath it. */
struct held_call {
	struct walk_event enter;
	int passed;	   /* passed on to the next consumer */
	uint64_t child_ns; /* the time of its children passed on */
};

struct callgraph_focus {
	const char *name;
	int failed;
	struct view_symtab is_focus; /* symbol id -> IS_FOCUS or NOT_FOCUS */
	const struct symbol **matched;
	uint32_t nmatched, cap_matched;
	struct stack_tree paths, callees;
	struct focus_frame *stack;
	uint32_t cap_stack;
	uint32_t outermost;	   /* depth of the open outermost call of FUNC */
	uint64_t calls, total_ns;  /* of the outermost calls */
	struct walk_consumer next; /* callgraph_focus_filter's */
	struct held_call *held;
	uint32_t cap_held;
};

struct callgraph_focus *callgraph_focus_new(const char *name)
{
	struct callgraph_focus *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->name = name;
	f->outermost = NOT_OPEN;
	if (stack_tree_init(&f->paths) < 0 || stack_tree_init(&f->callees) < 0) {
		callgraph_focus_free(f);
		return NULL;
	}
	return f;
}

void callgraph_focus_free(struct callgraph_focus *f)
{
	if (!f)
		return;
	view_symtab_free(&f->is_focus, NULL);
	free(f->matched);
	stack_tree_free(&f->paths);
	stack_tree_free(&f->callees);
	free(f->stack);
	free(f->held);
	free(f);
}

/* The name whole, without its parameter list, or its scope and name alone
 * (view_short_name). */
static int name_matches(const char *shown, const char *name)
{
	char short_name[1024];
	if (strcmp(shown, name) == 0)
		return 1;
	const char *params = view_name_params(shown);
	size_t len = strlen(name);
	if (params && (size_t)(params - shown) == len && strncmp(shown, name, len) == 0)
		return 1;
	return strcmp(view_short_name(shown, short_name, sizeof(short_name)), name) == 0;
}

static int is_focus(struct callgraph_focus *f, const struct symbol *s)
{
	void **slot = view_symtab_slot(&f->is_focus, s->id);
	if (!slot) {
		f->failed = 1;
		return 0;
	}
	if (!*slot) {
		int match = name_matches(s->full_name ? s->full_name : s->name, f->name) ||
			    symbol_name_is(s, f->name);
		*slot = match ? IS_FOCUS : NOT_FOCUS;
		if (*slot == IS_FOCUS) {
			if (!ARRAY_RESERVE(f->matched, f->nmatched, f->cap_matched, 4)) {
				f->failed = 1;
				return 0;
			}
			f->matched[f->nmatched++] = s;
		}
	}
	return *slot == IS_FOCUS;
}

static struct focus_frame *push_frame(struct callgraph_focus *f, uint32_t depth)
{
	if (depth >= f->cap_stack) {
		uint32_t cap = f->cap_stack ? f->cap_stack : 64;
		while (cap <= depth)
			cap *= 2;
		struct focus_frame *s = realloc(f->stack, cap * sizeof(*s));
		if (!s)
			return NULL;
		f->stack = s;
		f->cap_stack = cap;
	}
	return &f->stack[depth];
}

/* The path of the calls open under depth `depth`, made in the paths tree
 * as far as it was not yet; its node, 0 when out of memory.  The open
 * frames with their node made are the outermost ones (a frame entered
 * starts without): the cost is that of the frames made now. */
static uint32_t path_to(struct callgraph_focus *f, uint32_t depth)
{
	uint32_t made = depth;
	while (made && f->stack[made - 1].path == NOT_YET)
		made--;
	uint32_t node = made ? f->stack[made - 1].path : 0;
	for (uint32_t i = made; i < depth; i++) {
		struct focus_frame *fr = &f->stack[i];
		fr->path = node = stack_tree_child(&f->paths, node, fr->sym->id, fr->sym);
		if (!node)
			return 0;
	}
	return node;
}

static void on_enter(void *ctx, const struct walk_event *ev)
{
	struct callgraph_focus *f = ctx;
	struct focus_frame *fr = push_frame(f, ev->depth);
	if (!fr) {
		f->failed = 1;
		return;
	}
	*fr = (struct focus_frame){.path = NOT_YET, .sym = ev->sym};
	if (f->outermost != NOT_OPEN && ev->depth > f->outermost) {
		uint32_t parent = f->stack[ev->depth - 1].callee;
		fr->callee =
		    parent ? stack_tree_child(&f->callees, parent, ev->sym->id, ev->sym) : 0;
	} else if (is_focus(f, ev->sym)) {
		uint32_t above = ev->depth ? path_to(f, ev->depth) : 0;
		if (ev->depth && !above) {
			f->failed = 1;
			return;
		}
		fr->path = stack_tree_child(&f->paths, above, ev->sym->id, ev->sym);
		fr->callee = stack_tree_child(&f->callees, 0, ev->sym->id, ev->sym);
		f->outermost = ev->depth;
	}
	if (f->outermost == ev->depth && (!fr->path || !fr->callee))
		f->failed = 1;
}

static void on_exit_event(void *ctx, const struct walk_event *ev)
{
	struct callgraph_focus *f = ctx;
	if (ev->depth >= f->cap_stack)
		return;
	struct focus_frame *fr = &f->stack[ev->depth];
	if (fr->callee) {
		struct stack_tree_node *n = &f->callees.nodes[fr->callee];
		n->calls++;
		n->total_ns += ev->duration_ns;
		n->unfinished += ev->unfinished != 0;
	}
	if (ev->depth == f->outermost) {
		f->outermost = NOT_OPEN;
		if (fr->path) {
			f->paths.nodes[fr->path].calls++;
			f->paths.nodes[fr->path].total_ns += ev->duration_ns;
			f->paths.nodes[fr->path].unfinished += ev->unfinished != 0;
			f->calls++;
			f->total_ns += ev->duration_ns;
		}
	}
	fr->callee = 0;
}

static void on_thread(void *ctx, const struct walk_thread *t)
{
	struct callgraph_focus *f = ctx;
	(void)t;
	f->outermost = NOT_OPEN;
}

void callgraph_focus_consumer(struct callgraph_focus *f, struct walk_consumer *c)
{
	memset(c, 0, sizeof(*c));
	c->ctx = f;
	c->begin_thread = on_thread;
	c->enter = on_enter;
	c->exit = on_exit_event;
}

/* ---- the calls on the paths to FUNC, for the dot and svg graphs --------- */

static struct held_call *hold(struct callgraph_focus *f, uint32_t depth)
{
	if (depth >= f->cap_held) {
		uint32_t cap = f->cap_held ? f->cap_held : 64;
		while (cap <= depth)
			cap *= 2;
		struct held_call *h = realloc(f->held, cap * sizeof(*h));
		if (!h)
			return NULL;
		f->held = h;
		f->cap_held = cap;
	}
	return &f->held[depth];
}

static void pass_on(struct callgraph_focus *f, struct held_call *h)
{
	h->passed = 1;
	if (f->next.enter)
		f->next.enter(f->next.ctx, &h->enter);
}

static void filter_enter(void *ctx, const struct walk_event *ev)
{
	struct callgraph_focus *f = ctx;
	struct held_call *h = hold(f, ev->depth);
	if (!h) {
		f->failed = 1;
		return;
	}
	*h = (struct held_call){.enter = *ev};
	h->enter.args = NULL; /* they would not outlive the event */
	h->enter.args_len = 0;
	if (f->outermost != NOT_OPEN && ev->depth > f->outermost) {
		pass_on(f, h);
	} else if (is_focus(f, ev->sym)) {
		uint32_t first = ev->depth; /* the open calls held back: the innermost */
		while (first && !f->held[first - 1].passed)
			first--;
		for (uint32_t i = first; i <= ev->depth; i++)
			pass_on(f, &f->held[i]);
		f->outermost = ev->depth;
	}
}

static void filter_exit(void *ctx, const struct walk_event *ev)
{
	struct callgraph_focus *f = ctx;
	if (ev->depth >= f->cap_held)
		return;
	struct held_call *h = &f->held[ev->depth];
	if (h->passed) {
		struct walk_event e = *ev;
		e.child_ns = h->child_ns;
		if (ev->depth)
			f->held[ev->depth - 1].child_ns += ev->duration_ns;
		if (f->next.exit)
			f->next.exit(f->next.ctx, &e);
	}
	h->passed = 0;
	if (ev->depth == f->outermost)
		f->outermost = NOT_OPEN;
}

static void filter_thread(void *ctx, const struct walk_thread *t)
{
	struct callgraph_focus *f = ctx;
	f->outermost = NOT_OPEN;
	if (f->next.begin_thread)
		f->next.begin_thread(f->next.ctx, t);
}

static void filter_thread_end(void *ctx, const struct walk_thread *t)
{
	struct callgraph_focus *f = ctx;
	if (f->next.end_thread)
		f->next.end_thread(f->next.ctx, t);
}

void callgraph_focus_filter(struct callgraph_focus *f, const struct walk_consumer *next,
			    struct walk_consumer *c)
{
	f->next = *next;
	memset(c, 0, sizeof(*c));
	c->ctx = f;
	c->begin_thread = filter_thread;
	c->enter = filter_enter;
	c->exit = filter_exit;
	c->end_thread = filter_thread_end;
}

int callgraph_focus_status(const struct callgraph_focus *f)
{
	return f->failed ? -1 : 0;
}

uint32_t callgraph_focus_matched(const struct callgraph_focus *f)
{
	return f->nmatched;
}

/* ---- the text ------------------------------------------------------------ */

/* A path's node counts the calls of FUNC beneath it: the sums of its
 * children's (a child always comes after its parent). */
static void sum_paths(struct stack_tree *t)
{
	for (uint32_t i = t->nnodes - 1; i > 0; i--) {
		struct stack_tree_node *n = &t->nodes[i];
		if (n->parent) {
			t->nodes[n->parent].calls += n->calls;
			t->nodes[n->parent].total_ns += n->total_ns;
			t->nodes[n->parent].unfinished += n->unfinished;
		}
	}
}

/* Whether s is one of the functions named FUNC (the walk decided it). */
static int known_focus(const struct callgraph_focus *f, const struct symbol *s)
{
	return s->id < f->is_focus.len && f->is_focus.slots[s->id] == IS_FOCUS;
}

/* A row: the time and calls, the tree's indent, the name; where several
 * functions have FUNC's name, their source places tell them apart. */
static void write_row(const struct callgraph_focus *f, FILE *out, const char *indent,
		      uint32_t level, const struct stack_tree_node *n)
{
	char total[32], place[256];
	fprintf(out, "  %10s  %10llu  %s", view_duration(n->total_ns, total, sizeof(total)),
		(unsigned long long)n->calls, indent);
	if (level > MAX_INDENT)
		fprintf(out, "[level %u] ", level);
	fputs(n->sym->name, out);
	if (f->nmatched > 1 && known_focus(f, n->sym) &&
	    *view_source_place(n->sym, place, sizeof(place)))
		fprintf(out, " (%s)", place);
	if (n->unfinished)
		fprintf(out, " (%llu unfinished)", (unsigned long long)n->unfinished);
	fputc('\n', out);
}

/* Every node of `t` in depth-first order, children in the order they
 * first happened, drawn as a tree: "+-" before a child, "| " under a
 * caller with more children to come. */
static void write_tree(const struct callgraph_focus *f, const struct stack_tree *t, FILE *out)
{
	char indent[2 * MAX_INDENT + 1] = "";
	uint32_t level = 0, i = t->nodes[0].first_child;
	fprintf(out, "  %10s  %10s  %s\n", "Total time", "Calls", "Function");
	fprintf(out, "  ==========  ==========  ====================\n");
	while (i) {
		const struct stack_tree_node *n = &t->nodes[i];
		if (level >= 1 && level <= MAX_INDENT)
			memcpy(indent + 2 * (level - 1), "+-", 3);
		write_row(f, out, indent, level, n);
		if (level >= 1 && level <= MAX_INDENT)
			memcpy(indent + 2 * (level - 1), n->next_sibling ? "| " : "  ", 3);
		if (n->first_child) {
			i = n->first_child;
			level++;
			continue;
		}
		while (i && !t->nodes[i].next_sibling) {
			i = t->nodes[i].parent;
			if (level >= 1 && level <= MAX_INDENT)
				indent[2 * (level - 1)] = '\0';
			level--;
		}
		if (i)
			i = t->nodes[i].next_sibling;
	}
}

static void write_matches(const struct callgraph_focus *f, FILE *out)
{
	char place[256];
	fprintf(out, "# %u functions match '%s', merged:", f->nmatched, f->name);
	for (uint32_t i = 0; i < f->nmatched; i++) {
		const struct symbol *s = f->matched[i]; /* overloads by their parameters */
		fprintf(out, "%s %s", i ? "," : "", s->full_name ? s->full_name : s->name);
		if (*view_source_place(s, place, sizeof(place)))
			fprintf(out, " (%s)", place);
	}
	fputc('\n', out);
}

int callgraph_focus_write_text(struct callgraph_focus *f, FILE *out)
{
	char total[32];
	if (f->nmatched > 1)
		write_matches(f, out);
	sum_paths(&f->paths);
	fprintf(out,
		"# call paths to %s: %llu call%s, %s (a recursive call counted once, at the "
		"outermost);\n# each function: the calls of %s made under it, and their time\n",
		f->name, (unsigned long long)f->calls, f->calls == 1 ? "" : "s",
		view_duration(f->total_ns, total, sizeof(total)), f->name);
	write_tree(f, &f->paths, out);
	fprintf(out, "\n# %s and the functions it calls: each one's calls and time there\n",
		f->name);
	write_tree(f, &f->callees, out);
	return ferror(out) ? -1 : 0;
}
