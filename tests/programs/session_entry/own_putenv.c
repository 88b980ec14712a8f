/*
 * own_putenv.c - a program with a putenv of its own, as bash has, that
 * also keeps its own copy of the environment (bash points environ at its
 * exported variables): the runtime must bring CALLTRACE_SESSION up to date
 * in every image without calling the program's putenv.  Each process says
 * how often its putenv ran and the session entry it sees.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
static int calls;

int putenv(char *entry)
{
	calls++;
	int (*real)(char *) = (int (*)(char *))dlsym(RTLD_NEXT, "putenv");
	return real ? real(entry) : -1;
}

static void report(const char *who)
{
	const char *v = getenv("CALLTRACE_SESSION");
	printf("%s %d: putenv calls %d, session %s\n", who, (int)getpid(), calls, v ? v : "-");
	fflush(stdout);
}

/* environ as a copy of its own: an array and strings the program owns. */
static void own_environment(void)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **copy = calloc(n + 1, sizeof(*copy));
	for (size_t i = 0; copy && i < n; i++)
		copy[i] = strdup(environ[i]);
	if (copy)
		environ = copy;
}

static void fork_and_report(const char *who)
{
	pid_t c = fork();
	if (c == 0) {
		report(who);
		_exit(0);
	}
	waitpid(c, NULL, 0);
}

int main(void)
{
	report("parent");
	fork_and_report("child");
	own_environment();
	fork_and_report("child-of-copy");
	return 0;
}
