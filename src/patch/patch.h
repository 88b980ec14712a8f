/*
 * patch.h - the patching core: decide whether a function's entry can be
 * rewritten into a jump, move the instructions it displaces into a
 * trampoline (relocated: rip-relative operands fixed, branches widened,
 * a call emulated), and write the jump.
 *
 * What is per architecture lives in src/arch/<cpu>/ behind this header:
 * x86-64's planning and relocation are relocate.c and decoder.c here
 * (capstone), aarch64's src/arch/aarch64/relocate.c.  Nothing here
 * allocates with malloc (capstone is given an allocator of its own): the
 * code runs inside the traced program.
 */
#ifndef CALLTRACE_PATCH_H
#define CALLTRACE_PATCH_H

#include <stddef.h>
#include <stdint.h>
#include "../arch/arch.h"

#define PATCH_JUMP_LEN ARCH_JUMP_LEN /* jmp rel32; B */
#define PATCH_DISPLACED_MAX 32	     /* bytes of instructions displaced, at most */
#define PATCH_RELOCATED_MAX 160	     /* bytes they may take relocated */

enum patch_verdict {
	PATCH_OK = 0,
	PATCH_TOO_SHORT,     /* ends before 5 bytes, and no padding after it */
	PATCH_UNDECODABLE,   /* capstone does not know the bytes */
	PATCH_BRANCH_INSIDE, /* a jump of the function lands in the bytes rewritten */
	PATCH_UNRELOCATABLE, /* an instruction that cannot move (loop, far rip offset) */
	PATCH_NO_MEMORY,     /* no trampoline memory near the function */
	/* Attaching to a running process only: */
	PATCH_THREAD_INSIDE,  /* a thread stands inside the bytes rewritten */
	PATCH_RETURNS_INSIDE, /* a call among them would return inside them */
	PATCH_VERDICTS
};

const char *patch_verdict_text(enum patch_verdict v);

/* Sets the decoder up (x86-64: loads capstone); 0, or -1 when it cannot
 * be, and patch_decoder_error() says why in a few words. */
int patch_decoder_init(void);
const char *patch_decoder_error(void);
/* Whether patch_decoder_init has succeeded in this process. */
int patch_decoder_ready(void);

/* Which instructions the jump at `address` displaces.  `code` holds the
 * function's `size` bytes followed by `pad` bytes of padding that no code
 * reaches (0 when unknown).  On PATCH_OK, *displaced is the bytes of whole
 * instructions to move out: at least PATCH_JUMP_LEN, or all of a function
 * shorter than that which ends in a ret or jmp and is followed by enough
 * padding. */
enum patch_verdict patch_plan(const uint8_t *code, size_t size, size_t pad, uint64_t address,
			      size_t *displaced);

/* The length of the first instruction at `code` (from `address`), for an
 * entry that keeps a one-byte trap and runs that instruction elsewhere:
 * PATCH_OK, or PATCH_UNDECODABLE / PATCH_UNRELOCATABLE. */
enum patch_verdict patch_plan_trap(const uint8_t *code, size_t size, uint64_t address,
				   size_t *displaced);

/* Whether a call among the `displaced` bytes of instructions at `code`
 * (from `address`) ends before them: a return address into the middle of
 * the rewritten bytes, for a call still running when they are rewritten. */
int patch_call_returns_inside(const uint8_t *code, size_t displaced, uint64_t address);

/* How many of the first `max` bytes at `code` are padding (nop, int3). */
size_t patch_padding_after(const uint8_t *code, size_t max);

/* Writes the `displaced` bytes of instructions at `code` (from `address`),
 * relocated to run at `out_address`, then a jump back to address +
 * displaced, into `out` (PATCH_RELOCATED_MAX bytes).  *out_len: bytes
 * written. */
enum patch_verdict patch_relocate(const uint8_t *code, size_t displaced, uint64_t address,
				  uint8_t *out, uint64_t out_address, size_t *out_len);

/* Where patch_relocate_layout put the displaced instructions: the i-th
 * starts at byte from[i] of the original and to[i] of the output; the last
 * entry (i = n - 1) is their end, where the output's jump back starts. */
