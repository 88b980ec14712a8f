/*
 * trace_gen.c - writes a trace with chosen timestamps through the format's
 * own writer, for the tests of views whose layout depends on how long calls
 * took: the durations are the test's, whatever the machine's speed or load.
 *
 *   trace_gen OUT.trace PROGRAM < SCRIPT
 *
 * PROGRAM is an ELF executable built with -no-pie (it never runs): the calls
 * of the script are calls of its functions, named by its symbol table.  The
 * trace is one process running PROGRAM.  SCRIPT has one event a line, its
 * time in nanoseconds from the start first, never decreasing:
 *
 *   NS thread TID [NAME]   the events that follow are thread TID's (the
 *                          first thread named is the process's main one)
 *   NS enter FUNCTION      a call of FUNCTION begins
 *   NS exit                the innermost open call ends
 *   NS mark TEXT           a mark, as calltrace_mark() writes it
 *   NS end STATUS          the process exits with STATUS (calls still open
 *                          stay unfinished); the last line
 *
 * Empty lines and lines starting with '#' are skipped.  The writer reads the
 * clock through clock_gettime(CLOCK_MONOTONIC): this program defines that
 * function, so that every time the writer stamps is the script's.  It links
 * the writer from libcalltrace.a (tests/e2e/lib.sh: gen_trace).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "../../../src/format/trace_writer.h"

#define START_NS 1000000000ull /* the clock at the start: never 0 */
#define MAX_THREADS 64

static uint64_t now_ns = START_NS;
static unsigned line_no;

/* The writer's clock: the script's time; any other clock is the real one. */
int clock_gettime(clockid_t id, struct timespec *ts)
{
	if (id != CLOCK_MONOTONIC)
		return (int)syscall(SYS_clock_gettime, id, ts);
	ts->tv_sec = (time_t)(now_ns / 1000000000u);
	ts->tv_nsec = (long)(now_ns % 1000000000u);
	return 0;
}

static __attribute__((noreturn, format(printf, 1, 2))) void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("trace_gen: ", stderr);
	if (line_no)
		fprintf(stderr, "line %u: ", line_no);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

/* ---- the program's functions ------------------------------------------------ */

struct program {
	Elf *elf;
	int fd;
	uint64_t low, high; /* its PT_LOAD segments */
};

static void program_open(struct program *p, const char *path)
{
	GElf_Ehdr eh;
	size_t nph;
	elf_version(EV_CURRENT);
	p->fd = open(path, O_RDONLY);
	if (p->fd < 0)
		die("cannot open %s: %s", path, strerror(errno));
	p->elf = elf_begin(p->fd, ELF_C_READ, NULL);
	if (!p->elf || !gelf_getehdr(p->elf, &eh) || elf_getphdrnum(p->elf, &nph) != 0)
		die("%s is not an ELF file", path);
	if (eh.e_type != ET_EXEC)
		die("%s is not built with -no-pie: its addresses are not known before it runs",
		    path);
	p->low = UINT64_MAX;
	p->high = 0;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(p->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		p->low = ph.p_vaddr < p->low ? ph.p_vaddr : p->low;
		p->high = ph.p_vaddr + ph.p_memsz > p->high ? ph.p_vaddr + ph.p_memsz : p->high;
	}
	if (p->high <= p->low)
		die("%s has no loadable segment", path);
}

/* The address of function `name` in the program's symbol table. */
static uint64_t program_function(const struct program *p, const char *name)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(p->elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 1; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *s;
			if (gelf_getsym(data, (int)i, &sym) &&
			    GELF_ST_TYPE(sym.st_info) == STT_FUNC && sym.st_value &&
			    (s = elf_strptr(p->elf, sh.sh_link, sym.st_name)) &&
			    strcmp(s, name) == 0)
				return sym.st_value;
		}
	}
	die("no function %s in the program", name);
}

/* ---- the script ---------------------------------------------------------------- */

struct generator {
	struct program program;
	const char *program_path;
	const char *out_path;
	struct trace_session session;
	int started;
	struct trace_stream streams[MAX_THREADS];
	size_t nstreams;
	struct trace_stream *thread; /* the one the events go to */
};

