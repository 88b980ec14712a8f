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
 *   NS exit [RET [ERRNO]]  the innermost open call ends; with RET, its
 *                          return value (EV_RETVAL: 8 bytes), and a failed
 *                          library call's errno (4 bytes) after it; a
 *                          system call's RET is its raw return (-errno)
 *   NS load LIBRARY [BIAS] the shared library LIBRARY (a path) is loaded at
 *                          load bias BIAS (hex; by default the next free
 *                          place after 0x7f0000000000)
 *   NS libcall NAME [ARG...]  a library call of NAME through PROGRAM's GOT
 *                          slot for NAME (its JUMP_SLOT or GLOB_DAT
 *                          relocation: PROGRAM calls NAME)
 *   NS dlcall NAME [ARG...]   a library call of NAME through a pointer (as
 *                          dlsym returns): NAME's own address in the first
 *                          library loaded that defines it
 *   NS syscall NR [ARG...] system call NR (of x86-64) begins, with up to six
 *                          raw argument registers (numbers; the rest 0)
 *   NS offcpu REASON       the thread leaves the CPU: preempted or blocked
 *   NS mark TEXT           a mark, as calltrace_mark() writes it
 *   NS end STATUS          the process exits with STATUS (calls still open
 *                          stay unfinished); the last line
 *
 * A library call's ARGs are its raw argument values, in the order of its
 * prototype: a number (decimal, 0x hex, negative) is 8 bytes, "TEXT" a
 * string, null a NULL string.  It ends with an `exit` as any call.
 *
 * System calls and off-CPU intervals are events the kernel sees: they go
 * into the thread's CHUNK_KERNEL chunks (format/kernel_stream.h), written
 * when the process ends, and end with an `exit` as any call.
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
#include "../../../src/format/kernel_stream.h"
#include "../../../src/format/trace_writer.h"

#define START_NS 1000000000ull /* the clock at the start: never 0 */
#define MAX_THREADS 64
#define MAX_LIBRARIES 16
#define MAX_OPEN 4096 /* calls open at once in a thread */
#define FIRST_LIBRARY_BIAS 0x7f0000000000ull

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

/* ---- the program's functions and the libraries' ------------------------------ */

struct elf_file {
	Elf *elf;
	int fd;
	const char *path;
	uint64_t low, high; /* its PT_LOAD segments (file addresses) */
	uint64_t bias;	    /* runtime address - file address */
};

static void elf_file_open(struct elf_file *p, const char *path, int type)
{
	GElf_Ehdr eh;
	size_t nph;
	elf_version(EV_CURRENT);
	p->path = path;
	p->fd = open(path, O_RDONLY);
	if (p->fd < 0)
		die("cannot open %s: %s", path, strerror(errno));
	p->elf = elf_begin(p->fd, ELF_C_READ, NULL);
	if (!p->elf || !gelf_getehdr(p->elf, &eh) || elf_getphdrnum(p->elf, &nph) != 0)
		die("%s is not an ELF file", path);
	if (type == ET_EXEC && eh.e_type != ET_EXEC)
		die("%s is not built with -no-pie: its addresses are not known before it runs",
		    path);
	if (type == ET_DYN && eh.e_type != ET_DYN)
		die("%s is not a shared library", path);
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

/* The file address of the function `name` defined in the symbol table of
 * type `table` (SHT_SYMTAB, SHT_DYNSYM), or 0. */
static uint64_t elf_function(const struct elf_file *p, const char *name, uint32_t table)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(p->elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != table || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 1; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *s;
			int type;
			if (gelf_getsym(data, (int)i, &sym) &&
			    ((type = GELF_ST_TYPE(sym.st_info)) == STT_FUNC ||
			     type == STT_GNU_IFUNC) &&
			    sym.st_value && sym.st_shndx != SHN_UNDEF &&
			    (s = elf_strptr(p->elf, sh.sh_link, sym.st_name)) &&
			    strcmp(s, name) == 0)
				return sym.st_value;
		}
	}
	return 0;
}

