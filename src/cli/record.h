/*
 * record.h - `calltrace record`'s options and its run, which `calltrace
 * live` shares (cmd_record.c).
 */
#ifndef CALLTRACE_CLI_RECORD_H
#define CALLTRACE_CLI_RECORD_H

#include "cli.h"

struct record_options {
	const char *output;
	int replace; /* --replace: a finished trace at output is replaced, not kept */
	uint64_t buffer_size;
	const char *max_depth;
	char time_filter[32]; /* --time-filter: "<ns>ns" for the runtime, "" when not given */
	const char *time_filter_given; /* as given */
	int start_off, quiet;
	int args;		 /* --args */
	const char *args_filter; /* --args=REGEX */
	enum record_engine engine_choice;
	int engine_picked; /* by record (no --engine): each image gets the one that fits it */
	/* --program: only these programs are recorded, joined by ':' for the
	 * runtime (CALLTRACE_PROGRAMS); NULL: every one. */
	char *programs;
	/* The dynamic engines' filters as given, for the in-process one. */
	const char *module, *only, *hide;
	int no_own_libraries;	  /* --no-own-libraries: the program alone, and --module's */
	int no_libcall;		  /* --no-libcall */
	const char *nest_libcall; /* --nest-libcall=LIB[,LIB] */
	struct cli_dynamic engine;
	int syscalls, sched; /* --syscalls, --sched: the kernel's view (src/kernel/) */
	uint64_t ring;	     /* --ring SIZE: the trace a ring of that size; 0: not */
	int no_cache;	     /* --no-cache: the module caches last this recording only */
};

enum {
	RECORD_OPT_DYNAMIC = 0x100,
	RECORD_OPT_BUFFER,
	RECORD_OPT_DEPTH,
	RECORD_OPT_START_OFF,
	RECORD_OPT_ENGINE,
	RECORD_OPT_ARGS,
	RECORD_OPT_PROGRAM,
	RECORD_OPT_REPLACE,
	RECORD_OPT_NO_LIBCALL,
	RECORD_OPT_NEST_LIBCALL,
	RECORD_OPT_SYSCALLS,
	RECORD_OPT_SCHED,
	RECORD_OPT_NO_OWN_LIBRARIES,
	RECORD_OPT_RING,
	RECORD_OPT_TIME_FILTER,
	RECORD_OPT_NO_CACHE
};

/* The options of record but -o and -h, for a getopt_long table. */
#define RECORD_SHORTOPTS "qD:t:" CLI_DYNAMIC_SHORTOPTS
#define RECORD_LONGOPTS                                                                            \
	{"dynamic", no_argument, 0, RECORD_OPT_DYNAMIC},                                           \
	    {"engine", required_argument, 0, RECORD_OPT_ENGINE},                                   \
	    {"buffer-size", required_argument, 0, RECORD_OPT_BUFFER},                              \
	    {"max-depth", required_argument, 0, RECORD_OPT_DEPTH},                                 \
	    {"time-filter", required_argument, 0, RECORD_OPT_TIME_FILTER},                         \
	    {"start-off", no_argument, 0, RECORD_OPT_START_OFF},                                   \
	    {"args", optional_argument, 0, RECORD_OPT_ARGS},                                       \
	    {"program", required_argument, 0, RECORD_OPT_PROGRAM},                                 \
	    {"no-libcall", no_argument, 0, RECORD_OPT_NO_LIBCALL},                                 \
	    {"nest-libcall", required_argument, 0, RECORD_OPT_NEST_LIBCALL},                       \
	    {"syscalls", no_argument, 0, RECORD_OPT_SYSCALLS},                                     \
	    {"sched", no_argument, 0, RECORD_OPT_SCHED},                                           \
	    {"no-own-libraries", no_argument, 0, RECORD_OPT_NO_OWN_LIBRARIES},                     \
	    {"ring", required_argument, 0, RECORD_OPT_RING},                                       \
	    {"no-cache", no_argument, 0, RECORD_OPT_NO_CACHE}, CLI_DYNAMIC_LONGOPTS,               \
	{                                                                                          \
		"quiet", no_argument, 0, 'q'                                                       \
	}
