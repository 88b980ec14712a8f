/*
 * check_locate.h - what `calltrace check` looks up around an ELF file:
 * where its debug info is, which file a needed library name resolves to,
 * and which Debian package installed it.
 */
#ifndef CALLTRACE_CHECK_LOCATE_H
#define CALLTRACE_CHECK_LOCATE_H

#include <limits.h>
#include <stddef.h>
#include "../symbols/symbols.h"

enum debug_where {
	DEBUG_NONE,	  /* nowhere calltrace looks */
	DEBUG_IN_FILE,	  /* .debug_info in the file itself */
	DEBUG_LINK,	  /* the .gnu_debuglink file, found with a matching CRC */
	DEBUG_BUILD_ID,	  /* /usr/lib/debug/.build-id/xx/yyyy.debug */
	DEBUG_LINK_STALE, /* the .gnu_debuglink file, but its CRC differs */
};

struct debug_location {
	enum debug_where where;
	char path[PATH_MAX]; /* the separate file, for DEBUG_LINK* and DEBUG_BUILD_ID */
};

/* Where the debug info of the ELF file at `path` (facts `f`) is, looked for
 * where elfutils looks: the file, its .gnu_debuglink name beside it, in
 * .debug/ beside it and under /usr/lib/debug/, then the build-id file. */
void check_locate_debug(const char *path, const struct elf_facts *f, struct debug_location *out);

/* The file the dynamic linker would load for the needed library `name` of
 * the module at `module_path` (facts `f`): its RPATH or RUNPATH ($ORIGIN
 * too), LD_LIBRARY_PATH, then the system's library folders.  0 and the
 * path, or -1 when it is not found. */
int check_find_library(const char *name, const char *module_path, const struct elf_facts *f,
		       char *out, size_t len);

/* The Debian package that installed `path` (dpkg-query -S), best effort:
 * 0 and its name, or -1 (not from a package, or no dpkg). */
int check_owner_package(const char *path, char *pkg, size_t len);

/* The package that holds the debug info of `pkg`: "PKG-dbg" when apt knows
 * one, else "PKG-dbgsym" (Debian's debug archive). */
void check_debug_package(const char *pkg, char *out, size_t len);

/* check_hints.c: whether `path` is a libtool wrapper script: 0 and the
 * program it runs (.libs/NAME beside it), or -1. */
int check_libtool_wrapper(const char *path, char *program, size_t len);

/* The functions of the C++ standard library's headers (std::, __gnu_cxx::)
 * defined in the ELF file at `path`, from its symbol table. */
size_t check_count_std_functions(const char *path);

#endif