/* The address of function `name` in the program's symbol table. */
static uint64_t program_function(const struct elf_file *p, const char *name)
{
	uint64_t address = elf_function(p, name, SHT_SYMTAB);
	if (!address)
		die("no function %s in the program", name);
	return address;
}

/* The address of the program's GOT slot for `name`: the r_offset of its
 * JUMP_SLOT or GLOB_DAT relocation. */
static uint64_t program_got_slot(const struct elf_file *p, const char *name)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(p->elf, scn)) != NULL) {
		GElf_Shdr sh, symsh;
		Elf_Data *data, *syms;
		Elf_Scn *symscn;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)) ||
		    !(symscn = elf_getscn(p->elf, sh.sh_link)) || !gelf_getshdr(symscn, &symsh) ||
		    !(syms = elf_getdata(symscn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rela r;
			GElf_Sym sym;
			const char *s;
			if (!gelf_getrela(data, (int)i, &r) ||
			    (GELF_R_TYPE(r.r_info) != R_X86_64_JUMP_SLOT &&
			     GELF_R_TYPE(r.r_info) != R_X86_64_GLOB_DAT) ||
			    !gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &sym))
				continue;
			if ((s = elf_strptr(p->elf, symsh.sh_link, sym.st_name)) &&
			    strcmp(s, name) == 0)
				return r.r_offset;
		}
	}
	die("the program has no GOT slot for %s (does it call it?)", name);
}

/* ---- the script ---------------------------------------------------------------- */

/* A thread: the events it writes itself, the ones the kernel saw (CHUNK_KERNEL),
 * and which of its open calls are the kernel's, innermost last. */
struct thread_gen {
	struct trace_stream stream;
	struct kernel_stream kernel;
	int kernel_started;
	uint8_t open_as[MAX_OPEN]; /* OPEN_* */
	uint32_t open;
};

struct generator {
	struct elf_file program;
	struct elf_file libraries[MAX_LIBRARIES];
	size_t nlibraries;
	uint64_t next_bias;
	const char *program_path;
	const char *out_path;
	struct trace_session session;
	int started;
	struct thread_gen threads[MAX_THREADS];
	size_t nthreads;
	struct thread_gen *current;  /* the thread the events go to */
	struct trace_stream *thread; /* its own stream */
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
	for (size_t i = 0; i < g->nthreads; i++) {
		if (g->threads[i].stream.tid == tid) {
			g->current = &g->threads[i];
			g->thread = &g->current->stream;
			return;
		}
	}
	if (g->nthreads == MAX_THREADS)
		die("more than %d threads", MAX_THREADS);
	g->current = &g->threads[g->nthreads++];
	g->thread = &g->current->stream;
	if (trace_stream_init(g->thread, &g->session, tid) < 0 ||
	    trace_write_thread(&g->session, tid, THREAD_START, name) < 0)
		die("cannot start thread %u: %s", tid, strerror(errno));
}

static void end_process(struct generator *g, int status)
{
	for (size_t i = 0; i < g->nthreads; i++) {
		struct thread_gen *t = &g->threads[i];
		trace_stream_destroy(&t->stream);
		if (t->kernel_started && kernel_stream_flush(&t->kernel) < 0)
			die("cannot write the kernel events of thread %u", t->stream.tid);
		if (t->kernel_started)
			kernel_stream_fini(&t->kernel);
	}
	if (trace_write_process(&g->session, PROCESS_EXIT, 0, 0, status, NULL, NULL, 0) < 0)
		die("cannot write %s: %s", g->out_path, strerror(errno));
	trace_session_close(&g->session);
	g->started = 0;
}

/* ---- values and library calls -------------------------------------------------- */

/* The next token of *p: a word, or a "quoted string" (quoted: 1); NULL at
 * the end. */
static char *next_token(char **p, int *quoted)
{
	char *s = *p + strspn(*p, " \t"), *end;
	*quoted = *s == '"';
	if (*s == '\0')
		return NULL;
	if (*quoted) {
		end = strchr(++s, '"');
		if (!end)
			die("a string without its closing '\"'");
	} else {
		end = s + strcspn(s, " \t");
	}
	*p = *end ? end + 1 : end;
	*end = '\0';
	return s;
}

