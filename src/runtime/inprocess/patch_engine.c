/*
 * patch_engine.c - tracing without recompiling, inside the process: the
 * entry of every chosen function is rewritten into a jump to a trampoline
 * (src/patch/), which records the enter as the -finstrument-functions hooks
 * do (same streams, same records) and hijacks the return address, so that
 * the return comes through runtime_patch_return_stub and records the exit.
 * Each thread keeps the real return addresses on a shadow stack
 * (patch_shadow.c).
 *
 * Turned on by CALLTRACE_PATCH=1 (`calltrace record` sets it unless told
 * --engine runtime); CALLTRACE_PATCH_MODULES=REGEX adds the
 * shared libraries whose path matches to the main executable, and
 * CALLTRACE_PATCH_ONLY / CALLTRACE_PATCH_HIDE=REGEX keep only / leave out
 * the functions whose name matches.  Modules loaded later are
 * patched when the dynamic linker says they are ready (it calls
 * _dl_debug_state, whose entry is patched too).  A module built with
 * -finstrument-functions is recorded by its hooks, in every process image
 * whatever its parent was: its entries are patched only to capture
 * arguments, never to record the calls a second time.  Entries are marked
 * while the program has one thread (the runtime's constructor) or, for a
 * dlopen'd module, before any of its code has run, and each is patched at
 * its function's first call (patch_lazy.c); the C library's are patched
 * at once (lazy_module).
 *
 * A longjmp drops the shadow frames it leaves (longjmp.c); a C++ exception
 * gets the real return addresses back before the unwinder reads the stack,
 * and the frames it left are dropped when the exception is caught
 * (patch_shadow.c).
 */
#include "../runtime.h"
#include "../../patch/elf_functions.h"
#include "../../patch/function_cache.h"
#include "../../patch/name_match.h"
#include "../../patch/patch.h"
#include "../../patch/special_functions.h"
#include "module_functions.h"
#include "own_modules.h"
#include "patch_record.h"
#include "patch_shadow.h"
#include "patch_warm.h"
#include "../core/hook_fast.h"
#include "../../utils/big_table.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <unistd.h>

/* The record of the call the enter stub is in (patch_stubs.S sets it). */
__thread uint64_t runtime_patch_entering __attribute__((tls_model("initial-exec")));

uint64_t runtime_patch_loader_notice; /* _dl_debug_state: modules loaded or gone */
/* CALLTRACE_PATCH: the modules without hooks are patched to record their
 * calls (else entries are patched only to capture arguments). */
static int patch_calls;
static regex_t module_pattern, only_pattern, hide_pattern;
static int module_pattern_set, only_pattern_set, hide_pattern_set;
static uint32_t verdicts[PATCH_VERDICTS];
static int verbose;		  /* CALLTRACE_PATCH_VERBOSE or debug: say what was patched */
static uint32_t patched_at_start; /* functions of modules not patched lazily */

/* Whether arguments may be read now: recording is on, and the thread is
 * not in the middle of writing or of the runtime's own work. */
static int may_capture(const struct thread_state *t)
{
	uint32_t gen = t->gen;
	return RUNTIME_LOAD(runtime_state) != 0 && gen != RUNTIME_GEN_BUSY &&
	       gen != RUNTIME_GEN_INTERNAL && gen != RUNTIME_GEN_ARGS;
}

/* Reads the arguments (the library functions that takes are the runtime's
 * doing, and not recorded, even when they are patched).  0, or -1. */
static int capture(struct thread_state *t, const struct patch_record *r, uint64_t *slot,
		   void *registers)
{
	uint32_t gen = runtime_internal_begin(t);
	int rc = runtime_args_capture_entry(t, r->plan, r->address, slot, registers);
	runtime_internal_end(t, gen);
	return rc;
}

/* A -finstrument-functions function's real entry: its arguments wait for
 * its enter hook, which the thread's gen sends to the slow path. */
