/*
 * patch_build.c - the in-process engine's patching of one function: its
 * trampoline built from its entry's decoding (the record, the head that
 * takes a call to runtime_patch_enter_stub, the displaced instructions
 * relocated, the jump back), then its entry rewritten into the jump; or,
 * for an entry too short for the jump, the mark kept (patch_lazy.c sends
 * every call through it).  The decoding comes from the session's cache or
 * is made here (patch_decode); the dynamic linker's notice needs no
 * decoder (patch_decode_plain).
 */
#include "../runtime.h"
#include "../../patch/patch.h"
#include "patch_record.h"
#include "patch_shadow.h"

/* An entry too short for the jump keeps its mark (patch_lazy.c); not for
 * runtime_patch_entry, which patches now. */
static int trapped_entries_allowed = 1;

/* Builds the trampoline of the function at `address` whose entry's
 * instructions are described by *d and whose first bytes are `code` (as
 * the compiler wrote them, whatever a mark made of the first): the record,
 * then the head that takes it to runtime_patch_enter_stub
 * (patch_emit_enter), then the displaced instructions and the jump back.
 * *entry_at: where a call goes in. */
static enum patch_verdict build_trampoline(uint64_t address, const uint8_t *code,
					   const struct patch_decoded *d,
					   const struct func_plan *plan, int by_hooks,
					   uint64_t *entry_at)
{
	uint8_t *tramp = patch_code_take(address, PATCH_TRAMPOLINE_SIZE);
	if (!tramp)
		return PATCH_NO_MEMORY;
	/* Built here, then written in one go (the pages may be sealed). */
	uint64_t buf[(PATCH_TRAMPOLINE_SIZE + 7) / 8];
	uint8_t *start = (uint8_t *)buf;
	struct patch_record *rec = (struct patch_record *)start;
	uint8_t *p = start + PATCH_RECORD_ROOM;
	uint64_t base = (uint64_t)tramp;
#define AT(q) (base + (uint64_t)((q)-start))
	*entry_at = AT(p);
	p = patch_emit_enter(p, AT(p), base, (uint64_t)runtime_patch_enter_stub);
	size_t relocated;
	enum patch_verdict v = patch_relocate_decoded(d, code, address, p, AT(p), &relocated);
	if (v != PATCH_OK)
		return v;
	rec->address = address;
	rec->resume = AT(p);
	rec->plan = plan;
	rec->by_hooks = (uint64_t)by_hooks;
#undef AT
	if (patch_code_fill(tramp, start, (size_t)(p - start) + relocated) < 0)
		return PATCH_NO_MEMORY;
	return PATCH_OK;
}

enum patch_verdict runtime_patch_build_decoded(uint64_t address, const uint8_t *code,
					       const struct patch_decoded *d,
					       const struct func_plan *plan, int by_hooks,
					       uint64_t *entry_at, int *trapped)
{
	enum patch_verdict v = (enum patch_verdict)d->verdict;
	*trapped = 0;
	/* Attached, every trap stops at the tool's ptrace first: too slow for
	 * every call of a function, the entry is left alone then. */
	if (v == PATCH_TOO_SHORT && trapped_entries_allowed && !runtime_attach_mode && d->n == 1) {
		/* The mark stays, and every call comes through it. */
		v = build_trampoline(address, code, d, plan, by_hooks, entry_at);
		*trapped = v == PATCH_OK;
		return v;
	}
	if (v != PATCH_OK)
		return v;
	if (runtime_attach_mode) { /* a running process: is it safe? (patch_attach.c) */
		int vet = runtime_patch_attach_vet(address, d->displaced, plan);
		if (vet >= 0)
			return (enum patch_verdict)vet;
	}
	v = build_trampoline(address, code, d, plan, by_hooks, entry_at);
	if (v != PATCH_OK)
		return v;
	if (patch_write_jump(address, *entry_at) < 0)
		return PATCH_NO_MEMORY;
	if (runtime_attach_mode)
		runtime_patch_attach_note(address, *entry_at);
	return PATCH_OK;
}

enum patch_verdict runtime_patch_build(uint64_t address, const uint8_t *code, size_t size,
				       size_t room, const struct func_plan *plan, int by_hooks,
				       uint64_t *entry_at, int *trapped)
{
	struct patch_decoded d;
	patch_decode(code, size, (const uint8_t *)address + size, room, address, &d);
	return runtime_patch_build_decoded(address, code, &d, plan, by_hooks, entry_at, trapped);
}

/* Patches the function of `size` bytes at `address` now, followed by at
 * most `room` bytes that belong to no function (of which only nops and
 * int3 count as padding a jump may cover). */
enum patch_verdict runtime_patch_entry(uint64_t address, size_t size, size_t room,
				       const struct func_plan *plan, int by_hooks)
{
	uint64_t entry_at;
	int trapped;
	int allowed = trapped_entries_allowed;
	const uint8_t *code = (const uint8_t *)address;
	struct patch_decoded d;
	/* The dynamic linker's notice (`ret`) needs no decoder. */
	if (patch_decoder_ready() || patch_decode_plain(code, size, code + size, room, &d) < 0)
		patch_decode(code, size, code + size, room, address, &d);
	trapped_entries_allowed = 0;
	enum patch_verdict v =
	    runtime_patch_build_decoded(address, code, &d, plan, by_hooks, &entry_at, &trapped);
	trapped_entries_allowed = allowed;
	return v;
}
