/*
 * own_work_env.c - whether the runtime marks its own work for the kernel's
 * record (src/format/own_work.h): `calltrace record` and `attach` set
 * CALLTRACE_KERNEL=1 when they record the kernel's events.
 */
#include "../runtime.h"
#include "../../format/own_work.h"

#include <string.h>

void runtime_own_work_init(void)
{
	const char *v = runtime_getenv("CALLTRACE_KERNEL");
	trace_own_marks = v && strcmp(v, "1") == 0;
}
