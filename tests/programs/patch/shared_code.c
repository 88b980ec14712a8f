/* shared_code.c - the program of patch_shared_code.sh.  It says where its
 * code comes from: "cache" when the line of /proc/self/maps that holds
 * main names a file ending in ".code" (the in-process engine's cache),
 * else "program".  Then it calls work (and leaf), and with the argument
 * "rare" also rare, a function none of the earlier runs called; a fork
 * child calls work, or in_child (and rare) with "rare". */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) static const char *code_source(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	const char *source = "unknown";
	uintptr_t here = (uintptr_t)&code_source;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx", &lo, &hi) != 2 || here < lo || here >= hi)
			continue;
		line[strcspn(line, "\n")] = '\0';
		size_t n = strlen(line);
		source = n > 5 && strcmp(line + n - 5, ".code") == 0 ? "cache" : "program";
	}
	if (f)
		fclose(f);
	return source;
}

__attribute__((noinline)) int leaf(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int work(int n)
{
	int sum = 0;
	for (int i = 0; i < n; i++)
		sum += leaf(i);
	return sum;
}

__attribute__((noinline)) int rare(int n)
{
	return work(n) + leaf(n);
}

__attribute__((noinline)) int in_child(void)
{
	return rare(2);
}

int main(int argc, char **argv)
{
	int extra = argc > 1 && strcmp(argv[1], "rare") == 0;
	printf("code: %s\n", code_source());
	fflush(stdout);
	int sum = work(3);
	if (extra)
		sum += rare(4);
	pid_t pid = fork();
	if (pid == 0) {
		printf("child %d\n", extra ? in_child() : work(1));
		fflush(stdout);
		_exit(0);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	printf("sum %d\n", sum);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
