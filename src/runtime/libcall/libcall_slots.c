/*
 * libcall_slots.c - which GOT slots carry library calls, and pointing them
 * at trampolines (libcall.h).
 *
 * The traced modules are the main executable, the libraries the in-process
 * engine records (the program's own, CALLTRACE_PATCH_MODULES: own_modules.c)
 * and those whose own calls into other libraries are asked for
 * (CALLTRACE_LIBCALL_NESTED: names, comma separated, "libfoo" for
 * libfoo.so.1).  A slot whose function is recorded by its own entry or
 * hooks (a recorded module's, or the module's own through its PLT) is left
 * alone: the call is recorded once, as the function's.  In each, every
 * JUMP_SLOT relocation (a call through the PLT) and every GLOB_DAT of an
 * undefined function (a call through the GOT, -fno-plt) has its slot
 * pointed at a trampoline of its own (libcall_code.c).  A slot that still
 * points into its own module is not resolved yet (lazy binding): its calls
 * go on to the PLT's code, and the first return takes the address the
 * dynamic linker wrote (libcall_record.c).  A slot in the part made
 * read-only after relocation (RELRO: full RELRO's .got.plt, every .got) is
 * made writable for the write and read-only again.
 */
#include "../runtime.h"
#include "libcall.h"
#include "../inprocess/own_modules.h"
#include "../../arch/arch.h"
#include "../../patch/special_functions.h"
#include "../../symbols/prototypes.h"
#include "../../utils/big_table.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <regex.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAX_HOOKED_MODULES 256

int runtime_libcall_on;

struct hooked_module {
	uint64_t bias;
	uint64_t dynamic; /* its PT_DYNAMIC: tells another module loaded there */
	uint64_t relro_lo, relro_hi;
	struct libcall_site *sites;
	uint32_t nsites;
	int seen; /* found by the scan in progress */
};

static struct hooked_module modules[MAX_HOOKED_MODULES] BIG_TABLE;
static uint32_t nmodules;
static int verbose;
static const char *nested; /* CALLTRACE_LIBCALL_NESTED */
static regex_t module_pattern;
static int module_pattern_set;
static int patch_on;	      /* CALLTRACE_PATCH: the in-process engine records modules */
static uint64_t runtime_base; /* libcalltrace.so's own load bias */

/* What a module's program headers and dynamic section say. */
struct module_facts {
	const char *path;
	uint64_t bias, dynamic, lo, hi, relro_lo, relro_hi;
	const ElfW(Rela) * jmprel, *rela;
	size_t njmprel, nrela;
	size_t own_plt_slots; /* JUMP_SLOTs but the start-up code's */
	const ElfW(Sym) * symtab;
	const char *strtab;
	const uint16_t *versym; /* DT_VERSYM, or NULL */
	const void *verneed;	/* DT_VERNEED, or NULL */
	uint32_t verneed_count;
};

/* Its prototype, when its values are captured and the table knows it. */
void runtime_libcall_describe(struct libcall_site *site, const char *name)
{
	site->proto =
	    runtime_libcall_values_on && name && (!runtime_args_on || runtime_args_wanted(name))
		? prototype_of_function(name)
		: NULL;
	if (site->proto)
		site->flags |= LIBCALL_VALUES;
}

/* Calls the runtime's own machinery must see unhooked (the hooks, the
 * unwinder, its API), start-up's, and clone and vfork, whose child runs on
 * the parent's thread state (a vfork child returns through the call's
 * return address before its parent does: vfork.c). */
static int never_hooked(const char *name)
{
	static const char *const prefixes[] = {"__cyg_profile_func_", "_ITM_", "_Unwind_",
					       "calltrace_"};
	static const char *const names[] = {"__libc_start_main", "__cxa_finalize", "__gmon_start__",
					    "__cxa_begin_catch", "__tls_get_addr",
					    "__libc_start_call_main", "clone", "__clone", "clone3",
					    "vfork", "__vfork",
					    /* profiling hooks (-pg, -mfentry): called
					       with the arguments of the function that
					       calls them live in the registers */
					    "mcount", "_mcount", "__fentry__"};
	/* Asked of every slot of every module: the first byte first. */
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(*prefixes); i++)
		if (name[0] == prefixes[i][0] &&
		    strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return 1;
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (name[0] == names[i][0] && strcmp(name, names[i]) == 0)
			return 1;
	return 0;
}

