/*
 * test_views_stream.c - the views fed a synthetic walker stream: folded
 * stacks count every call, the flame chart merges narrow calls while
 * streaming and stays small, the sequence model cuts at --max-calls with a
 * note and keeps returns balanced, the call graph counts recursive time
 * once, Chrome and speedscope JSON escape names and keep their order.
 */
#include "../../src/views/views.h"
#include "../../src/views/seq_model.h"
#include "../../src/views/callgraph_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* ---- a synthetic stream ----------------------------------------------------- */

#define MAX_SYMS 16
static struct symbol syms[MAX_SYMS];
static int nsyms;

static const struct symbol *sym(const char *name)
{
	for (int i = 0; i < nsyms; i++)
		if (strcmp(syms[i].name, name) == 0)
			return &syms[i];
	syms[nsyms] = (struct symbol){.name = name,
				      .module = strncmp(name, "lib_", 4) ? "/usr/bin/prog"
									 : "/usr/lib/libx.so",
				      .file = "prog.c",
				      .line = 10 + (uint32_t)nsyms,
				      .id = (uint32_t)nsyms};
	return &syms[nsyms++];
}

struct call {
	uint32_t depth;
	const char *name;
	uint64_t start, end;
};

struct open_call {
	struct walk_event e;
	uint64_t end, child_ns;
};

/* Feeds one thread's calls, given in the order they were entered. */
static void feed(const struct walk_consumer *c, const struct walk_thread *t,
		 const struct call *calls, size_t n)
{
	struct open_call stack[64];
	int top = 0;
	uint64_t seq = 0;
	if (c->begin_thread)
		c->begin_thread(c->ctx, t);
	for (size_t i = 0; i <= n; i++) {
		uint32_t depth = i < n ? calls[i].depth : 0;
		while (top > 0 && (i == n || stack[top - 1].e.depth >= depth)) {
			struct open_call *o = &stack[--top];
			o->e.kind = WALK_EXIT;
			o->e.end_ns = o->end;
			o->e.duration_ns = o->end - o->e.start_ns;
			o->e.child_ns = o->child_ns;
			if (top > 0)
				stack[top - 1].child_ns += o->e.duration_ns;
			if (c->exit)
				c->exit(c->ctx, &o->e);
		}
		if (i == n)
			break;
		struct open_call *o = &stack[top++];
		memset(o, 0, sizeof(*o));
		o->e = (struct walk_event){.kind = WALK_ENTER,
					   .thread = t,
					   .sym = sym(calls[i].name),
					   .depth = depth,
					   .seq = ++seq,
					   .start_ns = calls[i].start};
		o->end = calls[i].end;
		if (c->enter)
			c->enter(c->ctx, &o->e);
	}
	if (c->end_thread)
		c->end_thread(c->ctx, t);
}

static const struct walk_thread main_thread = {.pid = 100, .tid = 100, .name = "prog"};
static const struct walk_thread worker = {.pid = 100, .tid = 101, .name = "worker"};

/* main { a { b } b { lib_c } }  and a worker thread: lib_c lib_c */
static const struct call tree[] = {
    {0, "main", 1000, 9000}, {1, "a", 1100, 3000},     {2, "b", 1200, 2000},
    {1, "b", 3100, 8000},    {2, "lib_c", 3200, 7000},
};
static const struct call worker_calls[] = {{0, "lib_c", 2000, 2500}, {0, "lib_c", 2600, 2700}};

static void feed_sample(const struct walk_consumer *c)
{
	feed(c, &main_thread, tree, sizeof(tree) / sizeof(tree[0]));
	feed(c, &worker, worker_calls, 2);
}

static int count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* ---- the tests ------------------------------------------------------------------ */

