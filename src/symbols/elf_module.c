/*
 * elf_module.c - one ELF file opened with libdwfl, for symbol and line
 * lookups at file addresses.
 *
 * Each file gets its own Dwfl with the file reported at base 0, so the
 * addresses asked are the file's own (p_vaddr) addresses.  Separate debug
 * info is found the standard way (.gnu_debuglink, /usr/lib/debug/.build-id/).
 * A file that cannot be read is warned about once (a pseudo path such as
 * "[vdso]" never) and then answers nothing.
 */
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symbols_internal.h"
#include "unit_ranges.h"
#include "../format/printable.h"

enum module_state { MODULE_UNOPENED, MODULE_OPEN, MODULE_UNREADABLE };
enum index_state { INDEX_UNBUILT, INDEX_BUILT, INDEX_FAILED };

struct elf_module {
	char *path;
	uint8_t *build_id;
	size_t build_id_len;
	int warn;
	enum module_state state;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	enum index_state index_state;
	struct func_index functions;
	enum index_state dynamic_state;
	struct elf_dynamic dynamic; /* GOT slots, exported names */
	struct unit_ranges units;   /* when libdw finds no unit (clang: no .debug_aranges) */
};

static const Dwfl_Callbacks offline_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

struct elf_module *elf_module_new(const char *path, const uint8_t *build_id, size_t build_id_len,
				  int warn)
{
	struct elf_module *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->path = strdup(path);
	if (build_id_len > 0) {
		m->build_id = malloc(build_id_len);
		if (m->build_id)
			memcpy(m->build_id, build_id, build_id_len);
		m->build_id_len = build_id_len;
	}
	if (!m->path || (build_id_len > 0 && !m->build_id)) {
		elf_module_free(m);
		return NULL;
	}
	m->warn = warn;
	return m;
}

void elf_module_free(struct elf_module *m)
{
	if (!m)
		return;
	func_index_free(&m->functions);
	elf_dynamic_free(&m->dynamic);
	unit_ranges_free(&m->units);
	if (m->dwfl)
		dwfl_end(m->dwfl);
	free(m->path);
	free(m->build_id);
	free(m);
}

const char *elf_module_path(const struct elf_module *m)
{
	return m->path;
}

int elf_module_matches(const struct elf_module *m, const char *path, const uint8_t *build_id,
		       size_t build_id_len)
{
	if (m->build_id_len != build_id_len || strcmp(m->path, path) != 0)
		return 0;
	return build_id_len == 0 || memcmp(m->build_id, build_id, build_id_len) == 0;
}

static void check_build_id(struct elf_module *m)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	if (m->build_id_len == 0)
		return;
	int len = dwfl_module_build_id(m->mod, &bits, &vaddr);
	if (len == (int)m->build_id_len && memcmp(bits, m->build_id, m->build_id_len) == 0)
		return;
	char path[PRINTABLE_PATH_MAX];
	fprintf(stderr,
		"calltrace: warning: %s has changed since it was traced (build-id differs); "
		"its names and lines may be wrong\n",
		printable(m->path, path, sizeof(path)));
}

/* Names of mappings that are not files, such as the kernel's vDSO. */
static int is_pseudo_path(const char *path)
{
	return path[0] == '\0' || path[0] == '[' || strncmp(path, "linux-vdso", 10) == 0 ||
	       strncmp(path, "linux-gate", 10) == 0;
}

static int module_open(struct elf_module *m)
{
	m->state = MODULE_UNREADABLE;
	m->dwfl = dwfl_begin(&offline_callbacks);
	if (m->dwfl) {
		dwfl_report_begin(m->dwfl);
		m->mod = dwfl_report_elf(m->dwfl, m->path, m->path, -1, 0, true);
		dwfl_report_end(m->dwfl, NULL, NULL);
	}
	if (!m->mod) {
		char path[PRINTABLE_PATH_MAX];
		if (m->warn && !is_pseudo_path(m->path))
			fprintf(stderr, "calltrace: warning: cannot read %s: %s\n",
				printable(m->path, path, sizeof(path)), dwfl_errmsg(-1));
		return -1;
	}
	m->state = MODULE_OPEN;
	check_build_id(m);
	return 0;
}

