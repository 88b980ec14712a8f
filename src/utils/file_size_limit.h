/*
 * file_size_limit.h - whether a file may grow to a size under RLIMIT_FSIZE
 * (`ulimit -f`): a write past it raises SIGXFSZ, which kills the traced
 * program, so the trace and the cache files check before they grow.
 */
#ifndef CALLTRACE_FILE_SIZE_LIMIT_H
#define CALLTRACE_FILE_SIZE_LIMIT_H

#include <stdint.h>
#include <sys/resource.h>

static inline int within_file_size_limit(uint64_t size)
{
	struct rlimit rl;
	return getrlimit(RLIMIT_FSIZE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY ||
	       size <= (uint64_t)rl.rlim_cur;
}

#endif