static void test_folded(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct flame_folded *ff = flame_folded_new(f, FOLDED_CALLS, 0);
	struct walk_consumer c;
	flame_folded_consumer(ff, &c);
	feed_sample(&c);
	CHECK(flame_folded_finish(ff) == 0, "folded finish");
	flame_folded_free(ff);
	fclose(f);
	const char *want = "main 1\nmain;a 1\nmain;a;b 1\nmain;b 1\nmain;b;lib_c 1\nlib_c 2\n";
	CHECK(strcmp(text, want) == 0, "folded stacks:\n%s", text);
	free(text);

	f = open_memstream(&text, &len);
	ff = flame_folded_new(f, FOLDED_SELF_NS, 1);
	flame_folded_consumer(ff, &c);
	feed_sample(&c);
	flame_folded_finish(ff);
	flame_folded_free(ff);
	fclose(f);
	CHECK(strstr(text, "pid 100 tid 100 prog;main;b 1100\n") != NULL, "self time:\n%s", text);
	CHECK(strstr(text, "pid 100 tid 101 worker;lib_c 600\n") != NULL, "per thread:\n%s", text);
	free(text);
}

/* 20000 calls of 10 ns side by side under one 1 ms call, a and b in turn:
 * far narrower than a pixel, so they become one frame for each function,
 * "a ×10000" and "b ×10000", not 20000 frames nor a nameless block; their
 * places travel in the file for zooming in. */
static void test_flame_merging(void)
{
	static struct call calls[20001];
	calls[0] = (struct call){0, "main", 0, 1000000};
	for (int i = 0; i < 20000; i++)
		calls[i + 1] = (struct call){1, i % 2 ? "a" : "b", 1000 + (uint64_t)i * 40,
					     1000 + (uint64_t)i * 40 + 10};
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct flame_svg_options o = {.title = "test <&> chart"};
	struct flame_svg *fs = flame_svg_new(f, NULL, &o);
	struct walk_consumer c;
	flame_svg_measure_consumer(fs, &c);
	feed(&c, &main_thread, calls, 20001);
	flame_svg_wide_consumer(fs, &c);
	feed(&c, &main_thread, calls, 20001);
	flame_svg_draw_consumer(fs, &c);
	feed(&c, &main_thread, calls, 20001);
	CHECK(flame_svg_finish(fs) == 0, "flame finish");
	flame_svg_free(fs);
	fclose(f);
	CHECK(count(text, "<g class=\"m\"") == 0, "no hatched block");
	CHECK(count(text, "<g><title>main\n") == 1, "main drawn once");
	CHECK(count(text, "<title>a \xc3\x97"
			  "10000\n") == 1 &&
		  count(text, "<title>b \xc3\x97"
			      "10000\n") == 1,
	      "one frame for each function");
	CHECK(count(text, "<g class=\"det\"") == 1, "their places travel for zooming in");
	CHECK(len < 400000, "merged chart is %zu bytes", len);
	CHECK(strstr(text, "test &lt;&amp;&gt; chart") != NULL, "title escaped");
	CHECK(strstr(text, "pid 100 tid 100 prog") != NULL, "band label");
	CHECK(strstr(text, "call #1 \xc2\xb7 start 0 ns \xc2\xb7 duration 1.000 ms") != NULL,
	      "main's tooltip");
	free(text);
}

static void test_seq_cut(void)
{
	struct seq_model *m = seq_model_new(SEQ_BY_MODULE, 3);
	struct walk_consumer c;
	seq_model_consumer(m, &c);
	feed_sample(&c);
	seq_model_finish(m);
	CHECK(seq_model_status(m) == 0, "seq status");
	CHECK(m->nparts == 3, "participants: start, prog, libx.so (%u)", m->nparts);
	CHECK(strcmp(m->parts[1].label, "prog") == 0 && strcmp(m->parts[2].label, "libx.so") == 0,
	      "participants are module base names");
	int calls = 0, returns = 0, cuts = 0, sections = 0;
	for (size_t i = 0; i < m->nmsgs; i++) {
		calls += m->msgs[i].kind == SEQ_CALL;
		returns += m->msgs[i].kind == SEQ_RETURN;
		sections += m->msgs[i].kind == SEQ_SECTION;
		if (m->msgs[i].kind == SEQ_CUT) {
			cuts++;
			CHECK(m->msgs[i].cut_calls == 2, "cut note counts 2 calls");
		}
	}
	CHECK(calls == 5 && returns == 5, "3 + 2 calls shown, each returns (%d, %d)", calls,
	      returns);
	CHECK(cuts == 1 && sections == 2, "one cut, two sections");

	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	seq_write_mermaid(m, f);
	fclose(f);
	CHECK(strstr(text, "participant P2 as libx.so\n") != NULL, "mermaid participant");
	CHECK(strstr(text, "P0->>+P1: main()\n  P1->>+P1: a()\n") != NULL, "mermaid calls");
	CHECK(strstr(text, "Note over P0,P2: 2 more calls of this thread not shown") != NULL,
	      "mermaid cut note");
	CHECK(count(text, "rect ") == 2 && count(text, "  end\n") == 2, "one rect per thread");
	free(text);
	seq_model_free(m);
}