static void start_process(struct generator *g, uint32_t pid)
{
	const char *cmd = g->program_path;
	size_t cmd_len = strlen(cmd) + 1;
	if (trace_session_create(&g->session, g->out_path, cmd, cmd_len, 0) < 0)
		die("cannot create %s: %s", g->out_path, strerror(errno));
	trace_session_new_image(&g->session, pid);
	if (trace_write_process(&g->session, PROCESS_START, 0, 1, 0, cmd, cmd, cmd_len) < 0 ||
	    trace_write_module(&g->session, MODULE_LOAD, 0, g->program.low, g->program.high, NULL,
			       0, g->program_path) < 0)
		die("cannot write %s: %s", g->out_path, strerror(errno));
	g->started = 1;
}

static void select_thread(struct generator *g, uint32_t tid, const char *name)
{
	if (!g->started)
		start_process(g, tid);
	for (size_t i = 0; i < g->nstreams; i++) {
		if (g->streams[i].tid == tid) {
			g->thread = &g->streams[i];
			return;
		}
	}
	if (g->nstreams == MAX_THREADS)
		die("more than %d threads", MAX_THREADS);
	g->thread = &g->streams[g->nstreams++];
	if (trace_stream_init(g->thread, &g->session, tid) < 0 ||
	    trace_write_thread(&g->session, tid, THREAD_START, name) < 0)
		die("cannot start thread %u: %s", tid, strerror(errno));
}

static void end_process(struct generator *g, int status)
{
	for (size_t i = 0; i < g->nstreams; i++)
		trace_stream_destroy(&g->streams[i]);
	if (trace_write_process(&g->session, PROCESS_EXIT, 0, 0, status, NULL, NULL, 0) < 0)
		die("cannot write %s: %s", g->out_path, strerror(errno));
	trace_session_close(&g->session);
	g->started = 0;
}

/* One line of the script, its time already read and set. */
static void run_event(struct generator *g, const char *what, char *rest)
{
	char text[TRACE_MARK_MAX + 1];
	snprintf(text, sizeof(text), "%s", rest);
	char *arg = strtok(rest, " \t");
	if (strcmp(what, "thread") == 0) {
		char *name = strtok(NULL, "");
		if (!arg)
			die("thread: no TID");
		select_thread(g, (uint32_t)strtoul(arg, NULL, 10), name ? name : "");
		return;
	}
	if (!g->thread)
		die("%s before any thread", what);
	int rc = 0;
	if (strcmp(what, "enter") == 0 && arg)
		rc = trace_stream_enter(g->thread, program_function(&g->program, arg), now_ns, 0);
	else if (strcmp(what, "exit") == 0 && g->thread->depth)
		rc = trace_stream_exit(g->thread,
				       g->thread->open_calls[g->thread->depth - 1].address, now_ns);
	else if (strcmp(what, "mark") == 0 && arg)
		rc = trace_stream_mark(g->thread, now_ns, text);
	else if (strcmp(what, "end") == 0 && arg)
		end_process(g, atoi(arg));
	else
		die("cannot do '%s' here", what);
	if (rc < 0)
		die("cannot write %s: the event was dropped", g->out_path);
}

static void run_script(struct generator *g, FILE *in)
{
	char line[4096], what[16];
	int consumed;
	unsigned long long ns;
	while (fgets(line, sizeof(line), in)) {
		line_no++;
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;
		if (!g->started && g->nstreams)
			die("an event after 'end'");
		if (sscanf(line, "%llu %15s %n", &ns, what, &consumed) != 2)
			die("not 'NS EVENT [ARG]': %s", line);
		if (START_NS + ns < now_ns)
			die("time %llu goes back", ns);
		now_ns = START_NS + ns;
		run_event(g, what, line + consumed);
	}
	line_no = 0;
	if (g->started)
		die("the script has no 'end' line");
}

int main(int argc, char **argv)
{
	static struct generator g;
	if (argc != 3)
		die("usage: trace_gen OUT.trace PROGRAM < SCRIPT");
	/* Ticks are nanoseconds of CLOCK_MONOTONIC, which is the script's. */
	setenv("CALLTRACE_CLOCK", "monotonic", 1);
	g.out_path = argv[1];
	g.program_path = realpath(argv[2], NULL);
	if (!g.program_path)
		die("cannot open %s: %s", argv[2], strerror(errno));
	program_open(&g.program, argv[2]);
	run_script(&g, stdin);
	return 0;
}