static void capture_for_hooks(struct thread_state *t, const struct patch_record *r, uint64_t *slot,
			      void *registers)
{
	if (!may_capture(t) || capture(t, r, slot, registers) < 0)
		return;
	t->args_saved_gen = t->gen;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->gen = RUNTIME_GEN_ARGS;
	if (r->plan->has_return)
		runtime_patch_hijack_return(slot, r->address, r->plan, 1,
					    runtime_args_result_at(registers));
}

static uint64_t on_enter(struct thread_state *t, const struct patch_record *r, uint64_t *slot,
			 void *registers)
{
	if (r->address == runtime_patch_loader_notice) {
		runtime_patch_modules_changed();
		return r->resume;
	}
	if (unlikely(runtime_patch_unwinder_watched) &&
	    runtime_patch_unwinder_notice(r->address, slot))
		return r->resume;
	if (runtime_patch_unwinding) /* a call from the frame of a call it left: that one is over */
		runtime_patch_end_frames_below((uint64_t)slot + 1);
	if (r->by_hooks) {
		capture_for_hooks(t, r, slot, registers);
		return r->resume;
	}
	int counted;
	if (r->plan && may_capture(t)) { /* the checked path writes the arguments */
		capture(t, r, slot, registers);
		counted = runtime_hook_event_checked(t, r->address, HOOK_ENTER, (uint64_t)slot);
	} else {
		counted = runtime_hook_enter(t, r->address, (uint64_t)slot);
	}
	if (counted)
		runtime_patch_hijack_return(slot, r->address, r->plan, 0,
					    r->plan ? runtime_args_result_at(registers) : 0);
	return r->resume;
}

/* A library is patched (--module): the runtime's own calls into it may
 * come to the stubs. */
int runtime_patch_libraries_patched;

/* A patched function's entry.  Once libraries are patched, the functions
 * the runtime calls meanwhile (errno's, mmap...) just run: they are the
 * runtime's own doing, and recording them would recurse.  (So would the
 * calls of a signal handler that comes meanwhile: those are lost then.) */
__attribute__((visibility("hidden"))) uint64_t
runtime_patch_on_enter(const struct patch_record *r, uint64_t *slot, void *registers)
{
	struct thread_state *t = &runtime_thread;
	if (t->in_patch_stub)
		return r->resume;
	t->in_patch_stub = runtime_patch_libraries_patched;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	int saved = errno;
	uint64_t resume = on_enter(t, r, slot, registers);
	errno = saved;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->in_patch_stub = 0;
	return resume;
}

/* ---- patching a module --------------------------------------------------- */

struct module_job {
	const char *path;
	uint64_t bias;
	uint64_t entry;	  /* the program's entry point (no return address there) */
	int record_calls; /* chosen to be recorded (the program, --module) */
	int at_start;	  /* patched now, not at first calls (lazy_module) */
	struct elf_file_facts facts;
	uint32_t matched[2]; /* functions whose names -F, -N match */
	uint32_t listed;     /* functions marked or patched */
	uint32_t undecoded;  /* functions marked with no decoding of their entry */
	uint64_t lo, hi;     /* where they lie */
};

/* The program's entry, the C library's start-up code (glibc's crti.o on
 * aarch64 gives call_weak_fn a size), the hooks, the dynamic linker's
 * notice, and what must keep its return address. */
static int never_patched(const struct elf_function *f, const struct module_job *m)
{
	const char *n = f->name; /* asked of every function marked: first bytes first */
	if ((m->entry && f->address == m->entry) || (n[0] == 'c' && strcmp(n, "call_weak_fn") == 0))
		return 1;
	if (n[0] == '_' &&
	    (strcmp(n, "_start") == 0 || strncmp(n, "__cyg_profile_func_", 19) == 0 ||
	     strcmp(n, "_dl_debug_state") == 0))
		return 1;
	return patch_keeps_return_address(n);
}

/* A module with hooks: its entries are patched for arguments only, and
 * -F/-N are the hooks' (record_filter.c).  One without: patched when it is
 * to be recorded, for the functions -F/-N leave. */