static uint32_t site_flags(const char *name)
{
	if (name[0] != 'd') /* asked of every slot */
		return 0;
	if (strcmp(name, "dlopen") == 0 || strcmp(name, "dlmopen") == 0 ||
	    strcmp(name, "dlclose") == 0)
		return LIBCALL_DLOPEN | LIBCALL_CALLER;
	if (strcmp(name, "dlsym") == 0 || strcmp(name, "dlvsym") == 0)
		return LIBCALL_DLSYM | LIBCALL_CALLER;
	return 0;
}

/* Whether a JUMP_SLOT is one of the C library's start-up code (crt1.o,
 * crti.o), which calls through the PLT on aarch64 even in a program built
 * with -fno-plt. */
static int startup_slot(const struct module_facts *m, const ElfW(Rela) * r)
{
	static const char *const names[] = {"__libc_start_main", "__gmon_start__", "abort"};
	const char *name = m->strtab + m->symtab[ELF64_R_SYM(r->r_info)].st_name;
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (strcmp(name, names[i]) == 0)
			return 1;
	return 0;
}

/* A dynamic section's address: the dynamic linker adjusted most of them
 * by the load bias in place; those it did not are below the bias. */
static uint64_t dyn_address(uint64_t value, uint64_t bias)
{
	return value < bias ? value + bias : value;
}

static void read_dynamic(struct module_facts *m)
{
	size_t jmprel_size = 0, rela_size = 0;
	for (const ElfW(Dyn) *d = (const ElfW(Dyn) *)m->dynamic; d->d_tag != DT_NULL; d++) {
		uint64_t v = d->d_un.d_val;
		switch (d->d_tag) {
		case DT_JMPREL:
			m->jmprel = (const ElfW(Rela) *)dyn_address(v, m->bias);
			break;
		case DT_PLTRELSZ:
			jmprel_size = v;
			break;
		case DT_RELA:
			m->rela = (const ElfW(Rela) *)dyn_address(v, m->bias);
			break;
		case DT_RELASZ:
			rela_size = v;
			break;
		case DT_SYMTAB:
			m->symtab = (const ElfW(Sym) *)dyn_address(v, m->bias);
			break;
		case DT_STRTAB:
			m->strtab = (const char *)dyn_address(v, m->bias);
			break;
		case DT_VERSYM:
			m->versym = (const uint16_t *)dyn_address(v, m->bias);
			break;
		case DT_VERNEED:
			m->verneed = (const void *)dyn_address(v, m->bias);
			break;
		case DT_VERNEEDNUM:
			m->verneed_count = (uint32_t)v;
			break;
		}
	}
	m->njmprel = m->jmprel ? jmprel_size / sizeof(ElfW(Rela)) : 0;
	m->nrela = m->rela ? rela_size / sizeof(ElfW(Rela)) : 0;
	for (size_t i = 0; i < m->njmprel && m->symtab && m->strtab; i++)
		m->own_plt_slots += !startup_slot(m, &m->jmprel[i]);
}

/* The symbol of a relocation that carries calls to another module, or
 * NULL.  A GLOB_DAT slot of a function carries calls only in a module
 * built without a PLT (-fno-plt: no JUMP_SLOT but the start-up code's);
 * elsewhere it holds the function's address as the program takes it (a
 * pointer it compares, or the address -finstrument-functions hooks are
 * given for an inline copy of a library's function), which must stay the
 * function's own. */
static const ElfW(Sym) * call_symbol(const struct module_facts *m, const ElfW(Rela) * r, int plt)
{
	uint32_t type = (uint32_t)ELF64_R_TYPE(r->r_info);
	uint32_t sym = (uint32_t)ELF64_R_SYM(r->r_info);
	if (sym == 0 || type != (plt ? ARCH_RELOC_JUMP_SLOT : ARCH_RELOC_GLOB_DAT) ||
	    (!plt && m->own_plt_slots > 0))
		return NULL;
	const ElfW(Sym) *s = &m->symtab[sym];
	unsigned kind = ELF64_ST_TYPE(s->st_info);
	if (!plt && (s->st_shndx != SHN_UNDEF || (kind != STT_FUNC && kind != STT_GNU_IFUNC)))
		return NULL;
	return s;
}

