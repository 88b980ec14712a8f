/*
 * test_views_kinds.c - the views fed a synthetic walker stream with calls
 * of every kind (a library call, the system call it made, off-CPU intervals
 * inside): the JSON "kind" of each call, replay's marks, report's On-CPU
 * column and its grouping by kind, the kernel's "_[k]" folded frames, the
 * colour classes of flame frames, Chrome's categories, speedscope's frame
 * names, the library's and the kernel's lifelines.
 */
#include "../../src/views/views.h"
#include "../../src/views/text_views.h"
#include "../../src/views/call_kind.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* ---- a synthetic stream ----------------------------------------------------- */

static const struct symbol sym_main = {.name = "main",
				       .module = "/usr/bin/prog",
				       .file = "prog.c",
				       .line = 5,
				       .id = 0,
				       .kind = CALL_FUNCTION};
static const struct symbol sym_work = {.name = "work",
				       .module = "/usr/bin/prog",
				       .file = "prog.c",
				       .line = 20,
				       .id = 1,
				       .kind = CALL_FUNCTION};
static const struct symbol sym_libread = {
    .name = "read", .module = "/lib/x86_64-linux-gnu/libc.so.6", .id = 2, .kind = CALL_LIBRARY};
static const struct symbol sym_sysread = {
    .name = "read", .module = "[kernel]", .id = 3, .kind = CALL_SYSCALL};
static const struct symbol sym_blocked = {
    .name = "off-cpu:blocked", .module = "[kernel]", .id = 4, .kind = CALL_OFFCPU};
static const struct symbol sym_preempted = {
    .name = "off-cpu:preempted", .module = "[kernel]", .id = 5, .kind = CALL_OFFCPU};

struct call {
	uint32_t depth;
	const struct symbol *sym;
	uint64_t start, end;
};

/* main { read@libc { [syscall] read { blocked 40 us } } work { preempted 10 us } } */
static const struct call calls[] = {
    {0, &sym_main, 0, 100000},	    {1, &sym_libread, 1000, 50000},
    {2, &sym_sysread, 2000, 48000}, {3, &sym_blocked, 3000, 43000},
    {1, &sym_work, 60000, 90000},   {2, &sym_preempted, 70000, 80000},
};
#define NCALLS (sizeof(calls) / sizeof(calls[0]))

static const struct trace_thread trace_thread = {.tid = 100, .image = 1};
static const struct walk_thread thread = {
    .thread = &trace_thread, .pid = 100, .tid = 100, .name = "prog"};

struct open_call {
	struct walk_event e;
	uint64_t end, child_ns;
};

static void feed(const struct walk_consumer *c)
{
	struct open_call stack[16];
	int top = 0;
	uint64_t seq = 0;
	if (c->begin_thread)
		c->begin_thread(c->ctx, &thread);
	for (size_t i = 0; i <= NCALLS; i++) {
		uint32_t depth = i < NCALLS ? calls[i].depth : 0;
		while (top > 0 && (i == NCALLS || stack[top - 1].e.depth >= depth)) {
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
		if (i == NCALLS)
			break;
		struct open_call *o = &stack[top++];
		memset(o, 0, sizeof(*o));
		o->e = (struct walk_event){.kind = WALK_ENTER,
					   .thread = &thread,
					   .sym = calls[i].sym,
					   .call_kind = calls[i].sym->kind,
					   .depth = depth,
					   .seq = ++seq,
					   .start_ns = calls[i].start};
		o->end = calls[i].end;
		if (c->enter)
			c->enter(c->ctx, &o->e);
	}
	if (c->end_thread)
		c->end_thread(c->ctx, &thread);
}

static int count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* ---- the tests ------------------------------------------------------------------ */

static void test_replay(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct replay_options o = {.show_duration = 1, .show_tid = 1};
	struct replay *rp = replay_new(f, &o);
	struct walk_consumer c;
	replay_consumer(rp, &c);
	feed(&c);
	replay_free(rp);
	fclose(f);
	const char *want = "           [   100] | main() {\n"
			   "           [   100] |   read@libc.so.6() {\n"
			   "           [   100] |     [syscall] read() {\n"
			   " 40.000 us [   100] |       /* off-CPU: blocked */\n"
			   " 46.000 us [   100] |     } /* [syscall] read */\n"
			   " 49.000 us [   100] |   } /* read@libc.so.6 */\n"
			   "           [   100] |   work() {\n"
			   " 10.000 us [   100] |     /* off-CPU: preempted */\n"
			   " 30.000 us [   100] |   } /* work */\n"
			   "100.000 us [   100] | } /* main */\n";
	CHECK(strstr(text, want) != NULL, "replay:\n%s", text);
	free(text);
}

static void test_json(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	static struct trace_reader r; /* start time 0, no command */
	r.command = "prog";
	struct json_tree *jt = json_tree_new(f, &r, 0);
	struct walk_consumer c;
	json_tree_consumer(jt, &c);
	feed(&c);
	struct walk_stats st = {.shown = NCALLS};
	json_tree_finish(jt, &st);
	json_tree_free(jt);
	fclose(f);
	CHECK(strstr(text, "{\"function\": \"main\", \"address\"") != NULL, "main has no kind:\n%s",
	      text);
	CHECK(strstr(text, "{\"function\": \"read\", \"kind\": \"library\", \"address\"") != NULL,
	      "library kind");
	CHECK(strstr(text, "{\"function\": \"read\", \"kind\": \"syscall\", \"address\"") != NULL,
	      "syscall kind");
	CHECK(count(text, "\"kind\": \"sched\"") == 2, "two off-CPU intervals");
	CHECK(count(text, "\"kind\"") == 4, "kinds only for other kinds");
	free(text);
}

static char *report_text(const struct report_layout *layout)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct report *rp = report_new();
	struct walk_consumer c;
	report_consumer(rp, &c);
	feed(&c);
	report_write(rp, f, layout);
	report_free(rp);
	fclose(f);
	return text;
}

