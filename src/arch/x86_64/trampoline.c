/*
 * trampoline.c (x86-64) - the head of an in-process engine's trampoline
 * and the reading of an entry jump (patch.h): `push %r11; movabs $record,
 * %r11; jmp runtime_patch_enter_stub` (patch_stubs.S reads %r11), and
 * jmp rel32.
 */
#include "../../patch/patch.h"

#include <string.h>

uint8_t *patch_emit_enter(uint8_t *out, uint64_t at, uint64_t record, uint64_t stub)
{
	uint8_t *p = out;
	*p++ = 0x41; /* push %r11 */
	*p++ = 0x53;
	*p++ = 0x49; /* movabs $record, %r11 */
	*p++ = 0xbb;
	memcpy(p, &record, 8);
	p += 8;
	return patch_emit_jump(p, at + (uint64_t)(p - out), stub);
}

uint64_t patch_jump_target(const uint8_t *code, uint64_t address)
{
	int32_t rel;
	if (code[0] != 0xe9)
		return 0;
	memcpy(&rel, code + 1, 4);
	return address + PATCH_JUMP_LEN + (uint64_t)(int64_t)rel;
}
