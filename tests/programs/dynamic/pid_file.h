/*
 * pid_file.h - how a program to attach to says it is ready: it writes its
 * pid to PATH (through a temporary file renamed, so that a reader never
 * sees it half written), or exits with status 2.  write_count() writes any
 * number so (how far the program got).
 */
#ifndef TESTS_PID_FILE_H
#define TESTS_PID_FILE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void write_count(const char *path, long n)
{
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f || fprintf(f, "%ld\n", n) < 0 || fclose(f) != 0 || rename(tmp, path) != 0) {
		perror(path);
		exit(2);
	}
}

static void announce(const char *path)
{
	write_count(path, (long)getpid());
}

#endif
