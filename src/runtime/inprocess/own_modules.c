/*
 * own_modules.c - which loaded modules the in-process engine records as
 * function calls, and which it leaves to the library-call boundary.
 *
 * Recorded: the main executable; the libraries --module names
 * (CALLTRACE_PATCH_MODULES); and, unless CALLTRACE_PATCH_OWN=0 (record
 * --no-own-libraries), every shared library or plugin that is the
 * program's own, that is, whose path (made canonical without following
 * symbolic links) lies outside the system's library folders: /lib, /lib32,
 * /lib64, /libx32, the same under /usr, and /usr/local/lib, each with every
 * folder below it (the multiarch ones).  So a library beside the program,
 * in its build tree, found through RUNPATH, RPATH or LD_LIBRARY_PATH
 * outside those folders, or dlopen'ed from outside them is recorded; the
 * C library and the other system libraries are not: the calls into them
 * are recorded at the library-call boundary.  The dynamic linker, the vDSO
 * and calltrace's own libraries never are.
 *
 * A call into a recorded module through a GOT slot or a dlsym pointer is
 * then the function's call, recorded once by its entry (or its hooks): the
 * library-call boundary leaves those slots alone (libcall_slots.c).
 *
 * Nothing here calls malloc.
 */
#include "../runtime.h"
#include "own_modules.h"

#include <elf.h>
#include <link.h>
#include <limits.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

static const char *const system_folders[] = {
    "/lib",	  "/lib32",	"/lib64",      "/libx32",	 "/usr/lib",
    "/usr/lib32", "/usr/lib64", "/usr/libx32", "/usr/local/lib",
};

/* `path` made canonical in `out`: "//", "/./" and "dir/.." taken out
 * (symbolic links are not followed: no system call, no allocation). */
static void canonical_path(const char *path, char *out, size_t len)
{
	size_t n = 0;
	out[0] = '\0';
	for (const char *p = path; *p && n + 2 < len;) {
		while (*p == '/')
			p++;
		size_t part = strcspn(p, "/");
		if (part == 0)
			break;
		if (part == 1 && p[0] == '.') {
			p += part;
			continue;
		}
		if (part == 2 && p[0] == '.' && p[1] == '.') {
			while (n > 0 && out[n - 1] != '/')
				n--;
			if (n > 0)
				n--; /* the '/' before it */
			out[n] = '\0';
			p += part;
			continue;
		}
		if (n + 1 + part + 1 > len)
			break;
		out[n++] = '/';
		memcpy(out + n, p, part);
		n += part;
		out[n] = '\0';
		p += part;
	}
	if (n == 0 && len > 1)
		memcpy(out, "/", 2);
}

int runtime_module_in_system_folder(const char *path)
{
	char canonical[PATH_MAX];
	canonical_path(path, canonical, sizeof(canonical));
	for (size_t i = 0; i < sizeof(system_folders) / sizeof(system_folders[0]); i++) {
		size_t len = strlen(system_folders[i]);
		if (strncmp(canonical, system_folders[i], len) == 0 && canonical[len] == '/')
			return 1;
	}
	return 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* The dynamic linker, the vDSO, calltrace's own libraries. */
static int never_recorded(const char *path)
{
	const char *base = base_name(path);
	return !*path || strstr(path, "linux-vdso") || strncmp(base, "ld-linux", 8) == 0 ||
	       strncmp(base, "ld64.so", 7) == 0 || strncmp(base, "libcalltrace", 12) == 0;
}

static int own_libraries_on(void)
{
	const char *v = runtime_getenv("CALLTRACE_PATCH_OWN");
	return v && *v && strcmp(v, "0") != 0;
}

static int say_choices(void)
{
	const char *v = runtime_getenv("CALLTRACE_PATCH_VERBOSE");
	return runtime_config.debug || (v && *v && strcmp(v, "0") != 0);
}

/* Whether the folder of `path` is the program's or one of
 * LD_LIBRARY_PATH's, for the reason -v gives. */
static int same_folder(const char *a, const char *b)
{
	const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
	return sa && sb && sa - a == sb - b && strncmp(a, b, (size_t)(sa - a)) == 0;
}

static int in_library_path(const char *path)
{
	const char *list = runtime_getenv("LD_LIBRARY_PATH");
	const char *slash = strrchr(path, '/');
	if (!list || !slash)
		return 0;
	size_t dir = (size_t)(slash - path);
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ":;");
		while (len > 1 && p[len - 1] == '/')
			len--;
		if (len == dir && strncmp(p, path, dir) == 0)
			return 1;
		p += len;
		p += strspn(p, "/:;");
	}
	return 0;
}

static const char *own_reason(const char *path)
{
	const char *exe = runtime_program_path();
	if (*exe && same_folder(exe, path))
		return "the program's own library: beside the program";
	if (in_library_path(path))
		return "the program's own library: in LD_LIBRARY_PATH, outside the system's "
		       "library folders";
	return "the program's own library: outside the system's library folders";
}

/* Whether the choice for `path` was said already (in this process: the
 * system's libraries are looked at again at each dlopen). */
static int said_before(const char *path)
{
	static uint64_t said[256]; /* their paths' FNV-1a hashes */
	static uint32_t nsaid;
	uint64_t hash = 0xcbf29ce484222325ull;
	for (const char *p = path; *p; p++)
		hash = (hash ^ (uint8_t)*p) * 0x100000001b3ull;
	for (uint32_t i = 0; i < nsaid; i++)
		if (said[i] == hash)
			return 1;
	if (nsaid < sizeof(said) / sizeof(said[0]))
		said[nsaid++] = hash;
	return 0;
}

