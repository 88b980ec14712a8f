/*
 * cli.h - what the subcommands share: option parsing for the trace file and
 * the filters, output files, and error reporting.
 */
#ifndef CALLTRACE_CLI_H
#define CALLTRACE_CLI_H

#include <stdio.h>
#include "../analysis/progress.h"
#include "../analysis/walker.h"
#include "../ptrace/dynamic.h"
#include "../format/trace_reader.h"
#include "../symbols/symbols.h"

#define DEFAULT_TRACE "calltrace.trace"

/* An open trace with its symbols and the filters given on the command line. */
struct cli_trace {
	struct trace_reader *reader;
	struct symbol_table *symbols;
	struct walk_filters filters;
	regex_t only_re, hide_re;
	int problems_reported;
	/* For the progress line: the walks the command will make (0: one), made
	 * so far, and the events the last one read. */
	unsigned passes, walks_done;
	uint64_t events_seen;
};

/* Prints "calltrace: <message>" to stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Common options of the reading commands.  cli_filter_option() handles one
 * getopt_long result: returns 1 if it was a filter option (and stores it),
 * 0 if not, -1 on a bad value (error already printed).  CLI_FILTER_LONGOPTS
 * goes into a long-options table; CLI_FILTER_SHORTOPTS into the short ones.
 */
#define CLI_FILTER_SHORTOPTS                                                                       \
	"F:N:D:t:" /* put ":" first, before it, to get ':' for a                                   \
			  missing argument */
#define CLI_OPT_TID 0x1001
#define CLI_OPT_PID 0x1002
#define CLI_OPT_KIND 0x1005
#define CLI_OPT_FROM 0x1006
#define CLI_OPT_TO 0x1007
#define CLI_OPT_DEMANGLE 0x1016
#define CLI_FILTER_LONGOPTS                                                                        \
	{"filter", required_argument, 0, 'F'}, {"notrace", required_argument, 0, 'N'},             \
	    {"demangle", required_argument, 0, CLI_OPT_DEMANGLE},                                  \
	    {"depth", required_argument, 0, 'D'}, {"time-filter", required_argument, 0, 't'},      \
	    {"tid", required_argument, 0, CLI_OPT_TID},                                            \
	    {"kind", required_argument, 0, CLI_OPT_KIND},                                          \
	    {"from", required_argument, 0, CLI_OPT_FROM},                                          \
	    {"to", required_argument, 0, CLI_OPT_TO},                                              \
	{                                                                                          \
		"pid", required_argument, 0, CLI_OPT_PID                                           \
	}
#define CLI_FILTER_HELP                                                                            \
	"  -F, --filter REGEX     only the calls of matching functions and below: the\n"           \
	"                         regex is matched against the shown, the full and the\n"          \
	"                         mangled name; a name exactly as a view shows it\n"               \
	"                         (\"area(double)\", \"helper (a.c)\") selects that function\n"    \
	"                         alone; a plain name (no regex character) names a\n"              \
	"                         function whole (parse: not parse_all; Parser::parse:\n"          \
	"                         shop::Parser::parse; std:: every function in std)\n"             \
	"  -N, --notrace REGEX    hide matching functions (their callees stay); names\n"           \
	"                         as with -F\n"                                                    \
	"      --demangle=MODE    how functions are named: simple (the default: scope\n"           \
	"                         and name, \"std::vector::push_back\"), full (demangled\n"        \
	"                         with parameters and template arguments), no (mangled)\n"         \
	"  -D, --depth N          show at most N levels of calls\n"                                \
	"  -t, --time-filter DUR  hide calls shorter than DUR (e.g. 10us, 2ms)\n"                  \
	"      --tid TID[,TID]    only these threads\n"                                            \
	"      --pid PID[,PID]    only these processes\n"                                          \
	"      --kind KIND[,KIND] only calls of these kinds (function, library, syscall,\n"        \
	"                         offcpu); --kind=-offcpu: all but off-CPU intervals;\n"           \
	"                         the callees of hidden calls stay, as with -N\n"                  \
	"      --from TIME        only calls running at or after TIME since the\n"                 \
	"                         session started (e.g. 1.5s, 200ms)\n"                            \
	"      --to TIME          only calls that began at or before TIME\n"

int cli_filter_option(struct cli_trace *t, int opt, const char *arg);

/* Compiles `arg` (extended regex) into *re and points *slot at it; an error
 * names `opt`.  0, or -1 after printing the error (also if *slot is set). */
int cli_compile_regex(regex_t *re, regex_t **slot, const char *arg, const char *opt);

