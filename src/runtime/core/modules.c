/*
 * modules.c - which ELF objects are loaded where, written as module records
 * so that addresses can be resolved after the fact (PIE, ASLR, plugins that
 * are dlclose'd before the end).
 *
 * The loaded objects are listed with dl_iterate_phdr at start, after a fork,
 * whenever a function is seen whose address lies in no known module (a
 * library was dlopen'd), and after dlclose (to record unloads).  dlopen
 * itself is not wrapped, so that the dynamic linker still sees the real
 * caller (its RUNPATH and $ORIGIN).  When a module goes, every thread
 * forgets its function ids, so that an address is looked up again: another
 * module may be loaded there next.
 *
 * Nothing here calls malloc: a program may define its own, instrumented,
 * and the runtime's work must not show up as its calls.  Paths are kept
 * once each in pages of their own.
 */
#include "../runtime.h"
#include "../../utils/big_table.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAX_MODULES 1024
#define BUILD_ID_MAX 64

struct known_module {
	uint64_t low, high, load_bias;
	const char *path; /* interned */
	int seen;	  /* found by the scan in progress */
	uint32_t build_id_len;
	uint8_t build_id[BUILD_ID_MAX]; /* a fork child writes it again unread */
};

static struct known_module modules[MAX_MODULES] BIG_TABLE;
static uint32_t nmodules;
static pthread_mutex_t modules_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- paths, each kept once -------------------------------------------- */

#define PATH_PAGE_SIZE (64u << 10)

struct path_page {
	struct path_page *next;
	size_t used;
	char text[];
};

static struct path_page *path_pages;

static const char *path_find(const char *path, size_t len)
{
	for (const struct path_page *pg = path_pages; pg; pg = pg->next)
		for (size_t at = 0; at < pg->used;) {
			const char *p = pg->text + at;
			size_t n = strlen(p);
			if (n == len && memcmp(p, path, len) == 0)
				return p;
			at += n + 1;
		}
	return NULL;
}

static const char *path_intern(const char *path)
{
	size_t len = strlen(path);
	const char *known = path_find(path, len);
	if (known)
		return known;
	size_t room = PATH_PAGE_SIZE - sizeof(struct path_page);
	if (len + 1 > room)
		return NULL;
	struct path_page *pg = path_pages;
	if (!pg || pg->used + len + 1 > room) {
		void *mem = mmap(NULL, PATH_PAGE_SIZE, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (mem == MAP_FAILED)
			return NULL;
		pg = mem;
		pg->next = path_pages;
		pg->used = 0;
		path_pages = pg;
	}
	char *p = pg->text + pg->used;
	memcpy(p, path, len + 1);
	pg->used += len + 1;
	return p;
}

/* ---- the modules ------------------------------------------------------- */

struct found_object {
	uint64_t low, high;
	const uint8_t *build_id;
	uint32_t build_id_len;
};

static void find_build_id(const struct dl_phdr_info *info, const ElfW(Phdr) * ph,
			  struct found_object *o)
{
	const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
	const char *end = p + ph->p_memsz;
	while (p + sizeof(ElfW(Nhdr)) <= end) {
		const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
		const char *name = p + sizeof(*n);
		const char *desc = name + ((n->n_namesz + 3) & ~3u);
		if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
		    memcmp(name, "GNU", 4) == 0 && desc + n->n_descsz <= end) {
			o->build_id = (const uint8_t *)desc;
			o->build_id_len = n->n_descsz;
			return;
		}
		p = desc + ((n->n_descsz + 3) & ~3u);
	}
}

static void describe_object(const struct dl_phdr_info *info, struct found_object *o)
{
	memset(o, 0, sizeof(*o));
	o->low = UINT64_MAX;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD) {
			uint64_t lo = info->dlpi_addr + ph->p_vaddr;
			if (lo < o->low)
				o->low = lo;
			if (lo + ph->p_memsz > o->high)
				o->high = lo + ph->p_memsz;
		} else if (ph->p_type == PT_NOTE && !o->build_id) {
			find_build_id(info, ph, o);
		}
	}
}

/* The path the kernel gives the file mapped at `address`, from the line
 * "start-end perms offset dev inode   path" of /proc/self/maps that holds it;
 * 0, or -1 when there is none.  Rare (a relative name): its buffers stay
 * out of note_object's frame, below which every image writes its modules. */
static __attribute__((noinline)) int mapped_file_path(uint64_t address, char *out, size_t len)
{
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	char buf[4096], line[PATH_MAX + 128];
	size_t used = 0;
	int found = -1;
	ssize_t got;
	while (found < 0 && (got = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < got && found < 0; i++) {
			if (buf[i] != '\n') {
				if (used < sizeof(line) - 1)
					line[used++] = buf[i];
				continue;
			}
			line[used] = '\0';
			used = 0;
			unsigned long start, end;
			int path_at = 0;
			if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %n", &start, &end, &path_at) ==
				2 &&
			    path_at > 0 && address >= start && address < end &&
			    line[path_at] == '/') {
				snprintf(out, len, "%s", line + path_at);
				found = 0;
			}
		}
	close(fd);
	return found;
}

/* The module's name as the dynamic linker has it, made absolute when it is
 * not ("./plugin.so" from dlopen): the trace is read from anywhere. */