static void patch_function(const struct elf_function *f, void *ctx)
{
	struct module_job *m = ctx;
	int by_hooks = m->facts.instrumented && runtime_hooks_are_ours();
	if (never_patched(f, m) || (!by_hooks && !m->record_calls))
		return;
	if (only_pattern_set &&
	    name_match(&only_pattern, runtime_getenv("CALLTRACE_PATCH_ONLY"), f->name))
		m->matched[0]++;
	int hidden = hide_pattern_set &&
		     name_match(&hide_pattern, runtime_getenv("CALLTRACE_PATCH_HIDE"), f->name);
	m->matched[1] += (uint32_t)hidden;
	if (!by_hooks && hidden) /* -F is record_filter.c's: callees are recorded */
		return;
	const struct func_plan *plan =
	    runtime_args_wanted(f->name) ? runtime_args_plan(m->path, f->address) : NULL;
	if (by_hooks && !plan)
		return;
	uint64_t address = m->bias + f->address;
	if (!m->listed++ && !m->at_start)
		runtime_patch_marks_reserve((size_t)m->facts.count);
	m->lo = address < m->lo ? address : m->lo;
	m->hi = address + f->size > m->hi ? address + f->size : m->hi;
	if (m->at_start) {
		patched_at_start++;
		verdicts[runtime_patch_entry(address, (size_t)f->size, (size_t)f->padding, plan,
					     by_hooks)]++;
	} else if (runtime_patch_mark_decoded(address, (size_t)f->size, (size_t)f->padding, plan,
					      by_hooks, f->decoded,
					      runtime_patch_warm_has(f->address)) < 0) {
		verdicts[PATCH_NO_MEMORY]++;
	} else {
		m->undecoded += !f->decoded;
	}
}

/* The program's hooks record it: nothing of it is patched but for
 * arguments (said by say_verdicts). */
static int program_by_hooks;

/* Whether the module at `path` is patched at first calls.  Not the C
 * library, its threads library nor the dynamic linker: their own code runs
 * with every signal blocked (posix_spawn's child, a thread being made),
 * where a mark's trap would kill the process; they are patched at start.
 * Nor any module under attach: a running process's threads may block
 * SIGTRAP (a server's workers often block every signal), and only a
 * recording started with the program takes over sigprocmask & co
 * (patch_signals.c) to keep it deliverable. */
static int lazy_module(const char *path)
{
	const char *name = strrchr(path, '/');
	name = name ? name + 1 : path;
	static const char *const eager[] = {"libc.so", "libc-",	     "ld-linux", "ld-2.",
					    "ld.so",   "libpthread", "libdl."};
	for (size_t i = 0; i < sizeof(eager) / sizeof(eager[0]); i++)
		if (strncmp(name, eager[i], strlen(eager[i])) == 0)
			return 0;
	return 1;
}

/* Sets the decoder up, where marks without a decoding will need it at
 * their first calls (they must not load it there: a first call may come
 * with any lock of the program's held); said once when it cannot be.  0,
 * or -1. */
static int decoder_needed(void)
{
	static int said;
	if (patch_decoder_init() == 0)
		return 0;
	if (!said++)
		runtime_say("in-process engine: cannot set up the disassembler (%s): functions "
			    "are not traced",
			    patch_decoder_error());
	return -1;
}