/* Opens the trace named by argv[optind] (or DEFAULT_TRACE when there is
 * none); 0, or -1 after printing the error (and freeing the filters).  More
 * than one name is an error. */
int cli_trace_open(struct cli_trace *t, int argc, char **argv, int optind);
void cli_trace_close(struct cli_trace *t);

/* Walks with the command's filters; once the walk is done, warns (once)
 * when the record is incomplete (cli_warn_incomplete). */
int cli_trace_walk(struct cli_trace *t, const struct walk_consumer *c, struct walk_stats *stats);

/*
 * What the record lacks, as every reading command says it: "3 windows lost
 * (disk full, or ulimit -f?), 1 corrupt region, 12 calls unfinished" into
 * buf.  1 when the trace is incomplete, 0 (and "") when nothing is known
 * lost: then the calls left open at the end are the program's own (exit,
 * kill, crash).
 * `st` (may be NULL) is the walk's: its unfinished calls are counted.
 */
int cli_describe_losses(const struct trace_reader *r, const struct walk_stats *st, char *buf,
			size_t len);
/* "calltrace: warning: trace incomplete: ...; see 'calltrace info TRACE'"
 * on stderr when the record is incomplete. */
void cli_warn_incomplete(const struct trace_reader *r, const struct walk_stats *st);

/*
 * The options every reading command shares, for its getopt loop: the
 * filters, -o FILE (stored in *output), -h (prints usage to stdout) and bad
 * options (one error line).  Returns CLI_OPTION_TAKEN (go on), CLI_OPTION_OWN
 * (the command's own option), or the exit status to return now.
 */
#define CLI_OPTION_OWN (-1)
#define CLI_OPTION_TAKEN (-2)
int cli_shared_option(struct cli_trace *t, int opt, const char *arg, const char **output,
		      void (*usage)(FILE *), const char *command, int argc, char **argv);

/*
 * The rest of a reading command: opens the trace (argv[optind]) and the
 * output, lets `write` walk and write (it returns 0, or -1 after saying
 * why), closes both.  With `announce`, says where a file went.  Returns the
 * exit status.
 */
typedef int (*cli_view_writer)(struct cli_trace *t, FILE *out, void *ctx);
int cli_run_view(struct cli_trace *t, int argc, char **argv, const char *output, int announce,
		 cli_view_writer write, void *ctx);

/* A whole reading command with no options of its own: the shared options,
 * then cli_run_view.  The exit status. */
int cli_view_command(int argc, char **argv, const char *command, void (*usage)(FILE *),
		     cli_view_writer write);

/* cmd_crash.c: the crash report of TRACE on stderr ("calltrace: " lines),
 * then where to see it again; nothing when the trace holds no crash. */
void cli_say_crashes(const char *trace);

/* big_output.c: the size of a view's output estimated from the trace's
 * (bytes_per_call: what the view writes for a call), and a warning on
 * stderr, before writing, when an unfiltered output would be too big for
 * browsers and Perfetto's UI (about 1 GB), naming the filters that cut it
 * (`cuts`: the command's own first, e.g. "--from/--to, ", or NULL). */
double cli_estimate_output(const struct cli_trace *t, double bytes_per_call);
void cli_warn_big_output(const struct cli_trace *t, const char *what, double bytes_per_call,
			 const char *cuts);

/* The dynamic engine's options, shared by record and attach. */
struct cli_dynamic {
	struct dynamic_options dyn;
	regex_t module_re, only_re, hide_re, args_re;
};
#define CLI_OPT_MODULE 0x1003
#define CLI_OPT_NO_FOLLOW 0x1004
#define CLI_DYNAMIC_SHORTOPTS "F:N:v"
#define CLI_DYNAMIC_LONGOPTS                                                                       \
	{"module", required_argument, 0, CLI_OPT_MODULE}, {"filter", required_argument, 0, 'F'},   \
	    {"notrace", required_argument, 0, 'N'},                                                \
	    {"no-follow", no_argument, 0, CLI_OPT_NO_FOLLOW},                                      \
	{                                                                                          \
		"verbose", no_argument, 0, 'v'                                                     \
	}
/* 1 when `opt` was one of them (stored), 0 when not, -1 on a bad value. */
int cli_dynamic_option(struct cli_dynamic *d, int opt, const char *arg);
void cli_dynamic_free(struct cli_dynamic *d);

/* The runtime library next to this calltrace (../lib/, ../lib/calltrace/)
 * or CALLTRACE_RUNTIME, into `path`; 0, or -1 when there is none. */
