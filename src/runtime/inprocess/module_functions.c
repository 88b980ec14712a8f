/*
 * module_functions.c - the functions of a module the in-process engine
 * patches, listed once per session: `calltrace record` gives the session a
 * folder (CALLTRACE_FUNCTION_CACHE) where the first process that lists a
 * module leaves the list, and every later process of the session (each
 * `bash` a script starts) takes it from there (src/patch/function_cache.c).
 * Without the folder, each process lists its modules itself.  The second
 * process that lists a module (the first, for a module of at most
 * DECODE_AT_FIRST_MAX functions) also decodes every function's entry into
 * the cache (runtime_module_decode_all), and the later ones patch from
 * those decodings without loading the decoder.
 */
#include "../runtime.h"
#include "module_functions.h"
#include "../../patch/function_cache.h"
#include "../../patch/patch.h"

#include <string.h>

/* Functions of a module its first process decodes all of (a few
 * milliseconds; loading the decoder takes one or two). */
#define DECODE_AT_FIRST_MAX 4096

static int verbose(void)
{
	const char *v = runtime_getenv("CALLTRACE_PATCH_VERBOSE");
	return runtime_config.debug || (v && *v && strcmp(v, "0") != 0);
}

int runtime_module_functions(const char *path, elf_function_fn each, void *ctx,
			     struct elf_file_facts *facts, int *decode_all)
{
	enum function_cache_source source;
	const char *dir = runtime_getenv("CALLTRACE_FUNCTION_CACHE");
	int rc = function_cache_each(dir, path, each, ctx, facts, &source);
	/* The second process that lists a module decodes its entries for the
	 * later ones; the first already does, when the module is small
	 * enough for it to cost less than loading the decoder once more (a
	 * script's `sed`, `head`, `basename`: a few runs each). */
	if (decode_all)
		*decode_all = rc == 0 &&
			      (source == FUNCTIONS_FROM_CACHE ||
			       (source == FUNCTIONS_LISTED && facts->count <= DECODE_AT_FIRST_MAX));
	if (rc < 0 || !verbose() || !dir || !*dir)
		return rc;
	static const char *const said[] = {
	    [FUNCTIONS_FROM_CACHE] = "from the cache",
	    [FUNCTIONS_DECODED] = "from the cache, entries decoded",
	    [FUNCTIONS_LISTED] = "listed, and kept in the cache",
	    [FUNCTIONS_LISTED_ONLY] = "listed (the cache cannot be written)",
	    [FUNCTIONS_REJECTED] = "listed: the cache file for it was not sound, and is ignored",
	};
	runtime_say("in-process engine: functions of %s: %s", path, said[source]);
	return rc;
}

/* A function's entry decoded from the module's code in memory (no mark
 * written yet). */
static void decode_one(const struct elf_function *f, struct patch_decoded *out, void *ctx)
{
	uint64_t address = *(const uint64_t *)ctx + f->address;
	const uint8_t *code = (const uint8_t *)address;
	patch_decode(code, (size_t)f->size, code + f->size, (size_t)f->padding, address, out);
}

void runtime_module_decode_all(const char *path, uint64_t bias, const struct elf_file_facts *facts)
{
	const char *dir = runtime_getenv("CALLTRACE_FUNCTION_CACHE");
	int rc = function_cache_decode(dir, path, facts, decode_one, &bias);
	if (verbose())
		runtime_say("in-process engine: entries of %s %s", path,
			    rc == 0 ? "decoded into the cache" : "not decoded into the cache");
}
