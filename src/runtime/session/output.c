/*
 * output.c - what CALLTRACE_OUTPUT asks the first process of a session for.
 *
 *   a file name            the binary trace, written as the program runs
 *   NAME.json, or any name with CALLTRACE_FORMAT=json
 *                          the JSON call tree, written at the session's end
 *                          by the calltrace tool (session_end.c) from the
 *                          binary trace, which is recorded all the same, in
 *                          NAME.json.trace, so that a crash or a kill -9
 *                          still leaves a trace
 *   /dev/null              nothing recorded, nothing said
 *
 * JSON to something that is not a regular file (/dev/stdout, a FIFO) takes
 * its trace in a temporary file, removed once the JSON is written.  A
 * binary trace to something that is not a regular file (a directory, a
 * FIFO) is refused in one line, and the program runs unrecorded.
 *
 * The JSON end travels to the session's other processes in
 * CALLTRACE_JSON_END=keep|remove:<absolute JSON path> (as CALLTRACE_SESSION
 * does), since any of them may be the last out.
 */
#include "../runtime.h"
#include "../../utils/big_table.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char json_end_env[PATH_MAX + 32] BIG_TABLE;

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int wants_json(const char *output)
{
	const char *format = runtime_getenv("CALLTRACE_FORMAT");
	if (format && *format)
		return strcmp(format, "json") == 0;
	return ends_with(output, ".json");
}

static const char *kind_of(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a regular file";
}

/* `path` made absolute against the working directory. */
static void absolute(char *out, size_t len, const char *path)
{
	char cwd[PATH_MAX / 2];
	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		snprintf(out, len, "%s", path);
	else
		snprintf(out, len, "%s/%.*s", cwd, PATH_MAX / 2 - 2, path);
}

static void publish_json_end(int remove_trace, const char *json)
{
	char abs[PATH_MAX];
	absolute(abs, sizeof(abs), json);
	snprintf(json_end_env, sizeof(json_end_env), "CALLTRACE_JSON_END=%s:%s",
		 remove_trace ? "remove" : "keep", abs);
	putenv(json_end_env);
}

const char *runtime_json_end(void)
{
	if (json_end_env[0])
		return strchr(json_end_env, '=') + 1;
	return runtime_getenv("CALLTRACE_JSON_END");
}

int runtime_output_plan(const char *output, char *trace, size_t len)
{
	struct stat st;
	int exists = stat(output, &st) == 0;
	if (exists && S_ISCHR(st.st_mode) && strcmp(output, "/dev/null") == 0)
		return -1;
	int regular = !exists || S_ISREG(st.st_mode);
	if (!wants_json(output)) {
		if (!regular) {
			runtime_say("CALLTRACE_OUTPUT=%s is %s, not a file a trace can be written "
				    "to; nothing recorded",
				    output, kind_of(st.st_mode));
			return -1;
		}
		absolute(trace, len, output);
		return 0;
	}
	if (exists && S_ISDIR(st.st_mode)) {
		runtime_say("CALLTRACE_OUTPUT=%s is a directory, not a file JSON can be written "
			    "to; nothing recorded",
			    output);
		return -1;
	}
	/* /dev/stderr and the like are links to whatever the descriptor is,
	 * a regular file too: the trace beside such a name would be left in
	 * /dev.  Through any link, the trace is a temporary file, removed. */
	struct stat link;
	if (lstat(output, &link) == 0 && S_ISLNK(link.st_mode))
		regular = 0;
	if (regular) {
		char named[PATH_MAX];
		snprintf(named, sizeof(named), "%.*s.trace", PATH_MAX - 7, output);
		absolute(trace, len, named);
	} else {
		const char *tmp = runtime_getenv("TMPDIR");
		snprintf(trace, len, "%s/calltrace-%d.trace", tmp && *tmp ? tmp : "/tmp",
			 (int)getpid());
	}
	publish_json_end(!regular, output);
	return 0;
}