static void test_report(void)
{
	struct report_layout layout = {.sort = SORT_TOTAL};
	char *text = report_text(&layout);
	CHECK(strstr(text, "  Total time      On-CPU   Self time") == text, "On-CPU column:\n%s",
	      text);
	/* main: 100 us less 40 us blocked and 10 us pre-empted inside */
	CHECK(strstr(text, "  100.000 us   50.000 us   21.000 us           1") != NULL, "main:\n%s",
	      text);
	CHECK(strstr(text, "   49.000 us    9.000 us    3.000 us           1  ") != NULL &&
		  strstr(text, "  read@libc.so.6\n") != NULL,
	      "library row");
	CHECK(strstr(text, "   46.000 us    6.000 us    6.000 us           1  ") != NULL &&
		  strstr(text, "  [syscall] read\n") != NULL,
	      "syscall row");
	CHECK(strstr(text, "   40.000 us        0 ns   40.000 us           1  ") != NULL &&
		  strstr(text, "  off-cpu:blocked\n") != NULL,
	      "off-CPU row");
	free(text);

	layout.by_kind = 1;
	text = report_text(&layout);
	const char *fn = strstr(text, "# function: 2 functions, 2 calls, self time 41.000 us\n");
	const char *lib = strstr(text, "# library: 1 function, 1 call, self time 3.000 us\n");
	const char *sys = strstr(text, "# syscall: 1 function, 1 call, self time 6.000 us\n");
	const char *off = strstr(text, "# off-CPU: 2 functions, 2 calls, self time 50.000 us\n");
	CHECK(fn && lib && sys && off && fn < lib && lib < sys && sys < off, "by kind:\n%s", text);
	CHECK(fn && strstr(fn, "  main\n") < lib && strstr(fn, "  work\n") < lib,
	      "functions first");
	free(text);
}

static void test_folded(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct flame_folded *ff = flame_folded_new(f, FOLDED_SELF_NS, 0);
	struct walk_consumer c;
	flame_folded_consumer(ff, &c);
	feed(&c);
	CHECK(flame_folded_finish(ff) == 0, "folded finish");
	flame_folded_free(ff);
	fclose(f);
	const char *want = "main 21000\nmain;read 3000\nmain;read;read_[k] 6000\n"
			   "main;read;read_[k];off-cpu:blocked_[k] 40000\nmain;work 20000\n"
			   "main;work;off-cpu:preempted_[k] 10000\n";
	CHECK(strcmp(text, want) == 0, "folded:\n%s", text);
	free(text);
}

/* The colour class of "#rrggbb": 'w' warm, 'b' blue, 'g' green, 'k' grey
 * (off-CPU's), '?' another. */
static char color_class(const char *hex)
{
	unsigned r, g, b;
	if (sscanf(hex, "#%2x%2x%2x", &r, &g, &b) != 3)
		return '?';
	if (r == g && g == b) /* off-CPU's greys; not the document's own */
		return r >= 170 && r < 180 ? 'k' : '?';
	if (b > r && b > g)
		return 'b';
	if (g > r && g > b)
		return 'g';
	return r > b ? 'w' : '?';
}