static const char *module_path(const struct dl_phdr_info *info, uint64_t low, char *buf, size_t len)
{
	const char *path = info->dlpi_name;
	if (!path || !*path)
		return runtime_program_path();
	if (path[0] != '/' && strchr(path, '/') && mapped_file_path(low, buf, len) == 0)
		return buf;
	return path;
}

static struct known_module *find_known(uint64_t low, uint64_t load_bias)
{
	for (uint32_t i = 0; i < nmodules; i++)
		if (modules[i].low == low && modules[i].load_bias == load_bias)
			return &modules[i];
	return NULL;
}

static int note_object(struct dl_phdr_info *info, size_t size, void *unused)
{
	(void)size;
	(void)unused;
	struct found_object o;
	describe_object(info, &o);
	if (o.low == UINT64_MAX)
		return 0;
	struct known_module *m = find_known(o.low, info->dlpi_addr);
	if (m) {
		m->seen = 1;
		return 0;
	}
	if (nmodules == MAX_MODULES)
		return 0;
	char buf[PATH_MAX];
	const char *path = module_path(info, o.low, buf, sizeof(buf));
	m = &modules[nmodules++];
	*m = (struct known_module){.low = o.low,
				   .high = o.high,
				   .load_bias = info->dlpi_addr,
				   .path = path_intern(path),
				   .seen = 1};
	m->build_id_len = o.build_id_len;
	if (o.build_id_len <= BUILD_ID_MAX)
		memcpy(m->build_id, o.build_id, o.build_id_len);
	trace_write_module(&runtime_session, MODULE_LOAD, m->load_bias, m->low, m->high, o.build_id,
			   o.build_id_len, path);
	return 0;
}

/* Records new modules and, when `unloads` is set, the ones gone; returns
 * how many went. */
static uint32_t scan_locked(int unloads)
{
	for (uint32_t i = 0; i < nmodules; i++)
		modules[i].seen = 0;
	dl_iterate_phdr(note_object, NULL);
	uint32_t gone = 0;
	if (!unloads)
		return 0;
	for (uint32_t i = 0; i < nmodules;) {
		if (modules[i].seen) {
			i++;
			continue;
		}
		struct known_module *m = &modules[i];
		trace_write_module(&runtime_session, MODULE_UNLOAD, m->load_bias, m->low, m->high,
				   NULL, 0, m->path ? m->path : "");
		modules[i] = modules[--nmodules];
		gone++;
	}
	return gone;
}

void runtime_modules_scan(void)
{
	int saved = errno;
	uint32_t gen = runtime_internal_begin(&runtime_thread);
	pthread_mutex_lock(&modules_lock);
	uint32_t gone = scan_locked(1);
	pthread_mutex_unlock(&modules_lock);
	if (gone) {
		__atomic_add_fetch(&runtime_module_epoch, 1, __ATOMIC_ACQ_REL);
		runtime_state_bump(); /* every thread's next hook sees it */
	}
	runtime_internal_end(&runtime_thread, gen);
	errno = saved;
}

void runtime_modules_forget(void)
{
	pthread_mutex_init(&modules_lock, NULL); /* a fork child: nobody holds it */
	nmodules = 0;
}

/* A fork child has its parent's modules where they were: their records are
 * written again from what the parent learnt, not from another walk over
 * the loader's list and every module's notes, each a page the child would
 * fault in.  The long way still when a scan was under way in another
 * thread at the fork (the list may be half written), when the parent knew
 * none, or a module's path or build-id was not kept. */
void runtime_modules_rewrite(void)
{
	int whole = nmodules > 0 && pthread_mutex_trylock(&modules_lock) == 0;
	pthread_mutex_init(&modules_lock, NULL); /* nobody holds it */
	for (uint32_t i = 0; i < nmodules; i++)
		whole &= modules[i].path != NULL && modules[i].build_id_len <= BUILD_ID_MAX;
	if (!whole) {
		runtime_modules_forget();
		runtime_modules_scan();
		return;
	}
	for (uint32_t i = 0; i < nmodules; i++) {
		const struct known_module *m = &modules[i];
		trace_write_module(&runtime_session, MODULE_LOAD, m->load_bias, m->low, m->high,
				   m->build_id_len ? m->build_id : NULL, m->build_id_len, m->path);
	}
}

/* Called when a function gets its first id in a window: cheap when the
 * address is in a known module, a rescan when it is not. */
void runtime_module_check(uint64_t address)
{
	address = TRACE_CALL_WHERE(address); /* a library call's: its slot */
	uint32_t n = __atomic_load_n(&nmodules, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; i < n; i++)
		if (address >= modules[i].low && address < modules[i].high)
			return;
	int saved = errno;
	uint32_t gen = runtime_internal_begin(&runtime_thread);
	if (pthread_mutex_trylock(&modules_lock) == 0) {
		scan_locked(0);
		pthread_mutex_unlock(&modules_lock);
	}
	runtime_internal_end(&runtime_thread, gen);
	errno = saved;
}

/* dlclose is wrapped (it does not care who calls it) to record unloads. */
RUNTIME_EXPORT int dlclose(void *handle)
{
	static int (*real_dlclose)(void *);
	if (!real_dlclose)
		real_dlclose = (int (*)(void *))dlsym(RTLD_NEXT, "dlclose");
	if (!real_dlclose)
		return -1;
	int rc = real_dlclose(handle);
	if (runtime_session.fd >= 0)
		runtime_modules_scan();
	return rc;
}
