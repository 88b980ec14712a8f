/*
 * decoder.c - the patching core's one capstone handle (see decoder.h).
 *
 * capstone's memory comes from pages of our own, never from the traced
 * program's malloc (the in-process engine decodes inside that program).
 * capstone is opened with dlopen when first needed (patch_decoder_init), so
 * that a process that never decodes never maps it.
 * The handle lives as long as the process; decoding happens on one thread
 * at a time (at start, under the dynamic linker's lock, or in the ptrace
 * engine's single tracer thread).
 */
#include "decoder.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include "patch.h"

/* ---- capstone's memory ------------------------------------------------- */

#define ARENA_SIZE (4u << 20)

static uint8_t *arena;
static size_t arena_used;

static void *arena_malloc(size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (!arena) {
		void *m = mmap(NULL, ARENA_SIZE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return NULL;
		arena = m;
	}
	if (arena_used + n + 16 > ARENA_SIZE)
		return NULL;
	uint8_t *p = arena + arena_used;
	memcpy(p, &n, sizeof(n)); /* its size, for realloc */
	arena_used += n + 16;
	return p + 16;
}

static void *arena_calloc(size_t count, size_t size)
{
	void *p = arena_malloc(count * size);
	if (p)
		memset(p, 0, count * size);
	return p;
}

static void *arena_realloc(void *old, size_t n)
{
	void *p = arena_malloc(n);
	if (p && old) {
		size_t had;
		memcpy(&had, (uint8_t *)old - 16, sizeof(had));
		memcpy(p, old, had < n ? had : n);
	}
	return p;
}

static void arena_free(void *p)
{
	(void)p; /* capstone frees little; one handle lives for the process */
}

static int arena_vsnprintf(char *s, size_t n, const char *fmt, va_list ap)
{
	(void)fmt;
	(void)ap;
	if (n)
		s[0] = '\0'; /* mnemonics are not needed */
	return 0;
}

/* ---- capstone itself ----------------------------------------------------- */

/* The library is opened when it is first needed, not linked: most
 * processes of a session patch from decodings made once for the session
 * (entry_cache.c) and never load it. */
#define CAPSTONE_LIBRARY "libcapstone.so.4"

static struct {
	cs_err (*option)(csh, cs_opt_type, size_t);
	cs_err (*open)(cs_arch, cs_mode, csh *);
	cs_insn *(*malloc)(csh);
	bool (*disasm_iter)(csh, const uint8_t **, size_t *, uint64_t *, cs_insn *);
} cs;

static csh handle;
static int handle_ready;
static char why_not[160];

static int load_capstone(void)
{
	void *lib = dlopen(CAPSTONE_LIBRARY, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		const char *e = dlerror();
		snprintf(why_not, sizeof(why_not), "%s", e ? e : "cannot be loaded");
		return -1;
	}
	*(void **)&cs.option = dlsym(lib, "cs_option");
	*(void **)&cs.open = dlsym(lib, "cs_open");
	*(void **)&cs.malloc = dlsym(lib, "cs_malloc");
	*(void **)&cs.disasm_iter = dlsym(lib, "cs_disasm_iter");
	if (cs.option && cs.open && cs.malloc && cs.disasm_iter)
		return 0;
	snprintf(why_not, sizeof(why_not), "%s lacks capstone's functions", CAPSTONE_LIBRARY);
	return -1;
}

int patch_decoder_init(void)
{
	if (handle_ready)
		return 0;
	if (why_not[0] || load_capstone() < 0)
		return -1;
	cs_opt_mem mem = {arena_malloc, arena_calloc, arena_realloc, arena_free, arena_vsnprintf};
	if (cs.option(0, CS_OPT_MEM, (size_t)&mem) != CS_ERR_OK ||
	    cs.open(CS_ARCH_X86, CS_MODE_64, &handle) != CS_ERR_OK) {
		snprintf(why_not, sizeof(why_not), "capstone cannot be set up for x86-64");
		return -1;
	}
	cs.option(handle, CS_OPT_DETAIL, CS_OPT_ON);
	handle_ready = 1;
	return 0;
}

const char *patch_decoder_error(void)
{
	return why_not[0] ? why_not : "not set up";
}

int patch_decoder_ready(void)
{
	return handle_ready;
}

cs_insn *decoder_insn_buffer(void)
{
	return patch_decoder_init() < 0 ? NULL : cs.malloc(handle);
}

/* ---- reading instructions ---------------------------------------------- */

int decoder_next(const uint8_t **code, size_t *len, uint64_t *address, cs_insn *insn)
{
	return cs.disasm_iter(handle, code, len, address, insn) ? 0 : -1;
}

int decoder_in_group(const cs_insn *insn, uint8_t group)
{
	const cs_detail *d = insn->detail;
	for (uint8_t i = 0; i < d->groups_count; i++)
		if (d->groups[i] == group)
			return 1;
	return 0;
}

uint64_t decoder_branch_target(const cs_insn *insn)
{
	/* loop and jrcxz are in no jump group, only the relative one */
	if (!decoder_in_group(insn, CS_GRP_BRANCH_RELATIVE) &&
	    !decoder_in_group(insn, CS_GRP_JUMP) && !decoder_in_group(insn, CS_GRP_CALL))
		return 0;
	const cs_x86 *x = &insn->detail->x86;
	if (x->op_count != 1 || x->operands[0].type != X86_OP_IMM)
		return 0;
	return (uint64_t)x->operands[0].imm;
}

uint8_t decoder_rip_disp_offset(const cs_insn *insn)
{
	/* Read from the ModRM byte (mod 00, r/m 101: a disp32 follows, from
	 * %rip, or %eip under a 0x67) rather than from the operands or from
	 * encoding.disp_size: capstone 4 reports a 2-byte displacement when a
	 * 0x66 (or VEX's 66) sets the operand size. */
	const cs_x86 *x = &insn->detail->x86;
	uint8_t at = (uint8_t)(x->encoding.modrm_offset + 1);
	if (x->encoding.modrm_offset == 0 || (x->modrm & 0xc7) != 0x05 || at + 4u > insn->size)
		return 0;
	return at;
}