#define PATCH_LAYOUT_MAX 8 /* instructions, at most */
struct patch_layout {
	uint8_t n;
	uint8_t from[PATCH_LAYOUT_MAX + 1], to[PATCH_LAYOUT_MAX + 1];
};

/* patch_relocate that also says where each instruction went, for a tracer
 * that must map a position in the output back to the original code.
 * PATCH_UNRELOCATABLE when there are more than PATCH_LAYOUT_MAX. */
enum patch_verdict patch_relocate_layout(const uint8_t *code, size_t displaced, uint64_t address,
					 uint8_t *out, uint64_t out_address, size_t *out_len,
					 struct patch_layout *layout);

/* What planning and relocating a function's entry need to know of its
 * instructions, derived from the file's bytes alone (no address in it):
 * made once per module and session, and kept in the session's function
 * cache (function_cache.c), so that a process patches from it without a
 * decoder.  `n` instructions are described: those patch_plan displaces
 * (PATCH_OK), or the first one (PATCH_TOO_SHORT, for an entry that keeps
 * its trap; n = 0 when it cannot run elsewhere). */
#define PATCH_DECODED_INSNS 5 /* the jump's 5 bytes hold 5 instructions at most */
enum patch_move {
	PATCH_MOVE_COPY = 1, /* copied as it is */
	PATCH_MOVE_RIP,	     /* copied, its %rip displacement (at `aux`) fixed */
	PATCH_MOVE_CALL,     /* a direct call of `target`, emulated */
	PATCH_MOVE_JMP,	     /* a direct jmp to `target` */
	PATCH_MOVE_JCC,	     /* a jcc (condition `aux`) to `target` */
};
struct patch_decoded {
	uint8_t verdict;   /* patch_plan's */
	uint8_t displaced; /* bytes of the `n` instructions */
	uint8_t padding;   /* patch_padding_after's, of the 16 bytes after it at most */
	uint8_t n;
	uint8_t len[PATCH_DECODED_INSNS], move[PATCH_DECODED_INSNS], aux[PATCH_DECODED_INSNS];
	uint8_t reserved;
	uint8_t entry[4]; /* its first ARCH_MARK_LEN bytes: what a mark takes (patch_lazy.c) */
	int64_t target[PATCH_DECODED_INSNS]; /* from the function's start */
	uint8_t code[24];		     /* the `displaced` bytes themselves, when they fit */
};
_Static_assert(ARCH_MARK_LEN <= sizeof(((struct patch_decoded *)0)->entry), "a mark's bytes");

/* Decodes the entry of the function of `size` bytes at `code` (running at
 * `address`) into *d; `after` is the `room` bytes after the function that
 * belong to no function (the first 16 at most are read, for padding). */
void patch_decode(const uint8_t *code, size_t size, const uint8_t *after, size_t room,
		  uint64_t address, struct patch_decoded *d);

/* patch_decode with no decoder, for a function made of a `ret` alone (an
 * endbr64 before it), as the dynamic linker's notice function is: 0, or -1
 * when the function is not one (patch_decode must decode it). */
int patch_decode_plain(const uint8_t *code, size_t size, const uint8_t *after, size_t room,
		       struct patch_decoded *d);

/* patch_relocate of the `d->n` instructions described by *d, from `code`
 * (the function's first bytes as the compiler wrote them), with no
 * decoder. */
enum patch_verdict patch_relocate_decoded(const struct patch_decoded *d, const uint8_t *code,
					  uint64_t address, uint8_t *out, uint64_t out_address,
					  size_t *out_len);

/* Writes a jump from `from` to `to` at `out`: jmp rel32 (B) when it
 * reaches, else jmp through an absolute address (14 bytes; 16 on aarch64).
 * Returns the end. */
uint8_t *patch_emit_jump(uint8_t *out, uint64_t from, uint64_t to);