/* A slot not resolved yet (it points into its own module, the PLT's code):
 * its function is looked up now (libcall_resolve.c; not in a process
 * attached to, where another thread, stopped, may hold the dynamic
 * linker's lock); when it cannot be, the first call goes
 * through the dynamic linker, and its return takes the address
 * (libcall_record.c). */
static uint64_t bind_now(const struct module_facts *m, struct libcall_site *site, uint32_t index)
{
	if (runtime_attach_mode) { /* a stopped thread may hold the dynamic linker's lock */
		site->flags |= LIBCALL_LAZY;
		return 0;
	}
	const char *version = runtime_libcall_symbol_version(m->versym, m->verneed,
							     m->verneed_count, m->strtab, index);
	uint64_t found = runtime_libcall_resolve(site->name, version, m->path);
	if (found && (found < m->lo || found >= m->hi))
		site->target = found;
	else
		site->flags |= LIBCALL_LAZY;
	return found;
}

/* Whether the call through `site` is recorded by its function's entry (or
 * hooks) already: one into a module the in-process engine records, or one
 * the module makes to itself through its PLT (an exported function of its
 * own): such a slot is left alone, so that the call is recorded once. */
static int recorded_by_callee(const struct module_facts *m, const struct libcall_site *site,
			      uint64_t found, struct module_memo *memo)
{
	if (found >= m->lo && found < m->hi)
		return 1;
	return !(site->flags & LIBCALL_LAZY) && runtime_module_recorded_at(site->target, memo);
}

/* Attached, where no slot is resolved now (bind_now): whether the slot's
 * symbol is the module's own function, an export it calls through its PLT,
 * and that function's entry is patched.  The call is then recorded by the
 * entry, as a started program's is once its slot is resolved into the
 * module (recorded_by_callee); an interposer of it is not looked for.  An
 * entry left alone (too short for the jump) keeps the slot's record. */
static int calls_own_definition(const struct module_facts *m, const ElfW(Sym) * s)
{
	uint64_t at = m->bias + s->st_value;
	return runtime_attach_mode && s->st_shndx != SHN_UNDEF && s->st_value != 0 &&
	       ELF64_ST_TYPE(s->st_info) == STT_FUNC && at >= m->lo && at < m->hi &&
	       runtime_patch_attach_jumped(at);
}

/* Fills `sites` with the module's slots; how many.  With NULL: at most
 * how many there are. */
static uint32_t list_sites(const struct module_facts *m, struct libcall_site *sites)
{
	uint32_t n = 0;
	struct module_memo memo = {0, 0, 0};
	for (int plt = 1; plt >= 0; plt--) {
		const ElfW(Rela) *rel = plt ? m->jmprel : m->rela;
		size_t count = plt ? m->njmprel : m->nrela;
		for (size_t i = 0; i < count; i++) {
			const ElfW(Sym) *s = call_symbol(m, &rel[i], plt);
			if (!s)
				continue;
			if (!sites) { /* a bound for the allocation: the names are read once */
				n++;
				continue;
			}
			const char *name = m->strtab + s->st_name;
			uint64_t *slot = (uint64_t *)(m->bias + rel[i].r_offset);
			if (never_hooked(name) || *slot == 0 ||
			    (patch_keeps_return_address(name) && !site_flags(name)) ||
			    calls_own_definition(m, s))
				continue;
			struct libcall_site *site = &sites[n];
			site->slot = slot;
			site->target = site->unhooked = *slot;
			site->name = name;
			site->fid = TRACE_CALL_ADDRESS(CALL_LIBRARY, (uint64_t)slot);
			site->flags = site_flags(name);
			runtime_libcall_describe(site, name);
			uint64_t found = 0;
			if (site->target >= m->lo && site->target < m->hi)
				found = bind_now(m, site, (uint32_t)ELF64_R_SYM(rel[i].r_info));
			if (!recorded_by_callee(m, site, found, &memo))
				n++;
		}
	}
	return n;
}

