/*
 * no_engines.c (aarch64) - the entry points of the engines outside the
 * process (src/ptrace/: the ptrace engine; src/attach/: attach's tool
 * side), which are x86-64 only for now: each says so in one line and fails.
 * -finstrument-functions programs are recorded by the runtime as anywhere.
 */
#include "../../ptrace/dynamic.h"
#include "arch.h"

#include <stdio.h>
#include <string.h>

#define NOT_HERE "is x86-64 only for now (this calltrace is " ARCH_NAME ")"

int dynamic_attach_check(pid_t pid)
{
	(void)pid;
	fprintf(stderr, "calltrace: attach " NOT_HERE
			": record a program built with -finstrument-functions\n");
	return -1;
}

int dynamic_attach(const struct dynamic_options *o)
{
	(void)o;
	fprintf(stderr, "calltrace: the ptrace engine " NOT_HERE "\n");
	return ATTACH_REFUSED;
}

int inprocess_attach_possible(pid_t pid, const char *runtime, char *why, size_t len)
{
	(void)pid, (void)runtime;
	snprintf(why, len, "the in-process engine " NOT_HERE);
	return -1;
}

int dynamic_attach_inprocess(const struct inprocess_options *o, struct trace_session *s)
{
	(void)o, (void)s;
	fprintf(stderr, "calltrace: the in-process engine " NOT_HERE "\n");
	return ATTACH_REFUSED;
}

void dynamic_attach_stop(int sig)
{
	(void)sig;
}

int dynamic_attach_inprocess_rescue(const struct inprocess_options *o)
{
	(void)o;
	return 0;
}

size_t dynamic_read_cmdline(pid_t pid, char *buf, size_t len)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, len, f);
	fclose(f);
	return n;
}
