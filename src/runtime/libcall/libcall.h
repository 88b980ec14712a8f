/*
 * libcall.h - library calls: the calls a traced module makes into another
 * shared library, recorded at the GOT slot they go through (libcall_slots.c
 * points each slot at a trampoline of its own; libcall_record.c records the
 * call and its return; libcall_stubs.S saves the registers around it).
 */
#ifndef CALLTRACE_LIBCALL_H
#define CALLTRACE_LIBCALL_H

#include <stdint.h>

struct prototype;

enum libcall_site_flags {
	LIBCALL_LAZY = 1,	/* the slot is not resolved yet: target is the PLT's own code */
	LIBCALL_DLOPEN = 2,	/* dlopen, dlmopen: new modules may come */
	LIBCALL_DLSYM = 4,	/* dlsym, dlvsym: the pointer returned is wrapped */
	LIBCALL_CALLER = 8,	/* reads its return address: returns through a landing pad */
	LIBCALL_DLSYM_PTR = 16, /* a pointer dlsym returned, no slot */
	LIBCALL_VALUES = 32	/* its values are captured (proto) */
};
/* The sites whose return asks runtime_libcall_returned for more. */
#define LIBCALL_AFTER_RETURN (LIBCALL_LAZY | LIBCALL_DLOPEN | LIBCALL_DLSYM | LIBCALL_VALUES)

/* One GOT slot hooked (or one function dlsym returned). */
struct libcall_site {
	uint64_t target;	       /* where its calls go */
	uint64_t fid;		       /* TRACE_CALL_ADDRESS(CALL_LIBRARY, where) */
	uint64_t *slot;		       /* the GOT slot, or NULL */
	uint64_t trampoline;	       /* what the slot holds while hooked */
	uint64_t unhooked;	       /* what the slot held when it was hooked */
	const char *name;	       /* its symbol (the module's dynamic string table) */
	const struct prototype *proto; /* LIBCALL_VALUES: what its values are */
	uint32_t flags;		       /* enum libcall_site_flags */
	uint32_t module;	       /* index of its module (libcall_slots.c) */
};
/* Where an aarch64 enter stub reads the slot (libcall_stubs.S). */
_Static_assert(__builtin_offsetof(struct libcall_site, slot) == 16, "slot at 16");

/* libcall_slots.c */
/* Library calls' values are captured with --args (CALLTRACE_CAPTURE_ARGS,
 * and its filter) or CALLTRACE_LIBCALL_ARGS=1, not by default: they make
 * a recorded library call cost about 1.6 times as much (bench/libcall_bench.sh). */
#define LIBCALL_ARGS_DEFAULT 0
/* Gives `site` the prototype of `name` when values are captured. */
void runtime_libcall_describe(struct libcall_site *site, const char *name);
extern int runtime_libcall_on; /* CALLTRACE_LIBCALL (default on) */
/* Hooks the slots of the traced modules not hooked yet; says how many
 * when verbose.  Called at start, after dlopen, at attach. */
void runtime_libcall_init(void) __attribute__((weak));
void runtime_libcall_scan_modules(void);
/* Puts every slot hooked back as it was (attach's detach). */
void runtime_libcall_restore(void) __attribute__((weak));
/* A trampoline for the function at `address` that dlsym returned to a
 * traced module; `address` itself when none can be made. */
uint64_t runtime_libcall_wrap_pointer(uint64_t address);
/* The function such a trampoline at `address` stands for, or `address`. */
uint64_t runtime_libcall_unwrap_pointer(uint64_t address);
/* The landing pad a caller-sensitive call returns through (code in no
 * module, so the dynamic linker takes the main program for its caller). */
extern uint64_t runtime_libcall_landing;

/* libcall_code.c: the landing pad (0 on success, -1: no memory) */
int runtime_libcall_code_init(void);
/* Room for n sites (zeroed), or NULL; and its release, before any of
 * them is hooked. */
struct libcall_site *runtime_libcall_sites_alloc(uint32_t n);
void runtime_libcall_sites_free(struct libcall_site *sites, uint32_t n);
/* A trampoline for each site (site->trampoline set); 0, or -1. */
int runtime_libcall_trampolines(struct libcall_site *sites, uint32_t n);

/* libcall_resolve.c */
const char *runtime_libcall_symbol_version(const uint16_t *versym, const void *verneed,
					   uint32_t verneed_count, const char *strtab,
					   uint32_t index);
/* The function `name` (of `version`, or unversioned: NULL) a slot of the
 * module at `path` would be bound to; 0 when not found. */
uint64_t runtime_libcall_resolve(const char *name, const char *version, const char *path);

/* libcall_fast.c: the common case of an enter (the function's address)
 * and of a return (the real return address); 0: take the checked path. */
uint64_t runtime_libcall_enter_fast(struct libcall_site *site, uint64_t *return_slot);
uint64_t runtime_libcall_return_fast(uint64_t sp);
/* libcall_record.c: this thread records a library call now (calls
 * meanwhile are its own); lazily bound slots wait to be put back. */
extern __thread uint32_t runtime_libcall_busy __attribute__((tls_model("initial-exec")));
extern uint32_t runtime_libcall_lazy_waiting;
/* libcall_record.c: from libcall_stubs.S and patch_shadow.c */
uint64_t runtime_libcall_on_enter(struct libcall_site *site, uint64_t *return_slot,
				  uint64_t *registers);
void runtime_libcall_returned(struct libcall_site *site, uint64_t *registers,
			      uint64_t *return_slot);
/* Whether library calls' values are captured (CALLTRACE_LIBCALL_ARGS). */
extern int runtime_libcall_values_on;

/* libcall_values.c: the values of EV_ARGS from the enter stub's registers,
 * of EV_RETVAL from the return stub's (errno as it was after the call);
 * bytes written at out (TRACE_VALUES_MAX room). */
uint32_t runtime_libcall_encode_args(const struct prototype *proto, const void *registers,
				     uint8_t *out);
uint32_t runtime_libcall_encode_return(const struct prototype *proto, const void *registers,
				       int saved_errno, uint8_t *out);
/* Puts the trampolines back into the lazily bound slots the dynamic
 * linker resolved (by a call that did not return through the runtime). */
void runtime_libcall_sweep(void);
/* Forgets the lazily bound slots waiting for their address among the n
 * `sites` (NULL: all; their module is gone, or restored). */
void runtime_libcall_forget_pending(const struct libcall_site *sites, uint32_t n);

/* libcall_stubs.S: a trampoline loads its site into %r11 and jumps to
 * the enter stub; the call returns through the return stub. */
extern void runtime_libcall_enter_stub(void);
extern void runtime_libcall_return_stub(void);

/* What a call through `site` returns through: the return stub, or the
 * landing pad (which jumps there) for a caller-sensitive call. */
static inline uint64_t runtime_libcall_landing_of(const struct libcall_site *site)
{
	return site->flags & LIBCALL_CALLER ? runtime_libcall_landing
					    : (uint64_t)runtime_libcall_return_stub;
}

#endif