static long long parse_number(const char *s)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 0);
	if (errno || end == s || *end)
		die("not a number: %s", s);
	return v;
}

/* Tagged values (format/trace_format.h) of the tokens of `p` into out;
 * returns their length.  The second number of an exit (errno) is 4 bytes. */
static uint32_t encode_tokens(char *p, uint8_t *out, size_t room, int errno_second)
{
	uint8_t *o = out;
	int quoted;
	unsigned n = 0;
	for (char *t; (t = next_token(&p, &quoted)) != NULL; n++) {
		size_t len = quoted ? strlen(t) : errno_second && n == 1 ? 4 : 8;
		if ((size_t)(o - out) + len + 16 > room)
			die("too many values");
		if (!quoted && strcmp(t, "null") == 0) {
			*o++ = VALUE_NULL;
			continue;
		}
		if (quoted) {
			int cut = len > TRACE_STRING_MAX;
			len = cut ? TRACE_STRING_MAX : len;
			*o++ = cut ? VALUE_STRING_CUT : VALUE_STRING;
			o = encode_varint(o, len);
			memcpy(o, t, len);
		} else {
			long long v = parse_number(t);
			*o++ = VALUE_BYTES;
			o = encode_varint(o, len);
			memcpy(o, &v, len); /* little-endian */
		}
		o += len;
	}
	return (uint32_t)(o - out);
}

static void load_library(struct generator *g, char *args)
{
	int quoted;
	char *path = next_token(&args, &quoted), *bias = next_token(&args, &quoted);
	if (!path)
		die("load: no LIBRARY");
	if (g->nlibraries == MAX_LIBRARIES)
		die("more than %d libraries", MAX_LIBRARIES);
	struct elf_file *lib = &g->libraries[g->nlibraries++];
	char *real = realpath(path, NULL);
	if (!real)
		die("cannot open %s: %s", path, strerror(errno));
	elf_file_open(lib, real, ET_DYN);
	lib->bias = bias ? (uint64_t)parse_number(bias) : g->next_bias;
	g->next_bias = (lib->bias + lib->high + 0xfffffff) & ~0xfffffffull;
	if (trace_write_module(&g->session, MODULE_LOAD, lib->bias, lib->bias + lib->low,
			       lib->bias + lib->high, NULL, 0, real) < 0)
		die("cannot write %s: %s", g->out_path, strerror(errno));
}

/* The runtime address of `name` in the first library loaded that defines it. */
static uint64_t library_function(const struct generator *g, const char *name)
{
	for (size_t i = 0; i < g->nlibraries; i++) {
		uint64_t address = elf_function(&g->libraries[i], name, SHT_DYNSYM);
		if (address)
			return g->libraries[i].bias + address;
	}
	die("no library loaded defines %s", name);
}

/* Notes a call entered: by the thread itself, or seen by the kernel. */
enum { OPEN_OWN, OPEN_SYSCALL, OPEN_OFFCPU };
static void opened(struct generator *g, int how)
{
	struct thread_gen *t = g->current;
	if (t->open == MAX_OPEN)
		die("more than %d calls open", MAX_OPEN);
	t->open_as[t->open++] = (uint8_t)how;
}

/* A call of `address` with the values of the tokens in `args`. */
static int enter_with_values(struct generator *g, uint64_t address, char *args)
{
	uint8_t values[TRACE_VALUES_MAX];
	uint32_t len = encode_tokens(args, values, sizeof(values), 0);
	if (trace_stream_make_room(g->thread, len + 16, now_ns) < 0 ||
	    trace_stream_enter(g->thread, address, now_ns, 0) < 0)
		return -1;
	opened(g, OPEN_OWN);
	return len ? trace_stream_values(g->thread, EV_ARGS, values, len) : 0;
}

static struct kernel_stream *kernel_of(struct generator *g)
{
	struct thread_gen *t = g->current;
	if (!t->kernel_started &&
	    kernel_stream_init(&t->kernel, &g->session, g->session.pid, t->stream.tid, 0) < 0)
		die("cannot start the kernel events of thread %u: %s", t->stream.tid,
		    strerror(errno));
	t->kernel_started = 1;
	return &t->kernel;
}

