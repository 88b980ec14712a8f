/*
 * libcall_resolve.c - the function a lazily bound GOT slot will be given,
 * found when the slot is hooked: the symbol (of the version the module
 * asks for, or without any: an interposer's) looked up as the dynamic
 * linker does for the module, first in the global scope, then in the
 * module's own dependencies.  With it, no
 * call has to go through the dynamic linker's resolution, during which the
 * slot holds the function itself and calls of other threads would pass
 * unrecorded.  IFUNCs come out resolved, as from the dynamic linker.
 */
#include "../runtime.h"
#include "libcall.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>

/* The version the module needs for symbol `index` (its DT_VERSYM entry,
 * named in DT_VERNEED), or NULL for an unversioned one. */
const char *runtime_libcall_symbol_version(const uint16_t *versym, const void *verneed,
					   uint32_t verneed_count, const char *strtab,
					   uint32_t index)
{
	if (!versym || !verneed)
		return NULL;
	uint16_t want = versym[index] & 0x7fff;
	if (want <= 1) /* local, global: unversioned */
		return NULL;
	const char *vn = verneed;
	for (uint32_t i = 0; i < verneed_count; i++) {
		const ElfW(Verneed) *need = (const ElfW(Verneed) *)vn;
		const char *aux = vn + need->vn_aux;
		for (uint32_t j = 0; j < need->vn_cnt; j++) {
			const ElfW(Vernaux) *a = (const ElfW(Vernaux) *)aux;
			if (a->vna_other == want)
				return strtab + a->vna_name;
			aux += a->vna_next;
		}
		if (!need->vn_next)
			break;
		vn += need->vn_next;
	}
	return NULL;
}

/* Whether the two addresses lie in one module: _dl_find_object where the
 * C library has it (a lookup in a sorted table), else dladdr (which also
 * walks the module's symbols: tens of microseconds in the C library). */
static int same_module(void *a, void *b)
{
#ifdef DLFO_STRUCT_HAS_EH_DBASE
	struct dl_find_object x, y;
	if (_dl_find_object(a, &x) == 0 && _dl_find_object(b, &y) == 0)
		return x.dlfo_link_map == y.dlfo_link_map;
#endif
	Dl_info ai, bi;
	return dladdr(a, &ai) && dladdr(b, &bi) && ai.dli_fbase == bi.dli_fbase;
}

/* What the dynamic linker would bind in `scope`: the first definition
 * of `name` there that has `version` or no version at all (an interposer
 * preloaded, the runtime's own).  dlsym finds the first definition of the
 * default version or of none, dlvsym the first of `version`: when they
 * differ within one library, the module wants an older version than the
 * default (dlvsym's); when in two, dlsym's comes first and has none. */
static void *look_up(void *scope, const char *name, const char *version)
{
	void *any = dlsym(scope, name);
	if (!version)
		return any;
	void *exact = dlvsym(scope, name, version);
	if (!any || !exact || any == exact)
		return exact ? exact : any;
	return same_module(any, exact) ? exact : any;
}

uint64_t runtime_libcall_resolve(const char *name, const char *version, const char *path)
{
	void *found = look_up(RTLD_DEFAULT, name, version);
	if (!found && path && *path) {
		void *module = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
		if (module) {
			found = look_up(module, name, version);
			dlclose(module);
		}
	}
	return (uint64_t)found;
}