static void test_callgraph(void)
{
	static const struct call rec[] = {
	    {0, "main", 0, 1000}, {1, "f", 100, 900}, {2, "f", 200, 800}, {3, "f", 300, 700}};
	struct callgraph *g = callgraph_new();
	struct walk_consumer c;
	callgraph_consumer(g, &c);
	feed(&c, &main_thread, rec, 4);
	CHECK(g->nnodes == 2 && g->nedges == 2, "2 nodes, 2 edges (%u, %u)", g->nnodes, g->nedges);
	const struct cg_node *f = &g->nodes[1];
	CHECK(f->calls == 3 && f->total_ns == 800, "recursion: 3 calls, 800 ns once (%llu, %llu)",
	      (unsigned long long)f->calls, (unsigned long long)f->total_ns);
	CHECK(f->self_ns == 800, "self time of f is 800 ns (%llu)", (unsigned long long)f->self_ns);
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	callgraph_write_dot(g, out);
	fclose(out);
	CHECK(strstr(text, "subgraph cluster_0 {\n    label=\"prog\";") != NULL, "cluster label");
	CHECK(strstr(text, "n1 -> n1 [label=\"2 calls\\n600 ns\"];") != NULL, "recursive edge:\n%s",
	      text);
	free(text);
	callgraph_free(g);
}

static void test_chrome(void)
{
	static const struct call odd[] = {{0, "say \"hi\"\\", 1500, 2501}};
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct chrome_json *cj = chrome_json_new(f, NULL, 0, UINT64_MAX);
	struct walk_consumer c;
	chrome_json_consumer(cj, &c);
	feed(&c, &main_thread, odd, 1);
	CHECK(chrome_json_finish(cj) == 0, "chrome finish");
	chrome_json_free(cj);
	fclose(f);
	CHECK(strstr(text, "{\"name\":\"say \\\"hi\\\"\\\\\",\"cat\":\"function\",\"ph\":\"X\","
			   "\"ts\":1.500,\"dur\":1.001,\"pid\":100,\"tid\":100,\"args\":{\"file\":"
			   "\"prog.c\",\"line\":") != NULL,
	      "chrome event:\n%s", text);
	CHECK(strstr(text, "\"thread_name\"") && strstr(text, "\"process_name\""), "metadata");
	free(text);
}

static void test_speedscope(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct speedscope_json *sj = speedscope_json_new(f, NULL);
	struct walk_consumer c;
	speedscope_json_consumer(sj, &c);
	feed_sample(&c);
	CHECK(speedscope_json_finish(sj) == 0, "speedscope finish");
	speedscope_json_free(sj);
	fclose(f);
	CHECK(count(text, "\"type\":\"O\"") == 7 && count(text, "\"type\":\"C\"") == 7,
	      "7 opens, 7 closes");
	CHECK(count(text, "\"type\":\"evented\"") == 2, "a profile per thread");
	CHECK(strstr(text, "\"startValue\":1000,\"endValue\":9000") != NULL, "start and end");
	CHECK(count(text, "{\"name\":\"lib_c\"") == 1, "frames shared");
	free(text);
}

int main(void)
{
	test_folded();
	test_flame_merging();
	test_seq_cut();
	test_callgraph();
	test_chrome();
	test_speedscope();
	return CHECK_SUMMARY("test_views_stream");
}