static void test_flame_colors(void)
{
	char buf[16];
	CHECK(color_class(view_symbol_color(&sym_main, buf, sizeof(buf))) == 'w', "main warm");
	CHECK(color_class(view_symbol_color(&sym_libread, buf, sizeof(buf))) == 'b', "libc blue");
	CHECK(color_class(view_symbol_color(&sym_sysread, buf, sizeof(buf))) == 'g',
	      "syscall green");
	CHECK(color_class(view_symbol_color(&sym_blocked, buf, sizeof(buf))) == 'k',
	      "off-CPU grey");

	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct flame_merged_options o = {.title = "t"};
	struct flame_merged *fm = flame_merged_new(f, NULL, &o);
	struct walk_consumer c;
	flame_merged_consumer(fm, &c);
	feed(&c);
	CHECK(flame_merged_finish(fm) == 0, "merged finish");
	flame_merged_free(fm);
	fclose(f);
	int classes[128] = {0};
	for (const char *p = text; (p = strstr(p, "<rect ")); p++) {
		const char *fill = strstr(p, "fill=\"#");
		const char *end = strchr(p, '>');
		if (fill && end && fill < end)
			classes[(unsigned char)color_class(fill + 6)]++;
	}
	/* the frames, and one of each in the legend */
	CHECK(strstr(text, "<g id=\"legend\"") != NULL, "a legend");
	CHECK(strstr(text, "<metadata id=\"fcolors\">[\"#") != NULL, "colours for the script");
	CHECK(classes['w'] == 2 + 1 && classes['b'] == 1 + 1 && classes['g'] == 1 + 1 &&
		  classes['k'] == 2 + 1,
	      "frames per colour: warm %d blue %d green %d grey %d", classes['w'], classes['b'],
	      classes['g'], classes['k']);
	free(text);
}

static void test_chrome_and_speedscope(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct chrome_json *cj = chrome_json_new(f, NULL, 0, UINT64_MAX);
	struct walk_consumer c;
	chrome_json_consumer(cj, &c);
	feed(&c);
	CHECK(chrome_json_finish(cj) == 0, "chrome finish");
	chrome_json_free(cj);
	fclose(f);
	CHECK(strstr(text, "{\"name\":\"read\",\"cat\":\"library\",\"ph\":\"X\",\"ts\":1.000,"
			   "\"dur\":49.000,\"pid\":100,\"tid\":100,\"args\":{\"library\":"
			   "\"libc.so.6\",\"file\":\"\",\"line\":0,\"seq\":2}}") != NULL,
	      "library event:\n%s", text);
	CHECK(strstr(text, "{\"name\":\"read\",\"cat\":\"syscall\",\"ph\":\"X\",\"ts\":2.000,") !=
		  NULL,
	      "syscall event");
	CHECK(strstr(text,
		     "{\"name\":\"off-cpu:blocked\",\"cat\":\"sched\",\"ph\":\"X\",\"ts\":3.000,"
		     "\"dur\":40.000,") != NULL,
	      "off-CPU slice");
	CHECK(count(text, "\"cat\":\"function\"") == 2, "the program's own");
	free(text);

	f = open_memstream(&text, &len);
	struct speedscope_json *sj = speedscope_json_new(f, NULL);
	speedscope_json_consumer(sj, &c);
	feed(&c);
	CHECK(speedscope_json_finish(sj) == 0, "speedscope finish");
	speedscope_json_free(sj);
	fclose(f);
	CHECK(strstr(text, "{\"name\":\"read@libc.so.6\"}") &&
		  strstr(text, "{\"name\":\"[syscall] read\"}") &&
		  strstr(text, "{\"name\":\"off-cpu:blocked\"}"),
	      "speedscope frames:\n%s", text);
	free(text);
}

static void test_seq(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct seq_model *m = seq_model_new(SEQ_BY_MODULE, 0);
	struct walk_consumer c;
	seq_model_consumer(m, &c);
	feed(&c);
	seq_model_finish(m);
	CHECK(seq_write_mermaid(m, f) == 0, "mermaid");
	seq_model_free(m);
	fclose(f);
	CHECK(strstr(text, "  participant P0 as start\n  participant P1 as prog\n"
			   "  participant P2 as libc.so.6\n  participant P3 as kernel\n") != NULL,
	      "lifelines:\n%s", text);
	CHECK(strstr(text, "  P0->>+P1: main()\n  P1->>+P2: read()\n  P2->>+P3: read()\n"
			   "  P3->>+P3: off-cpu:blocked\n") != NULL,
	      "calls into the library and the kernel:\n%s", text);
	CHECK(strstr(text, "  P1->>+P3: off-cpu:preempted\n  P3-->>-P1: return\n") != NULL,
	      "pre-empted in work");
	free(text);
}

int main(void)
{
	test_replay();
	test_json();
	test_report();
	test_folded();
	test_flame_colors();
	test_chrome_and_speedscope();
	test_seq();
	return CHECK_SUMMARY("test_views_kinds");
}