/* Writes a trampoline's head at `out` (which runs at `at`): the address
 * of its record (`record`) into the scratch register the enter stub reads
 * (%r11, x16), then a jump to `stub`; at most ARCH_TRAMPOLINE_HEAD_MAX
 * bytes.  Returns the end. */
uint8_t *patch_emit_enter(uint8_t *out, uint64_t at, uint64_t record, uint64_t stub);

/* The target of the entry jump at `address`, or 0 when there is none. */
uint64_t patch_jump_target(const uint8_t *code, uint64_t address);

/* A region of trampoline memory (code_memory.c). */
struct patch_code_region {
	uint8_t *base;
	size_t used; /* its first bytes given so far */
	int sealed;
};

/* Memory for trampolines within reach of a rel32 jump from `near`; the
 * pages are read-write-execute until patch_code_seal().  NULL when none. */
uint8_t *patch_code_alloc(uint64_t near, size_t len);
/* The same, the pages left as they are: written with patch_code_fill. */
uint8_t *patch_code_take(uint64_t near, size_t len);
/* Writes `len` bytes of trampoline at `at` (given by patch_code_take),
 * sealed or not.  0, or -1 with errno. */
int patch_code_fill(uint8_t *at, const uint8_t *bytes, size_t len);
/* While on, patch_code_take opens a sealed region it gives room in (one
 * mprotect a region), so that many trampolines in a row are copied in,
 * not written by a system call each; patch_code_seal closes them. */
void patch_code_open_all(int on);
/* Maps a new region at `at` exactly (0), or none (-1), and gives its room
 * first until patch_code_unpin_region: the trampolines taken meanwhile lie
 * at the same distance from their functions in every process that pins at
 * the same distance from the module (patch_shared.c).  Unpinning says
 * whether they all went there (0) or not (-1). */
int patch_code_pin_region(uint64_t at);
int patch_code_unpin_region(void);
/* Makes every trampoline page read-execute. */
void patch_code_seal(void);
/* The start of the trampoline `address` lies in, when every trampoline was
 * given `len` bytes; NULL when the address is in none.  Safe in a signal
 * handler. */
uint8_t *patch_code_block_at(uint64_t address, size_t len);
/* The regions given so far and where their count is: for a tool that
 * reads them from outside the process. */
const struct patch_code_region *patch_code_regions(const uint32_t **count);

/* The start of the block of region `r` that `address` lies in, when every
 * block was given `len` bytes (rounded as patch_code_alloc does); 0 when
 * it lies in none. */
static inline uint64_t patch_code_region_block(const struct patch_code_region *r, uint64_t address,
					       size_t len)
{
	uint64_t base = (uint64_t)(uintptr_t)r->base;
	len = (len + 15) & ~(size_t)15;
	return address >= base && address < base + r->used ? base + (address - base) / len * len
							   : 0;
}

/* Between patch_code_batch(1) and patch_code_batch(0), the writes below
 * come from one thread, under its caller's lock, with no fork meanwhile:
 * the descriptor they go through is checked once, not before each. */
void patch_code_batch(int on);

/* While a sink is set, a write of code that it takes (returns 1 for) is
 * handed to it instead of made: patch_write_jump's, patch_write_back's.
 * NULL: writes are made again. */
typedef int (*patch_code_sink)(uint64_t address, const uint8_t *bytes, size_t len);
void patch_code_hold_writes(patch_code_sink sink);

/* Rewrites the first bytes of the function at `address` into a jump to
 * `target` (which must be within rel32 reach).  0, or -1 with errno. */
int patch_write_jump(uint64_t address, uint64_t target);
/* Makes the code pages from `first` to `last` writable (or read-execute
 * again), for writing many marks at once: until they are closed again,
 * what patch_write_jump and patch_write_back put there is stored directly.
 * 0, or -1 with errno. */
int patch_code_writable(uint64_t first, uint64_t last, int writable);
/* Puts `len` (at most 64) bytes of code at `address`: the original bytes
 * back where patch_write_jump wrote, a mark or the bytes a mark took; 0,
 * or -1 with errno (not mapped). */
int patch_write_back(uint64_t address, const uint8_t *bytes, size_t len);

#endif
