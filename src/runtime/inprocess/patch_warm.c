/*
 * patch_warm.c - the functions that ran in the session's earlier
 * processes are patched at start (src/patch/ran_cache.c).  While a
 * module's functions are marked, the list of those that ran before says
 * which to patch with the marks; when the process ends, the functions
 * whose first calls came here and that the list lacks are added to it
 * (the list is read again then: another process may have added its own
 * meanwhile).
 *
 * Nothing here calls malloc: it runs inside the traced process.
 */
#include "../runtime.h"
#include "../../patch/function_cache.h"
#include "../../patch/ran_cache.h"
#include "patch_record.h"
#include "patch_shadow.h"
#include "patch_warm.h"
#include "../../utils/big_table.h"
#include "../../utils/sort_addresses.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/mman.h>

#define MAX_WARM_MODULES 16
#define MAX_RAN 65536 /* functions a module's list keeps */

static struct warm_module {
	char path[PATH_MAX];
	int with_eh_frame;
	uint64_t bias, lo, hi;
} modules[MAX_WARM_MODULES] BIG_TABLE;
static uint32_t nmodules;

/* The list of the module being marked, walked along with its functions. */
static struct ran_list reading;
static size_t cursor;

static const char *cache_folder(void)
{
	return runtime_getenv("CALLTRACE_FUNCTION_CACHE");
}

void runtime_patch_warm_begin(const char *path, int with_eh_frame)
{
	ran_cache_release(&reading);
	cursor = 0;
	ran_cache_read(cache_folder(), path, with_eh_frame, &reading);
}

int runtime_patch_warm_has(uint64_t address)
{
	while (cursor < reading.count && reading.address[cursor] < address)
		cursor++;
	return cursor < reading.count && reading.address[cursor] == address;
}

void runtime_patch_warm_end(const char *path, int with_eh_frame, uint64_t bias, uint64_t lo,
			    uint64_t hi)
{
	ran_cache_release(&reading);
	const char *dir = cache_folder();
	if (!dir || !*dir || lo >= hi || nmodules == MAX_WARM_MODULES ||
	    strlen(path) >= sizeof(modules[0].path))
		return;
	struct warm_module *w = &modules[nmodules++];
	*w = (struct warm_module){.with_eh_frame = with_eh_frame, .bias = bias, .lo = lo, .hi = hi};
	strcpy(w->path, path);
}

static void save_module(const char *dir, const struct warm_module *w, uint64_t *buffer);
static uint64_t *save_buffer(void);
static void free_save_buffer(uint64_t *buffer);

void runtime_patch_warm_drop(uint64_t bias)
{
	for (uint32_t i = 0; i < nmodules;) {
		if (modules[i].bias != bias) {
			i++;
			continue;
		}
		uint64_t *buffer = save_buffer(); /* its list, before its marks go */
		if (buffer)
			save_module(cache_folder(), &modules[i], buffer);
		free_save_buffer(buffer);
		modules[i] = modules[--nmodules];
	}
}

/* The union of the ascending lists `a` and `b` into `out`; its length. */
static size_t merge(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, uint64_t *out)
{
	size_t i = 0, j = 0, n = 0;
	while ((i < na || j < nb) && n < MAX_RAN) {
		if (j == nb || (i < na && a[i] < b[j]))
			out[n++] = a[i++];
		else if (i == na || b[j] < a[i])
			out[n++] = b[j++];
		else
			out[n++] = a[i++], j++;
	}
	return n;
}

/* Adds the module's functions that ran here to its list, when it lacks
 * any; `buffer` holds 2 * MAX_RAN addresses. */
static void save_module(const char *dir, const struct warm_module *w, uint64_t *buffer)
{
	uint64_t *ran = buffer, *both = buffer + MAX_RAN;
	size_t n = runtime_patch_marks_ran(w->lo, w->hi, w->bias, ran, MAX_RAN);
	if (!n)
		return;
	sort_addresses(ran, n, both);
	struct ran_list now;
	function_cache_keep_key(1); /* the same for the read and the write */
	ran_cache_read(dir, w->path, w->with_eh_frame, &now);
	size_t m = merge(now.address, now.count, ran, n, both);
	int grown = m > now.count;
	ran_cache_release(&now);
	if (grown)
		ran_cache_write(dir, w->path, w->with_eh_frame, both, m);
	function_cache_keep_key(0);
}

#define SAVE_BUFFER_BYTES (2 * MAX_RAN * sizeof(uint64_t))

static uint64_t *save_buffer(void)
{
	void *p = mmap(NULL, SAVE_BUFFER_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static void free_save_buffer(uint64_t *buffer)
{
	if (buffer)
		munmap(buffer, SAVE_BUFFER_BYTES);
}

void runtime_patch_warm_save(void)
{
	const char *dir = cache_folder();
	/* No first call here (all patched ahead, or none made): nothing new. */
	if (!nmodules || !dir || !*dir || !runtime_patch_lazy_counts().ran)
		return;
	uint64_t *buffer = save_buffer();
	for (uint32_t i = 0; buffer && i < nmodules; i++)
		save_module(dir, &modules[i], buffer);
	free_save_buffer(buffer);
}