int cli_find_runtime(char *path, size_t len);

/* After trace_session_create: one line when the trace did not simply go to
 * `asked` (trace_session_placement). */
void cli_say_placement(const struct trace_session *s, const char *asked);
/* Closes `fd` (-1: nothing) in a thread of its own: the last close of a
 * replaced trace frees its blocks, which can take tens of milliseconds
 * the recording need not wait for. */
void cli_close_in_background(int fd);

/* Opens `path` for writing ("-" or NULL: stdout); NULL after an error. */
FILE *cli_output_open(const char *path);
/* Closes it, reporting a write error; 0 or -1. */
int cli_output_close(FILE *f, const char *path);

/* Appends printf-style to the NUL-terminated text in `buf` (of `size`
 * bytes), cut where it is full. */
void cli_append(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* After getopt_long returned '?' or ':': one line naming the bad option
 * (main() turns getopt's own messages off).  Returns 2, the exit status. */
int cli_bad_option(const char *command, int argc, char **argv);

/* Parses "10us", "2ms", "1.5s", "2e3ms", "300" (ns), exactly (rounded to
 * the nearest ns).  -2 when it is longer than CLI_DURATION_MAX (no call
 * lasts that long: 1e30s, 99999999999999999999); -1 on anything else: inf,
 * a sign, hex, nan, spaces, an unknown unit, a bare fraction ("0.5": a
 * number without a unit is whole nanoseconds). */
#define CLI_DURATION_MAX ((uint64_t)INT64_MAX)
#define CLI_DURATION_MAX_TEXT "292 years"
int cli_parse_duration(const char *s, uint64_t *ns);
/* Parses a decimal number that fits 32 bits (digits only); -1 if not. */
int cli_parse_count(const char *s, uint32_t *out);
/* Formats a duration like uftrace: "  1.234 us"; returns buf. */
const char *cli_format_duration(uint64_t ns, char *buf, size_t len);

/* Whether `record` can run the program NAME found at `path`: 0, or the
 * exit status (126, 127) after one line saying why not, as a shell would
 * ("NAME: cannot run: bad interpreter /nope: No such file or directory"). */
int cli_check_program(const char *name, const char *path);

/* Finds PROGRAM the way execvp would; 0 and its path, or -1 with errno. */
int cli_find_program(const char *name, char *path, size_t len);

/* The engines `record` can use, and the one it picks by itself for the
 * program at `path`: the runtime library for an instrumented program, the
 * in-process engine for a dynamically linked one with a symbol table, the
 * ptrace engine otherwise. */
enum record_engine { ENGINE_AUTO, ENGINE_RUNTIME, ENGINE_PATCH, ENGINE_PTRACE };
enum record_engine cli_auto_engine(const char *path, int instrumented);

/* Subcommands: each takes argc/argv with argv[0] the subcommand name. */
int cmd_record(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_json(int argc, char **argv);
int cmd_crash(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_ctl(int argc, char **argv);
int cmd_live(int argc, char **argv);
/* cmd_live.c: whether `calltrace NAME` runs NAME live (no command has that
 * name, and it is a program: a path or on PATH). */
int live_can_run(const char *name);
/* cmd_replay.c: the function graph of `t` into `out` (ctx: a struct
 * replay_run); 0, or -1 after saying why.  `live` shows it too. */
int replay_write(struct cli_trace *t, FILE *out, void *ctx);
/* Text to a terminal (or live's stderr) stops after this many lines unless
 * --max-lines says otherwise. */
#define REPLAY_DEFAULT_MAX_LINES 200000u
/* --max-lines N (0: no bound) into *max; 0, or -1 after saying why. */
int replay_parse_max_lines(const char *command, const char *arg, uint32_t *max);
/* Views and engines built in their own files; weak so that the command
 * list can name them before they exist. */
int cmd_flame(int argc, char **argv) __attribute__((weak));
int cmd_seq(int argc, char **argv) __attribute__((weak));
int cmd_graph(int argc, char **argv) __attribute__((weak));
int cmd_chrome(int argc, char **argv) __attribute__((weak));
int cmd_speedscope(int argc, char **argv) __attribute__((weak));
int cmd_attach(int argc, char **argv) __attribute__((weak));

/* attach_guard.c: runs work(arg) in a child process that detaches when
 * this one is killed, and rescue(arg, signal) here when the child is
 * killed instead; the exit status of the one that ran last. */
int attach_guarded(int (*work)(void *), int (*rescue)(void *, int), void *arg);

#endif
