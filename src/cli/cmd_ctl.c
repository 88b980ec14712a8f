/*
 * cmd_ctl.c - `calltrace ctl`: switch recording on or off in a running
 * program started with CALLTRACE_SIGNAL, or have it copy its trace as it
 * is (a snapshot of a ring).
 *
 * The signal is learnt from the program's environment (/proc/PID/environ)
 * and queued to it with a value saying start, stop or toggle
 * (utils/control_signal.h), so no state needs reading.  It is sent only to
 * a process that catches it (/proc/PID/status, SigCgt): a program that
 * has the variable but not the runtime would die of it.  A signal already
 * pending takes no second one (it is not a real-time signal), so ctl sends
 * only when the signal is not pending (ShdPnd) and returns once the
 * program has taken it: two requests in a row are two requests.
 */
#include "cli.h"
#include "../utils/control_signal.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <unistd.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TAKE_WAIT_MS 10000     /* how long a program may leave the signal pending */
#define SNAPSHOT_WAIT_MS 60000 /* how long a snapshot may take to be written */

static void ctl_usage(FILE *out)
{
	fprintf(out, "usage: calltrace ctl -p PID start|stop|toggle|snapshot\n\n"
		     "Switches recording on (start) or off (stop), or over (toggle), in a\n"
		     "running program whose environment had CALLTRACE_SIGNAL (e.g.\n"
		     "CALLTRACE_SIGNAL=SIGUSR2; with CALLTRACE_START=off it records nothing\n"
		     "until started).  Only that process is switched, not its children.\n"
		     "snapshot copies the trace as it is now into NAME.snapshot-N.trace next\n"
		     "to it, and the recording goes on: with record --ring, the program's\n"
		     "most recent calls (a plain CALLTRACE_SIGNAL does the same for a ring).\n"
		     "The program says the copy's name on its stderr; ctl prints it when the\n"
		     "program was started by calltrace record, once the copy is whole.\n"
		     "It returns once the program has taken the request.\n\n"
		     "options:\n"
		     "  -p, --pid PID          the process\n"
		     "  -h, --help             this help\n");
}

/* Reads /proc/PID/NAME into buf (NUL-terminated); its length, or -1 after
 * saying why. */