static int in_relro(const struct hooked_module *h, const uint64_t *slot)
{
	return (uint64_t)slot >= h->relro_lo && (uint64_t)slot < h->relro_hi;
}

/* Points each site's slot at its trampoline (hook) or at its target,
 * where it still holds what it held before, RELRO made writable
 * meanwhile. */
static void write_slots(struct hooked_module *h, int hook)
{
	size_t len = h->relro_hi - h->relro_lo;
	int relro = 0;
	for (uint32_t i = 0; i < h->nsites && !relro; i++)
		relro = in_relro(h, h->sites[i].slot);
	if (relro && mprotect((void *)h->relro_lo, len, PROT_READ | PROT_WRITE) < 0)
		relro = -1;
	for (uint32_t i = 0; i < h->nsites; i++) {
		struct libcall_site *s = &h->sites[i];
		if (relro < 0 && in_relro(h, s->slot))
			continue;
		uint64_t from = hook ? s->unhooked : s->trampoline;
		uint64_t to = hook ? s->trampoline : s->target;
		__atomic_compare_exchange_n(s->slot, &from, to, 0, __ATOMIC_ACQ_REL,
					    __ATOMIC_RELAXED);
	}
	if (relro > 0)
		mprotect((void *)h->relro_lo, len, PROT_READ);
}

static void hook_module(const struct module_facts *m)
{
	if (nmodules == MAX_HOOKED_MODULES)
		return;
	uint32_t most = list_sites(m, NULL);
	struct hooked_module *h = &modules[nmodules++];
	*h = (struct hooked_module){.bias = m->bias,
				    .dynamic = m->dynamic,
				    .relro_lo = m->relro_lo,
				    .relro_hi = m->relro_hi,
				    .seen = 1};
	struct libcall_site *sites = most ? runtime_libcall_sites_alloc(most) : NULL;
	if (!sites)
		return;
	uint32_t n = list_sites(m, sites);
	if (n == 0) {
		runtime_libcall_sites_free(sites, most);
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		sites[i].module = nmodules - 1;
	if (runtime_libcall_trampolines(sites, n) < 0)
		return;
	h->sites = sites;
	h->nsites = n;
	write_slots(h, 1);
	if (verbose)
		runtime_say("library calls: %u slots hooked in %s", n, m->path);
}

/* ---- which modules --------------------------------------------------------- */

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* Whether `path` is one of CALLTRACE_LIBCALL_NESTED's names ("libz" or
 * "libz.so.1" for /usr/lib/libz.so.1). */
static int nested_asked(const char *path)
{
	const char *base = base_name(path);
	for (const char *p = nested; p && *p;) {
		size_t len = strcspn(p, ",");
		if (len && strncmp(base, p, len) == 0 &&
		    (base[len] == '\0' || base[len] == '.' || base[len] == '-'))
			return 1;
		p += len + (p[len] == ',');
	}
	return 0;
}

static const regex_t *pattern(void)
{
	return module_pattern_set ? &module_pattern : NULL;
}

static int traced(const struct module_facts *m, int first)
{
	const char *path = m->path;
	if (first)
		return 1;
	if (!*path || m->bias == runtime_base || strstr(path, "linux-vdso") ||
	    strstr(base_name(path), "ld-linux") || strstr(base_name(path), "libcalltrace"))
		return 0;
	return nested_asked(path) || (patch_on && runtime_module_recorded(path, 0, pattern(), 0));
}

static struct hooked_module *known(uint64_t bias, uint64_t dynamic)
{
	for (uint32_t i = 0; i < nmodules; i++)
		if (modules[i].bias == bias && modules[i].dynamic == dynamic)
			return &modules[i];
	return NULL;
}