static int module_ready(struct elf_module *m)
{
	if (m->state == MODULE_UNOPENED)
		module_open(m);
	return m->state == MODULE_OPEN;
}

const char *elf_module_function(struct elf_module *m, uint64_t file_address)
{
	if (!module_ready(m))
		return NULL;
	if (m->index_state == INDEX_UNBUILT)
		m->index_state =
		    func_index_build(&m->functions, m->mod) == 0 ? INDEX_BUILT : INDEX_FAILED;
	if (m->index_state != INDEX_BUILT)
		return NULL;
	return func_index_find(&m->functions, file_address);
}

static const struct elf_dynamic *module_dynamic(struct elf_module *m)
{
	if (!module_ready(m))
		return NULL;
	if (m->dynamic_state == INDEX_UNBUILT) {
		GElf_Addr bias;
		Elf *elf = dwfl_module_getelf(m->mod, &bias);
		m->dynamic_state =
		    elf && elf_dynamic_read(&m->dynamic, elf) == 0 ? INDEX_BUILT : INDEX_FAILED;
	}
	return m->dynamic_state == INDEX_BUILT ? &m->dynamic : NULL;
}

const struct got_slot *elf_module_got_slot(struct elf_module *m, uint64_t file_address)
{
	const struct elf_dynamic *d = module_dynamic(m);
	return d ? elf_dynamic_slot(d, file_address) : NULL;
}

int elf_module_defines(struct elf_module *m, const char *name)
{
	const struct elf_dynamic *d = module_dynamic(m);
	return d && elf_dynamic_defines(d, name);
}

const char *elf_module_exported_at(struct elf_module *m, uint64_t file_address)
{
	const struct elf_dynamic *d = module_dynamic(m);
	return d ? elf_dynamic_exported_at(d, file_address) : NULL;
}

/* The line of `file_address` found through its unit's ranges, when libdw
 * finds no unit for it (a clang-built file: no .debug_aranges); its
 * compilation directory in *comp_dir. */
static const char *source_by_units(struct elf_module *m, uint64_t file_address, int *lineno,
				   const char **comp_dir)
{
	Dwarf_Addr bias;
	Dwarf *dwarf = dwfl_module_getdwarf(m->mod, &bias);
	Dwarf_Die cu;
	Dwarf_Attribute attr;
	if (!dwarf || !unit_ranges_find(&m->units, dwarf, file_address - bias, &cu))
		return NULL;
	Dwarf_Line *l = dwarf_getsrc_die(&cu, file_address - bias);
	if (!l || dwarf_lineno(l, lineno) != 0)
		return NULL;
	*comp_dir = dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &attr));
	return dwarf_linesrc(l, NULL, NULL);
}

const char *elf_module_source(struct elf_module *m, uint64_t file_address, uint32_t *line,
			      char *buf, size_t buflen)
{
	*line = 0;
	if (!module_ready(m))
		return NULL;
	int lineno = 0;
	const char *file = NULL, *comp_dir = NULL;
	Dwfl_Line *l = dwfl_module_getsrc(m->mod, file_address);
	if (l) {
		file = dwfl_lineinfo(l, NULL, &lineno, NULL, NULL, NULL);
		comp_dir = dwfl_line_comp_dir(l);
	} else {
		file = source_by_units(m, file_address, &lineno, &comp_dir);
	}
	if (!file)
		return NULL;
	*line = lineno > 0 ? (uint32_t)lineno : 0;
	/* A path relative to the compilation directory is shown joined to it,
	 * as addr2line does. */
	if (file[0] == '/' || !comp_dir || !*comp_dir)
		return file;
	int n = snprintf(buf, buflen, "%s/%s", comp_dir, file);
	return n > 0 && (size_t)n < buflen ? buf : file;
}