static ssize_t read_proc(int pid, const char *name, char *buf, size_t len)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/%s", pid, name);
	FILE *f = fopen(path, "r");
	if (!f) {
		if (errno == ENOENT)
			cli_error("ctl: no process %d", pid);
		else
			cli_error("ctl: cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	size_t n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	return (ssize_t)n;
}

/* The value of CALLTRACE_SIGNAL in the process's environment, or NULL. */
static const char *signal_setting(const char *env, size_t len)
{
	static const char key[] = "CALLTRACE_SIGNAL=";
	for (size_t at = 0; at < len; at += strlen(env + at) + 1)
		if (strncmp(env + at, key, sizeof(key) - 1) == 0)
			return env + at + sizeof(key) - 1;
	return NULL;
}

/* The trace the process records into, from CALLTRACE_SESSION
 * (IMAGE:PID:PATH, which record sets), or NULL. */
static const char *session_trace(const char *env, size_t len)
{
	static const char key[] = "CALLTRACE_SESSION=";
	for (size_t at = 0; at < len; at += strlen(env + at) + 1) {
		if (strncmp(env + at, key, sizeof(key) - 1) != 0)
			continue;
		const char *p = strchr(env + at + sizeof(key) - 1, ':');
		p = p ? strchr(p + 1, ':') : NULL;
		return p && p[1] == '/' ? p + 1 : NULL;
	}
	return NULL;
}

/* The header's count of snapshots taken of `trace` (0 when unreadable). */
static uint32_t snapshots_taken(const char *trace)
{
	uint32_t n = 0;
	int fd = open(trace, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (pread(fd, &n, sizeof(n), offsetof(struct trace_file_header, ring_snapshots)) !=
	    (ssize_t)sizeof(n))
		n = 0;
	close(fd);
	return n;
}

/* NAME.snapshot-N.trace for the trace NAME.trace (trace_snapshot.c). */
static void snapshot_name(const char *trace, uint32_t n, char *out, size_t len)
{
	size_t base = strlen(trace);
	if (base > 6 && strcmp(trace + base - 6, ".trace") == 0)
		base -= 6;
	snprintf(out, len, "%.*s.snapshot-%u.trace", (int)base, trace, n);
}

/* Waits for the snapshot asked after `before` were taken, and prints its
 * name; 0, or 1 after saying why not. */
static int await_snapshot(int pid, const char *trace, uint32_t before)
{
	struct timespec ms = {0, 1000000};
	char name[PATH_MAX + 32];
	for (int waited = 0; waited < SNAPSHOT_WAIT_MS; waited++) {
		uint32_t taken = snapshots_taken(trace);
		for (uint32_t n = before + 1; n <= taken && n <= before + 64; n++) {
			snapshot_name(trace, n, name, sizeof(name));
			if (access(name, F_OK) == 0) {
				printf("%s\n", name);
				return 0;
			}
		}
		nanosleep(&ms, NULL);
	}
	cli_error("ctl: process %d wrote no snapshot of %s within %d s (its stderr says why)", pid,
		  trace, SNAPSHOT_WAIT_MS / 1000);
	return 1;
}

struct process_state {
	int ended;   /* a zombie */
	int catches; /* has a handler for the signal */
	int pending; /* the signal waits to be taken by one of its threads */
};

/* The mask of /proc/PID/status's field `name` ("\nSigCgt:"), bit 0 for signal 1. */
static uint64_t status_mask(const char *status, const char *name)
{
	const char *field = strstr(status, name);
	return field ? strtoull(field + strlen(name), NULL, 16) : 0;
}

static void parse_status(const char *status, int sig, struct process_state *st)
{
	const char *state = strstr(status, "\nState:");
	if (state)
		state += strspn(state + 7, " \t") + 7;
	st->ended = state && (*state == 'Z' || *state == 'X');
	int known = sig > 0 && sig <= 64;
	st->catches = known && ((status_mask(status, "\nSigCgt:") >> (sig - 1)) & 1);
	st->pending = known && ((status_mask(status, "\nShdPnd:") >> (sig - 1)) & 1);
}

/* The state of the process as to `sig`; 0, or -1 after saying why not. */
static int process_state(int pid, int sig, struct process_state *st)
{
	char status[8192];
	if (read_proc(pid, "status", status, sizeof(status)) < 0)
		return -1;
	parse_status(status, sig, st);
	return 0;
}

/* Whether `sig` is still pending for the process (0 once it has ended). */
static int still_pending(int pid, int sig)
{
	char path[64], status[8192];
	struct process_state st;
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(status, 1, sizeof(status) - 1, f);
	fclose(f);
	status[n] = '\0';
	parse_status(status, sig, &st);
	return st.pending && !st.ended;
}

/* Waits until the process has taken `sig` (it is no longer pending); 0, or
 * -1 when it has not within TAKE_WAIT_MS. */
static int wait_taken(int pid, int sig)
{
	struct timespec ms = {0, 1000000};
	for (int waited = 0; still_pending(pid, sig); waited++) {
		if (waited == TAKE_WAIT_MS)
			return -1;
		nanosleep(&ms, NULL);
	}
	return 0;
}

static int parse_request(const char *word, int *request)
{
	static const struct {
		const char *name;
		int request;
	} words[] = {{"start", CONTROL_START},
		     {"stop", CONTROL_STOP},
		     {"toggle", CONTROL_TOGGLE},
		     {"snapshot", CONTROL_SNAPSHOT}};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcmp(word, words[i].name) == 0) {
			*request = words[i].request;
			return 0;
		}
	cli_error("ctl: unknown request '%s' (start, stop, toggle or snapshot)", word);
	return -1;
}

static int send_request(int pid, int request)
{
	char env[64 << 10];
	ssize_t len = read_proc(pid, "environ", env, sizeof(env));
	if (len < 0)
		return 1;
	const char *name = signal_setting(env, (size_t)len);
	int sig = control_signal_number(name);
	struct process_state st;
	if (process_state(pid, sig, &st) < 0)
		return 1;
	if (st.ended) {
		cli_error("ctl: process %d has ended", pid);
		return 1;
	}
	if (!name) {
		cli_error("ctl: process %d was started without CALLTRACE_SIGNAL (e.g. "
			  "CALLTRACE_SIGNAL=SIGUSR2): its recording cannot be switched",
			  pid);
		return 1;
	}
	if (!control_signal_usable(sig)) {
		cli_error("ctl: process %d has CALLTRACE_SIGNAL=%s, which names no signal that "
			  "can be caught",
			  pid, name);
		return 1;
	}
	if (!st.catches) {
		cli_error("ctl: process %d does not catch SIG%s (is the calltrace runtime in it?); "
			  "nothing sent",
			  pid, sigabbrev_np(sig));
		return 1;
	}
	union sigval value = {.sival_int = request};
	const char *trace = request == CONTROL_SNAPSHOT ? session_trace(env, (size_t)len) : NULL;
	uint32_t before = trace ? snapshots_taken(trace) : 0;
	if (wait_taken(pid, sig) < 0) {
		cli_error("ctl: process %d has left an earlier SIG%s pending for %d s (stopped?); "
			  "nothing sent",
			  pid, sigabbrev_np(sig), TAKE_WAIT_MS / 1000);
		return 1;
	}
	if (sigqueue(pid, sig, value) < 0) {
		cli_error("ctl: cannot signal process %d: %s", pid, strerror(errno));
		return 1;
	}
	if (wait_taken(pid, sig) < 0) {
		cli_error("ctl: warning: process %d has not taken the request within %d s "
			  "(stopped?); it will when it runs",
			  pid, TAKE_WAIT_MS / 1000);
		return 0;
	}
	return trace ? await_snapshot(pid, trace, before) : 0;
}

int cmd_ctl(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"pid", required_argument, 0, 'p'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	uint32_t pid = 0;
	int opt, request;
	while ((opt = getopt_long(argc, argv, ":p:h", longopts, NULL)) != -1) {
		if (opt == 'h') {
			ctl_usage(stdout);
			return 0;
		}
		if (opt != 'p')
			return cli_bad_option("ctl", argc, argv);
		if (cli_parse_count(optarg, &pid) < 0 || pid == 0 || pid > INT32_MAX) {
			cli_error("ctl: bad --pid '%s' (want a process id)", optarg);
			return 2;
		}
	}
	if (!pid || optind != argc - 1) {
		cli_error(
		    "ctl: want -p PID and one of start, stop, toggle, snapshot (see 'calltrace ctl "
		    "--help')");
		return 2;
	}
	if (parse_request(argv[optind], &request) < 0)
		return 2;
	return send_request((int)pid, request);
}