/* NS syscall NR [ARG...]: up to six raw argument registers. */
static int enter_syscall(struct generator *g, const char *nr, char *args)
{
	uint64_t regs[6] = {0};
	int quoted;
	char *t;
	for (int i = 0; (t = next_token(&args, &quoted)) != NULL; i++) {
		if (i == 6 || quoted)
			die("syscall: at most six numbers after NR");
		regs[i] = (uint64_t)parse_number(t);
	}
	opened(g, OPEN_SYSCALL);
	return kernel_stream_syscall_enter(kernel_of(g), (uint32_t)parse_number(nr), now_ns, regs);
}

static int enter_offcpu(struct generator *g, const char *reason)
{
	uint32_t r = strcmp(reason, "preempted") == 0 ? OFFCPU_PREEMPTED
		     : strcmp(reason, "blocked") == 0 ? OFFCPU_BLOCKED
						      : (uint32_t)parse_number(reason);
	opened(g, OPEN_OFFCPU);
	return kernel_stream_offcpu_enter(kernel_of(g), r, now_ns);
}

/* The innermost open call ends: the thread's own or the kernel's. */
static int exit_with_values(struct generator *g, char *args)
{
	struct thread_gen *t = g->current;
	uint8_t opened_as = t->open_as[--t->open];
	if (opened_as == OPEN_OFFCPU)
		return kernel_stream_offcpu_exit(&t->kernel, now_ns);
	if (opened_as == OPEN_SYSCALL) {
		int quoted;
		char *ret = next_token(&args, &quoted);
		return kernel_stream_syscall_exit(&t->kernel, now_ns, ret ? parse_number(ret) : 0);
	}
	uint8_t values[64];
	uint32_t len = encode_tokens(args, values, sizeof(values), 1);
	if (trace_stream_make_room(g->thread, len + 16, now_ns) < 0 ||
	    trace_stream_exit(g->thread, g->thread->open_calls[g->thread->depth - 1].address,
			      now_ns) < 0)
		return -1;
	return len ? trace_stream_values(g->thread, EV_RETVAL, values, len) : 0;
}

/* ---- the script's lines ------------------------------------------------------------ */

/* One line of the script, its time already read and set. */
static void run_event(struct generator *g, const char *what, char *rest)
{
	char text[TRACE_MARK_MAX + 1];
	snprintf(text, sizeof(text), "%s", rest);
	char *args = rest;
	int quoted;
	char *arg = next_token(&args, &quoted);
	if (strcmp(what, "thread") == 0) {
		char *name = args + strspn(args, " \t");
		if (!arg)
			die("thread: no TID");
		select_thread(g, (uint32_t)strtoul(arg, NULL, 10), name);
		return;
	}
	if (strcmp(what, "load") == 0 && g->started) {
		load_library(g, text);
		return;
	}
	if (!g->thread)
		die("%s before any thread", what);
	int rc = 0;
	if (strcmp(what, "enter") == 0 && arg)
		rc = enter_with_values(g, program_function(&g->program, arg), args);
	else if (strcmp(what, "libcall") == 0 && arg)
		rc = enter_with_values(
		    g, TRACE_CALL_ADDRESS(CALL_LIBRARY, program_got_slot(&g->program, arg)), args);
	else if (strcmp(what, "dlcall") == 0 && arg)
		rc = enter_with_values(
		    g, TRACE_CALL_ADDRESS(CALL_LIBRARY, library_function(g, arg)), args);
	else if (strcmp(what, "syscall") == 0 && arg)
		rc = enter_syscall(g, arg, args);
	else if (strcmp(what, "offcpu") == 0 && arg)
		rc = enter_offcpu(g, arg);
	else if (strcmp(what, "exit") == 0 && g->current->open)
		rc = exit_with_values(g, text);
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
		if (!g->started && g->nthreads)
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
	elf_file_open(&g.program, argv[2], ET_EXEC);
	g.next_bias = FIRST_LIBRARY_BIAS;
	run_script(&g, stdin);
	return 0;
}