/* Patches or marks the chosen functions of a module; where they lie. */
static struct module_job patch_module(const char *path, uint64_t bias, uint64_t entry,
				      int record_calls)
{
	struct module_job job = {.path = path,
				 .bias = bias,
				 .entry = entry,
				 .record_calls = record_calls,
				 .at_start =
				     runtime_attach_mode || !ARCH_PATCH_LAZY || !lazy_module(path),
				 .lo = UINT64_MAX};
	job.facts.with_eh_frame = entry != 0; /* the program, not a library */
	if (!entry)
		runtime_patch_libraries_patched = 1;
	uint32_t before = verdicts[PATCH_OK];
	int decode_all = 0;
	if (job.at_start)
		decoder_needed(); /* before patch_function patches */
	else
		runtime_patch_warm_begin(path, job.facts.with_eh_frame);
	int listed = runtime_module_functions(path, patch_function, &job, &job.facts, &decode_all);
	if (!job.at_start)
		runtime_patch_warm_end(path, job.facts.with_eh_frame, bias, job.lo, job.hi);
	if (listed < 0) {
		runtime_debug("cannot read the functions of %s", path);
		return job;
	}
	if (entry && record_calls && job.facts.count == 0) /* nothing would say why */
		runtime_say("in-process engine: %s: no function found to record: it has no "
			    "symbol table (stripped) and no .eh_frame_hdr that lists its functions",
			    path);
	if (job.undecoded && decoder_needed() == 0 && decode_all && !job.at_start)
		runtime_module_decode_all(path, bias, &job.facts);
	if (entry)
		program_by_hooks = job.facts.instrumented && runtime_hooks_are_ours();
	if (verbose && (only_pattern_set || hide_pattern_set) && record_calls &&
	    !(job.facts.instrumented && runtime_hooks_are_ours())) /* else the hooks say */
		runtime_say("in-process engine: %s: %u function%s match -F, %u match -N", path,
			    job.matched[0], job.matched[0] == 1 ? "" : "s", job.matched[1]);
	runtime_debug(
	    "%s %u functions of %s at %#lx%s", job.at_start ? "patched" : "listed",
	    job.at_start ? verdicts[PATCH_OK] - before : job.listed, path, (unsigned long)bias,
	    job.facts.instrumented && runtime_hooks_are_ours() ? " (its hooks record its calls)"
							       : "");
	return job;
}

/* ---- which modules ------------------------------------------------------- */

#define MAX_PATCHED_MODULES 1024
static struct patched_module {
	uint64_t bias;
	uint64_t lo, hi; /* where its functions lie */
} patched[MAX_PATCHED_MODULES] BIG_TABLE;
static uint32_t npatched;

static int already_patched(uint64_t bias)
{
	for (uint32_t i = 0; i < npatched; i++)
		if (patched[i].bias == bias)
			return 1;
	return 0;
}

/* Forgets the modules no longer loaded, and their marks: another one may
 * come at their address, and must be patched then, its code not taken for
 * theirs. */
static void forget_unloaded(void)
{
	for (uint32_t i = 0; i < npatched;) {
		const struct link_map *l = _r_debug.r_map;
		while (l && l->l_addr != patched[i].bias)
			l = l->l_next;
		if (l) {
			i++;
			continue;
		}
		runtime_patch_warm_drop(patched[i].bias); /* before its marks go */
		uint32_t n = runtime_patch_marks_drop(patched[i].lo, patched[i].hi);
		runtime_debug("a module at %#lx unloaded: %u marks forgotten",
			      (unsigned long)patched[i].bias, n);
		patched[i] = patched[--npatched];
	}
}

/* Whether the calls of the module at `path` are to be recorded (the
 * program, its own libraries, --module's: own_modules.c). */
static int calls_chosen(const char *path, int is_main)
{
	return patch_calls && runtime_module_recorded(
				  path, is_main, module_pattern_set ? &module_pattern : NULL, 1);
}

static int is_runtime_itself(const struct link_map *l)
{
	Dl_info info;
	return dladdr((void *)runtime_patch_enter_stub, &info) && info.dli_fbase &&
	       (uint64_t)info.dli_fbase == l->l_addr;
}

/* Patches every chosen module not patched yet (the program's modules are
 * in the dynamic linker's list, main executable first). */
static void patch_new_modules(void)
{
	/* Loading the disassembler for a module (decoder_needed) is a dlopen
	 * of its own, whose notice comes while that module is being marked:
	 * it is let pass, and the loop below meets the disassembler's
	 * modules after the one it was loaded for. */
	static int walking;
	if (walking)
		return;
	walking = 1;
	struct link_map *l = _r_debug.r_map;
	for (int first = 1; l; l = l->l_next, first = 0) {
		const char *path = first ? runtime_program_path() : l->l_name;
		if (!path || !*path || already_patched(l->l_addr) || is_runtime_itself(l) ||
		    npatched == MAX_PATCHED_MODULES)
			continue;
		int record_calls = calls_chosen(path, first);
		if (!record_calls && !runtime_args_on)
			continue;
		uint64_t entry = first ? getauxval(AT_ENTRY) - l->l_addr : 0;
		function_cache_keep_key(1); /* its cache files' */
		struct module_job job = patch_module(path, l->l_addr, entry, record_calls);
		patched[npatched++] = (struct patched_module){l->l_addr, job.lo, job.hi};
		runtime_patch_marks_write(path, job.facts.with_eh_frame, l->l_addr);
		function_cache_keep_key(0);
	}
	patch_code_seal();
	walking = 0;
}

