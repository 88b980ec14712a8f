/*
 * module_functions.c - the functions of a module the in-process engine
 * patches, listed once per session: `calltrace record` gives the session a
 * folder (CALLTRACE_FUNCTION_CACHE) where the first process that lists a
 * module leaves the list, and every later process of the session (each
 * `bash` a script starts) takes it from there (src/patch/function_cache.c).
 * Without the folder, each process lists its modules itself.
 */
#include "../runtime.h"
#include "module_functions.h"
#include "../../patch/function_cache.h"

#include <string.h>

static int verbose(void)
{
	const char *v = runtime_getenv("CALLTRACE_PATCH_VERBOSE");
	return runtime_config.debug || (v && *v && strcmp(v, "0") != 0);
}

int runtime_module_functions(const char *path, elf_function_fn each, void *ctx,
			     struct elf_file_facts *facts)
{
	enum function_cache_source source;
	const char *dir = runtime_getenv("CALLTRACE_FUNCTION_CACHE");
	int rc = function_cache_each(dir, path, each, ctx, facts, &source);
	if (rc < 0 || !verbose() || !dir || !*dir)
		return rc;
	static const char *const said[] = {
	    [FUNCTIONS_FROM_CACHE] = "from the session's cache",
	    [FUNCTIONS_LISTED] = "listed, and kept in the session's cache",
	    [FUNCTIONS_LISTED_ONLY] = "listed (the session's cache cannot be written)",
	    [FUNCTIONS_REJECTED] =
		"listed: the session's cache file for it was not sound, and is ignored",
	};
	runtime_say("in-process engine: functions of %s: %s", path, said[source]);
	return rc;
}
