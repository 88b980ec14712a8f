/*
 * fork_modules.c - fork children and the modules they were forked with:
 * the program calls into a dlopen'd plugin, then a child forked while it is
 * loaded calls into it too; after the plugin is dlclose'd, a second child
 * calls a function of the program.  Each child's module list must be its
 * parent's at the time of its fork.
 *
 * Usage: fork_modules PLUGIN.so
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int reap(pid_t pid)
{
	int status = 0;
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void child_in_plugin(int (*entry)(int))
{
	printf("plugin child: %d\n", entry(21));
	exit(0);
}

static void child_after_unload(void)
{
	printf("second child\n");
	exit(0);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: fork_modules PLUGIN.so\n");
		return 2;
	}
	void *handle = dlopen(argv[1], RTLD_NOW);
	int (*entry)(int) = handle ? (int (*)(int))dlsym(handle, "pl_entry") : NULL;
	if (!entry) {
		fprintf(stderr, "fork_modules: %s\n", dlerror());
		return 2;
	}
	printf("parent: %d\n", entry(1));
	fflush(stdout);
	pid_t first = fork();
	if (first == 0)
		child_in_plugin(entry);
	int rc = reap(first);
	dlclose(handle);
	fflush(stdout);
	pid_t second = fork();
	if (second == 0)
		child_after_unload();
	rc |= reap(second);
	printf("parent: %d\n", rc);
	return rc;
}
