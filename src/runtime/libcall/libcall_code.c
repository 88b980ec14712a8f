/*
 * libcall_code.c - the code library calls go through: a trampoline per
 * hooked slot (the architecture's: it loads the site and goes to
 * runtime_libcall_enter_stub), the landing pad a caller-sensitive call
 * returns through, and the trampolines of the function pointers dlsym
 * returns to a traced module.
 *
 * Trampolines are written into fresh pages, made read-execute before any
 * is used; the sites they load live in read-write pages.  Nothing is ever
 * unmapped: a call may still be on its way through.
 */
#include "../runtime.h"
#include "libcall.h"
#include "../inprocess/own_modules.h"
#include "../../arch/arch.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <sys/mman.h>

#define TRAMPOLINE_SIZE ARCH_LIBCALL_TRAMPOLINE
#define POINTER_SITES_MAX 4096
#define POINTER_CHUNK 64 /* trampolines made at a time: one page */

uint64_t runtime_libcall_landing;

static void *map_pages(size_t len)
{
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return m == MAP_FAILED ? NULL : m;
}

static size_t page_round(size_t len)
{
	return (len + 4095) & ~(size_t)4095;
}

/* Code written into `len` bytes at p is made read-execute (and the
 * instruction cache cleared where it is not coherent). */
static int make_executable(uint8_t *p, size_t len)
{
	__builtin___clear_cache((char *)p, (char *)p + len);
	return mprotect(p, len, PROT_READ | PROT_EXEC);
}

struct libcall_site *runtime_libcall_sites_alloc(uint32_t n)
{
	return map_pages(page_round((size_t)n * sizeof(struct libcall_site)));
}

void runtime_libcall_sites_free(struct libcall_site *sites, uint32_t n)
{
	munmap(sites, page_round((size_t)n * sizeof(struct libcall_site)));
}

int runtime_libcall_trampolines(struct libcall_site *sites, uint32_t n)
{
	size_t len = page_round((size_t)n * TRAMPOLINE_SIZE);
	uint8_t *code = map_pages(len);
	if (!code)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		arch_libcall_trampoline(code + (size_t)i * TRAMPOLINE_SIZE, (uint64_t)&sites[i],
					(uint64_t)runtime_libcall_enter_stub);
		sites[i].trampoline = (uint64_t)(code + (size_t)i * TRAMPOLINE_SIZE);
	}
	return make_executable(code, len);
}

/* ---- dlsym's pointers ---------------------------------------------------- */

/* Sites made all at once (pages that stay untouched until used), their
 * trampolines POINTER_CHUNK at a time as pointers come: most processes
 * never call dlsym from a traced module. */
static struct libcall_site *pointer_sites;
static uint32_t npointers;
static pthread_mutex_t pointers_lock = PTHREAD_MUTEX_INITIALIZER;

int runtime_libcall_code_init(void)
{
	if (runtime_libcall_landing)
		return 0;
	pointer_sites = runtime_libcall_sites_alloc(POINTER_SITES_MAX);
	if (!pointer_sites)
		return -1;
	/* A jump to the return stub, in no module. */
	uint8_t *pad = map_pages(4096);
	if (!pad)
		return -1;
	uint64_t landing = arch_libcall_landing_pad(pad, (uint64_t)runtime_libcall_return_stub);
	if (make_executable(pad, 4096) < 0)
		return -1;
	runtime_libcall_landing = landing;
	return 0;
}

struct code_lookup {
	uint64_t address;
	int executable; /* lies in an executable segment */
	int program;	/* of the main executable */
};

static int find_segment(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct code_lookup *q = data;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		uint64_t start = info->dlpi_addr + p->p_vaddr;
		if (p->p_type == PT_LOAD && q->address >= start &&
		    q->address < start + p->p_memsz) {
			q->executable = (p->p_flags & PF_X) != 0;
			q->program = !info->dlpi_name || !*info->dlpi_name;
			return 1;
		}
	}
	return 0;
}

/* A function of another module: its calls are library calls (a data
 * symbol, or a function of the program itself, is given back as it is). */
uint64_t runtime_libcall_wrap_pointer(uint64_t address)
{
	struct code_lookup q = {.address = address};
	dl_iterate_phdr(find_segment, &q);
	if (!q.executable || q.program || runtime_module_recorded_at(address, NULL))
		return address;
	uint64_t wrapped = address;
	pthread_mutex_lock(&pointers_lock);
	uint32_t i = 0;
	while (i < npointers && pointer_sites[i].target != address)
		i++;
	if (i == npointers && npointers < POINTER_SITES_MAX &&
	    (npointers % POINTER_CHUNK != 0 ||
	     runtime_libcall_trampolines(&pointer_sites[npointers], POINTER_CHUNK) == 0)) {
		struct libcall_site *s = &pointer_sites[npointers];
		s->target = address;
		s->fid = TRACE_CALL_ADDRESS(CALL_LIBRARY, address);
		s->flags = LIBCALL_DLSYM_PTR;
		Dl_info info;
		if (dladdr((void *)address, &info) && info.dli_sname &&
		    (uint64_t)info.dli_saddr == address)
			runtime_libcall_describe(s, info.dli_sname);
		__atomic_store_n(&npointers, npointers + 1, __ATOMIC_RELEASE);
	}
	if (i < npointers)
		wrapped = pointer_sites[i].trampoline;
	pthread_mutex_unlock(&pointers_lock);
	return wrapped;
}

uint64_t runtime_libcall_unwrap_pointer(uint64_t address)
{
	uint32_t n = __atomic_load_n(&npointers, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; i < n; i++)
		if (pointer_sites[i].trampoline == address)
			return pointer_sites[i].target;
	return address;
}