int runtime_module_recorded(const char *path, int is_main, const regex_t *pattern, int say)
{
	const char *why = NULL; /* NULL: an own library (the reason looked at when said) */
	int recorded = 1;
	if (is_main)
		why = "the program";
	else if (never_recorded(path))
		return 0;
	else if (pattern && regexec(pattern, path, 0, NULL, 0) == 0)
		why = "--module matches it";
	else if (runtime_module_in_system_folder(path))
		recorded = 0, why = "a system library: the calls into it are library calls";
	else if (!own_libraries_on())
		recorded = 0, why = "--no-own-libraries, and --module does not match it";
	if (say && say_choices() && !said_before(path))
		runtime_say("in-process engine: %s %s (%s)", path,
			    recorded ? "recorded" : "not recorded", why ? why : own_reason(path));
	return recorded;
}

/* ---- a library call's target ----------------------------------------------- */

/* The module that holds an address, found with dl_iterate_phdr (dladdr
 * would also search its symbols: 14 us in the C library, for each slot). */
struct holder {
	uint64_t address, bias;
	uint64_t lo, hi; /* the span of its segments */
	const ElfW(Dyn) * dynamic;
	const char *name;
	int is_main, seen_first, found;
};

static int find_holder(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct holder *h = data;
	int first = !h->seen_first;
	h->seen_first = 1;
	const ElfW(Dyn) *dynamic = NULL;
	int holds = 0;
	uint64_t lo = UINT64_MAX, hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		uint64_t start = info->dlpi_addr + p->p_vaddr;
		if (p->p_type == PT_LOAD) {
			holds |= h->address >= start && h->address < start + p->p_memsz;
			lo = start < lo ? start : lo;
			hi = start + p->p_memsz > hi ? start + p->p_memsz : hi;
		} else if (p->p_type == PT_DYNAMIC) {
			dynamic = (const ElfW(Dyn) *)start;
		}
	}
	if (!holds)
		return 0;
	*h = (struct holder){.address = h->address,
			     .bias = info->dlpi_addr,
			     .lo = lo,
			     .hi = hi,
			     .dynamic = dynamic,
			     .name = info->dlpi_name ? info->dlpi_name : "",
			     .seen_first = 1,
			     .found = 1};
	h->is_main = first || !*h->name;
	return 1;
}

/* Whether the module calls __cyg_profile_func_enter through its PLT
 * (built with -finstrument-functions): its hooks record its calls. */
static int calls_hooks(const struct holder *l)
{
	const ElfW(Rela) *jmprel = NULL;
	const ElfW(Sym) *symtab = NULL;
	const char *strtab = NULL;
	size_t size = 0;
	for (const ElfW(Dyn) *d = l->dynamic; d && d->d_tag != DT_NULL; d++) {
		uint64_t v = d->d_un.d_ptr;
		if (v < l->bias) /* not adjusted in place by the dynamic linker */
			v += l->bias;
		if (d->d_tag == DT_JMPREL)
			jmprel = (const ElfW(Rela) *)v;
		else if (d->d_tag == DT_PLTRELSZ)
			size = d->d_un.d_val;
		else if (d->d_tag == DT_SYMTAB)
			symtab = (const ElfW(Sym) *)v;
		else if (d->d_tag == DT_STRTAB)
			strtab = (const char *)v;
	}
	if (!jmprel || !symtab || !strtab)
		return 0;
	for (size_t i = 0; i < size / sizeof(ElfW(Rela)); i++) {
		uint32_t sym = (uint32_t)ELF64_R_SYM(jmprel[i].r_info);
		if (sym && strcmp(strtab + symtab[sym].st_name, "__cyg_profile_func_enter") == 0)
			return 1;
	}
	return 0;
}

static int patch_on(void)
{
	const char *v = runtime_getenv("CALLTRACE_PATCH");
	return v && *v && strcmp(v, "0") != 0;
}

static regex_t module_pattern;
static const regex_t *module_pattern_set;

/* CALLTRACE_PATCH_MODULES, compiled once (the first time a library call's
 * target is looked at: at start). */
static void compile_module_pattern(void)
{
	if (!patch_on())
		return;
	const char *v = runtime_getenv("CALLTRACE_PATCH_MODULES");
	if (v && *v && regcomp(&module_pattern, v, REG_EXTENDED | REG_NOSUB) == 0)
		module_pattern_set = &module_pattern;
}

/* Whether the module `l` is recorded (runtime_module_recorded_at). */
static int holder_recorded(const struct holder *l)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, compile_module_pattern);
	const regex_t *pattern = module_pattern_set;
	if (!l->is_main && runtime_module_in_system_folder(l->name) &&
	    !(pattern && regexec(pattern, l->name, 0, NULL, 0) == 0))
		return 0; /* the common case, quickly */
	if (patch_on() && runtime_module_recorded(l->name, l->is_main, pattern, 0))
		return 1;
	return (l->is_main || !never_recorded(l->name)) && calls_hooks(l) &&
	       runtime_hooks_are_ours();
}

int runtime_module_recorded_at(uint64_t address, struct module_memo *memo)
{
	if (memo && address >= memo->lo && address < memo->hi)
		return memo->recorded;
	struct holder l = {.address = address};
	dl_iterate_phdr(find_holder, &l);
	if (!l.found)
		return 0;
	int recorded = holder_recorded(&l);
	if (memo)
		*memo = (struct module_memo){l.lo, l.hi, recorded};
	return recorded;
}