#define RECORD_OPTIONS_HELP                                                                        \
	"      --engine ENGINE    runtime, patch (in-process) or ptrace, instead of the\n"         \
	"                         one picked for each program (runtime: no process is\n"           \
	"                         patched, only the hooks record)\n"                               \
	"      --dynamic          the same as --engine ptrace\n"                                   \
	"      --buffer-size N    bytes per thread window, e.g. 1M (default 1M)\n"                 \
	"      --ring SIZE        flight recorder: the trace never grows past SIZE\n"              \
	"                         (e.g. 64M; plus its headers and records), keeping\n"             \
	"                         each thread's most recent calls; the oldest windows\n"           \
	"                         are reused (see calltrace ctl snapshot; snapshots\n"             \
	"                         need CALLTRACE_SIGNAL); not with --buffer-size\n"                \
	"  -D, --max-depth N      record calls at most N deep\n"                                   \
	"  -t, --time-filter DUR  record only the calls that last at least DUR (e.g.\n"            \
	"                         500us, 20ms, 1s) and the calls they are made from, so\n"         \
	"                         the tree holds (not for the ptrace engine; the arguments\n"      \
	"                         --args captures are left out for them)\n"                        \
	"      --start-off        load with recording off until calltrace_start()\n"               \
	"      --args[=REGEX]     record arguments and return values (types from\n"                \
	"                         DWARF: build with -g), of every function or of those\n"          \
	"                         matching REGEX\n"                                                \
	"      --program GLOB     record only the processes whose program matches GLOB\n"          \
	"                         (its file name, or its path when GLOB has a '/'; as\n"           \
	"                         started, argv[0], or as resolved); repeatable.  The\n"           \
	"                         others run unrecorded, their children still checked.\n"          \
	"                         Default: every process is recorded.  Not for the\n"              \
	"                         ptrace engine\n"                                                 \
	"      --no-follow        record only the process started (across its own\n"               \
	"                         execs): the children it forks or spawns, with or\n"              \
	"                         without exec, run unrecorded.  Default: every child\n"           \
	"                         is followed, each by the engine that fits it\n"                  \
	"      --no-libcall       do not record the calls the program makes into shared\n"         \
	"                         libraries (recorded by default by the runtime and the\n"         \
	"                         in-process engine, at the PLT/GOT slot they go through;\n"       \
	"                         --args adds their values, by built-in prototypes)\n"             \
	"      --nest-libcall LIB[,LIB]  also record the calls these libraries make into\n"        \
	"                         other libraries, beneath the calls into them (LIB: a\n"          \
	"                         file name, or its start: libz, libz.so.1)\n"                     \
	"      --syscalls         also record every system call (arguments, return\n"              \
	"                         value, duration) from the kernel's tracepoints,\n"               \
	"                         nested under the call that made it (root or\n"                   \
	"                         CAP_PERFMON; without them the rest is recorded).\n"              \
	"                         The tracer's own are left out: it marks them with\n"             \
	"                         two unknown system calls (a seccomp filter that\n"               \
	"                         kills on unknown ones kills the program)\n"                      \
	"      --sched            also record when each thread was off the CPU:\n"                 \
	"                         pre-empted, or blocked (in which system call)\n"                 \
	"  -q, --quiet            say nothing on stderr unless something fails\n"                  \
	"  -F, --filter REGEX     record only the calls of functions matching REGEX and\n"         \
	"                         what they call, under every engine\n"                            \
	"  -N, --notrace REGEX    leave out functions matching REGEX (not what they call)\n"       \
	"                         -F/-N match the name report shows (ns::Class::method),\n"        \
	"                         the symbol, or the full name when REGEX has ( or <\n"            \
	"                         A plain name (no regex character) names a function\n"            \
	"                         whole (parse: not parse_all; std:: every function in\n"          \
	"                         std), as in the views\n"                                         \
	"patch and ptrace engines only:\n"                                                         \
	"      --module REGEX     also instrument shared libraries matching REGEX\n"               \
	"      --no-own-libraries the in-process engine records the program alone (and\n"          \
	"                         --module's libraries).  Default: also the shared\n"              \
	"                         libraries and plugins that are the program's own,\n"             \
	"                         those outside /lib, /usr/lib, /usr/local/lib and the\n"          \
	"                         folders below them (-v says which, and why); the\n"              \
	"                         calls into system libraries are library calls\n"                 \
	"      --no-cache         keep what the in-process engine learns of each module\n"         \
	"                         (its functions, their entries decoded, which ran) for\n"         \
	"                         this recording only.  Default: kept for the next\n"              \
	"                         ones too, in $XDG_CACHE_HOME/calltrace (else\n"                  \
	"                         ~/.cache/calltrace), at most 256 MiB, the oldest\n"              \
	"                         files removed first\n"                                           \
	"  -v, --verbose          say which engine and what it did (patches, stops)\n"

void record_options_init(struct record_options *o);
void record_options_free(struct record_options *o);
/* Stores one of the options above: 0, -1 after an error, 1 when `opt` is
 * none of them. */
int record_option(struct record_options *o, int opt, const char *arg);
/* Records PROGRAM (argv[first]...) into o->output: its exit status (128 +
 * signal if a signal killed it), or 2, 126, 127 after saying why it could
 * not. */
int record_run(struct record_options *o, char **argv, int first);

/* The folder of per-module caches the in-process engine shares between
 * processes (record_cache.c): the lasting one of the runtime at `runtime`
 * when `lasting` (kept, trimmed to its size bound by close), else the
 * recording's own (removed with its files by close); named to the runtime.
 * dir is NULL when there is none. */
struct record_cache {
	char *dir;
	int lasting;
};
void record_cache_open(struct record_cache *c, const char *runtime, int lasting);
void record_cache_close(struct record_cache *c);
/* record_cache_lasting.c: the user's cache folder for the runtime at
 * `runtime` (made when missing), or NULL when there is none to be had
 * safely; and the trimming of all such folders to their size bound. */
char *record_cache_lasting_open(const char *runtime);
void record_cache_lasting_trim(const char *dir);

/* --syscalls, --sched (record_kernel.c): the kernel collector for the
 * threads `tids` and what they start (from their next exec when
 * `from_exec`), or NULL after saying in one line why not (or when neither
 * is asked for). */
struct kernel_collector;
/* Before the trace is created: its clock must be one the kernel's times
 * convert to exactly (kernel_collector_pick_clock). */
void record_kernel_clock(int syscalls, int sched, int verbose);
struct kernel_collector *record_kernel_start(struct trace_session *s, int syscalls, int sched,
					     int verbose, const pid_t *tids, int ntids,
					     int from_exec);
/* Stops it (NULL: nothing) and says what it recorded unless `quiet`. */
void record_kernel_stop(struct kernel_collector *kc, int quiet);

#endif