/* The dynamic linker's notice: the list of modules changes (RT_ADD,
 * RT_DELETE) or is whole again (RT_CONSISTENT), when new modules are
 * mapped but none of their code has run. */
void runtime_patch_modules_changed(void)
{
	if (_r_debug.r_state != RT_CONSISTENT)
		return;
	uint32_t gen = runtime_internal_begin(&runtime_thread);
	forget_unloaded();
	patch_new_modules();
	runtime_internal_end(&runtime_thread, gen);
}

/* Patches the dynamic linker's notice function, so that dlopen'd modules
 * are patched when they are ready. */
static void watch_loader(void)
{
	uint64_t address = _r_debug.r_brk;
	Dl_info info;
	const ElfW(Sym) *sym = NULL;
	if (!address || !dladdr1((void *)address, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym)
		return;
	size_t size = sym->st_size ? (size_t)sym->st_size : 1;
	if (runtime_patch_entry(address, size, 16, NULL, 0) == PATCH_OK)
		runtime_patch_loader_notice = address;
	else
		runtime_debug("cannot watch the dynamic linker: modules loaded later are not "
			      "traced");
}

/* The functions of the program's .preinit_array: the dynamic linker runs
 * them before any library's constructor, so before the runtime's, and
 * before anything is patched. */
static uint64_t preinit_functions(void)
{
	const struct link_map *program = _r_debug.r_map;
	if (!program || !program->l_ld)
		return 0;
	for (const ElfW(Dyn) *d = program->l_ld; d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_PREINIT_ARRAYSZ)
			return d->d_un.d_val / sizeof(void *);
	return 0;
}

/* Whether the program's hooks record it (nothing of it is patched but
 * for arguments): said once. */
static int said_by_hooks(void)
{
	if (!program_by_hooks || !patch_calls)
		return 0;
	runtime_say("runtime library: the program is built with -finstrument-functions: "
		    "its hooks record it%s",
		    runtime_args_on ? " (entries patched to capture arguments)" : "");
	return 1;
}

/* At start: how many entries were marked. */
static void say_marked(void)
{
	if (said_by_hooks())
		return;
	runtime_say("in-process engine: %u functions marked (functions patched at their first "
		    "call)%s",
		    runtime_patch_lazy_counts().marked,
		    patched_at_start ? "; the C library's at start" : "");
	uint64_t early = preinit_functions();
	if (early && !runtime_attach_mode)
		runtime_say("in-process engine: the %lu .preinit_array function%s ran before it "
			    "started: not recorded (the hooks and the ptrace engine record them)",
			    (unsigned long)early, early == 1 ? "" : "s");
}

/* At exit: how many of the marked functions ran (and were patched), and
 * why the others that ran were not. */
static void say_verdicts(void)
{
	if (program_by_hooks && patch_calls)
		return;
	struct patch_lazy_counts c = runtime_patch_lazy_counts();
	char why[512] = "", warm[160] = "";
	if (c.warm)
		snprintf(warm, sizeof(warm),
			 "; %u more patched ahead of their first calls: they ran in an earlier "
			 "process (of this recording or an earlier one), or in a child",
			 c.warm);
	size_t n = 0;
	if (c.trapped)
		n += (size_t)snprintf(why, sizeof(why),
				      "; %u through %s trap (too short to hold a "
				      "jump)",
				      c.trapped, c.trapped == 1 ? "its" : "their");
	for (int v = 1; v < PATCH_VERDICTS && n < sizeof(why); v++)
		if (verdicts[v])
			n += (size_t)snprintf(why + n, sizeof(why) - n, "; %u %s", verdicts[v],
					      patch_verdict_text((enum patch_verdict)v));
	runtime_say("in-process engine: %u of %u functions patched%s", verdicts[PATCH_OK],
		    c.marked + patched_at_start, why);
	runtime_say("in-process engine: %u functions marked, %u ran%s", c.marked, c.ran, warm);
}

/* The image ends (exit, _exit, a fatal signal): what was done with its
 * functions goes into the trace, for `calltrace info`. */
void runtime_patch_write_counts(void)
{
	struct patch_lazy_counts c = runtime_patch_lazy_counts();
	struct trace_function_counts f = {c.marked, c.ran, c.trapped, verdicts[PATCH_OK] - c.ran};
	if (f.marked || f.at_start)
		trace_write_functions(&runtime_session, &f);
}

void runtime_patch_image_ends_at_exec(void)
{
	struct thread_state *t = &runtime_thread;
	if (t->gen == RUNTIME_GEN_INTERNAL || !runtime_session.header ||
	    runtime_session.pid != (uint32_t)getpid())
		return;
	int saved = errno;
	uint32_t gen = runtime_internal_begin(t);
	if (runtime_patch_first_calls_here()) /* else its parent's, saved by the parent */
		runtime_patch_warm_save();
	runtime_patch_write_counts();
	runtime_internal_end(t, gen);
	errno = saved;
}

/* After the program's exit handlers and destructors: every function that
 * ran is counted. */
static int say_at_end;

__attribute__((destructor)) static void say_verdicts_at_end(void)
{
	if (say_at_end)
		say_verdicts();
}

/* A regular expression from the environment; 1 when there is one. */
static int compile_setting(const char *name, regex_t *re)
{
	const char *v = runtime_getenv(name);
	if (!v || !*v)
		return 0;
	if (regcomp(re, v, REG_EXTENDED | REG_NOSUB) == 0)
		return 1;
	runtime_say("bad regular expression in %s: %s", name, v);
	return 0;
}

void runtime_patch_count_verdict(enum patch_verdict v)
{
	verdicts[v]++;
}

const uint32_t *runtime_patch_verdicts(void)
{
	return verdicts;
}

void runtime_patch_forget(void)
{
	npatched = 0;
	runtime_patch_loader_notice = 0;
	memset(verdicts, 0, sizeof(verdicts));
	patched_at_start = 0;
	runtime_patch_marks_forget();
	if (module_pattern_set)
		regfree(&module_pattern);
	if (only_pattern_set)
		regfree(&only_pattern);
	if (hide_pattern_set)
		regfree(&hide_pattern);
	module_pattern_set = only_pattern_set = hide_pattern_set = 0;
}

void runtime_patch_init(void)
{
	const char *on = runtime_getenv("CALLTRACE_PATCH");
	patch_calls = on && *on && strcmp(on, "0") != 0;
	if (!patch_calls && !runtime_args_on)
		return;
	module_pattern_set = compile_setting("CALLTRACE_PATCH_MODULES", &module_pattern);
	only_pattern_set = compile_setting("CALLTRACE_PATCH_ONLY", &only_pattern);
	hide_pattern_set = compile_setting("CALLTRACE_PATCH_HIDE", &hide_pattern);
	if (only_pattern_set || hide_pattern_set)
		name_match_prepare(); /* now, not under a dlopen's notice */
	const char *verbose_setting = runtime_getenv("CALLTRACE_PATCH_VERBOSE");
	verbose = runtime_config.debug ||
		  (verbose_setting && *verbose_setting && strcmp(verbose_setting, "0") != 0);
	if (runtime_attach_mode && decoder_needed() < 0)
		return;
	patch_new_modules();
	watch_loader();
	if (runtime_attach_mode)
		runtime_patch_watch_unwinder();
	patch_code_seal();
	if (verbose && !runtime_attach_mode) /* an attach says what it patched */
		say_marked();
	say_at_end = verbose && !runtime_attach_mode;
}
