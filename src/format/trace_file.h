/*
 * trace_file.h - create and open trace files safely: never through a
 * symbolic link, never over another recording's trace, with the user's
 * umask (see trace_file.c for the rules).
 */
#ifndef CALLTRACE_TRACE_FILE_H
#define CALLTRACE_TRACE_FILE_H

#include <stddef.h>
#include <stdint.h>

/* What creating a trace under a name gave. */
struct trace_file_outcome {
	const char *refused; /* why the name was refused (NULL: errno says) */
	int kept_previous;   /* N > 0: the file that had the name is now its Nth
				numbered name (a finished trace is never lost) */
	int replaced_fd;     /* the file the new trace replaced, still open, or
				-1: the caller closes it (its last close frees
				its blocks, tens of milliseconds for a long
				trace whose pages are being written back) */
};

/* Locks byte 0 of `fd` (an open file description lock): F_RDLCK, F_WRLCK
 * or F_UNLCK, without waiting.  0, or -1 with errno. */
int trace_file_lock(int fd, short type);

/* `path` with ".N" before its extension: calltrace.trace -> calltrace.2.trace. */
void trace_file_numbered_name(char *out, size_t len, const char *path, int n);

/* Creates a new, empty file beside `path` under a temporary name (into
 * `temp`), mode 0666 less the umask, locked exclusively.  The descriptor,
 * or -1 with errno. */
int trace_file_create_temp(const char *path, char *temp, size_t len);

/* Gives the file created as `temp` the name `path`, or the first free
 * numbered name when a recording still writes `path` (the name given in
 * `chosen`).  A file at `path` that no recording holds is kept under a
 * numbered name, or with `replace`, replaced.  0, or -1 with errno (and
 * o->refused when the name may not be used); `temp` is then still there. */
int trace_file_publish(const char *temp, const char *path, int replace, char *chosen, size_t len,
		       struct trace_file_outcome *o);

/* Opens the trace `path` to write into it, never through a symbolic link;
 * when dev and ino are not 0, only if it is still that file.  The
 * descriptor, or -1 with errno. */
int trace_file_reopen(const char *path, uint64_t dev, uint64_t ino);

#endif
