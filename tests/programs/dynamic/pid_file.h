/*
 * pid_file.h - how a program to attach to says it is ready: it writes its
 * pid to PATH (through a temporary file renamed, so that a reader never
 * sees it half written), or exits with status 2.
 */
#ifndef TESTS_PID_FILE_H
#define TESTS_PID_FILE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void announce(const char *path)
{
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) != 0 ||
	    rename(tmp, path) != 0) {
		perror("pid file");
		exit(2);
	}
}

#endif