static void program_headers(const struct dl_phdr_info *info, struct module_facts *m)
{
	m->lo = UINT64_MAX;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		uint64_t start = info->dlpi_addr + p->p_vaddr;
		uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
		if (p->p_type == PT_LOAD) {
			if (start < m->lo)
				m->lo = start;
			if (start + p->p_memsz > m->hi)
				m->hi = start + p->p_memsz;
		} else if (p->p_type == PT_DYNAMIC) {
			m->dynamic = start;
		} else if (p->p_type == PT_GNU_RELRO) { /* as the dynamic linker rounds it */
			m->relro_lo = start & ~(page - 1);
			m->relro_hi = (start + p->p_memsz) & ~(page - 1);
		}
	}
}

static int each_module(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	int *first = data;
	struct module_facts m = {.path = info->dlpi_name ? info->dlpi_name : "",
				 .bias = info->dlpi_addr};
	int is_first = *first;
	*first = 0;
	program_headers(info, &m);
	if (!m.dynamic || !traced(&m, is_first))
		return 0;
	struct hooked_module *h = known(m.bias, m.dynamic);
	if (h) {
		h->seen = 1;
		return 0;
	}
	read_dynamic(&m);
	if (!m.symtab || !m.strtab)
		return 0;
	if (is_first)
		m.path = runtime_program_path();
	hook_module(&m);
	return 0;
}

/* Forgets the modules no longer loaded (dlclose'd): another may come at
 * their place, with a GOT of its own. */
static void forget_unseen(void)
{
	for (uint32_t i = 0; i < nmodules; i++)
		if (!modules[i].seen && (modules[i].bias || modules[i].dynamic)) {
			runtime_libcall_forget_pending(modules[i].sites, modules[i].nsites);
			modules[i].bias = modules[i].dynamic = 0;
		}
}

/* Held while the modules' slots change (a scan, a restore). */
static int slots_lock;

void runtime_libcall_scan_modules(void)
{
	if (__atomic_exchange_n(&slots_lock, 1, __ATOMIC_ACQUIRE))
		return; /* another thread scans */
	for (uint32_t i = 0; i < nmodules; i++)
		modules[i].seen = 0;
	int first = 1;
	dl_iterate_phdr(each_module, &first);
	forget_unseen();
	__atomic_store_n(&slots_lock, 0, __ATOMIC_RELEASE);
}

static int env_on(const char *name, int fallback)
{
	const char *v = runtime_getenv(name);
	if (!v || !*v)
		return fallback;
	return strcmp(v, "0") != 0 && strcmp(v, "off") != 0 && strcmp(v, "false") != 0;
}

void runtime_libcall_init(void)
{
	runtime_libcall_on = runtime_config.libcall;
	if (!runtime_libcall_on || nmodules)
		return;
	int args = runtime_config.libcall_args;
	runtime_libcall_values_on = args >= 0 ? args : LIBCALL_ARGS_DEFAULT || runtime_args_on;
	verbose = runtime_config.debug || env_on("CALLTRACE_PATCH_VERBOSE", 0);
	nested = runtime_config.libcall_nested;
	const char *modules_re = runtime_getenv("CALLTRACE_PATCH_MODULES");
	patch_on = env_on("CALLTRACE_PATCH", 0);
	if (modules_re && *modules_re && patch_on)
		module_pattern_set =
		    regcomp(&module_pattern, modules_re, REG_EXTENDED | REG_NOSUB) == 0;
	Dl_info self;
	if (dladdr((void *)runtime_libcall_init, &self))
		runtime_base = (uint64_t)self.dli_fbase;
	if (runtime_libcall_code_init() < 0) {
		runtime_say("library calls: no memory for trampolines: not recorded");
		return;
	}
	runtime_libcall_scan_modules();
}

/* Every slot back as it was: the trampolines stay, for the calls on their
 * way through them. */
void runtime_libcall_restore(void)
{
	while (__atomic_exchange_n(&slots_lock, 1, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
	runtime_libcall_forget_pending(NULL, 0);
	for (uint32_t i = 0; i < nmodules; i++)
		if (modules[i].bias || modules[i].dynamic)
			write_slots(&modules[i], 0);
	nmodules = 0;
	if (module_pattern_set)
		regfree(&module_pattern);
	module_pattern_set = 0;
	__atomic_store_n(&slots_lock, 0, __ATOMIC_RELEASE);
}
