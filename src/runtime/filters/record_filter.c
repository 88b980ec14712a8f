/*
 * record_filter.c - record-time function filters for -finstrument-functions
 * programs: CALLTRACE_FILTER=REGEX (`record -F`) keeps only the calls of
 * matching functions and what they call; CALLTRACE_NOTRACE=REGEX (`record
 * -N`) leaves matching functions out but keeps their callees.  A name
 * matches as the symbol table has it, demangled or short as the views show
 * it (name_match.c).
 *
 * With a filter set, every call takes the hooks' checked path (hooks.c),
 * which asks here.  A call left out is counted as open (the writer keeps
 * an entry without a function for it), so that its exit is dropped too.
 * What each function is comes from a table of the functions whose names
 * match, read from every loaded module's symbol table and read again when
 * a call comes from an address outside the modules it has seen, unless the
 * thread may be running a signal handler (name_match_safe_now): matching
 * allocates, and the handler may have interrupted malloc.
 */
#include "../runtime.h"
#include "../../patch/elf_functions.h"
#include "../../patch/name_match.h"
#include "../../utils/big_table.h"

#include <link.h>
#include <regex.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static regex_t only_re, hide_re;
static int only_set, hide_set;
static const char *only_text, *hide_text; /* the patterns (name_match.h) */
/* CALLTRACE_FILTER_VERBOSE (`record -v`): each module's matches said once. */
static int verbose;
static uint32_t modules_said;

struct matched {
	uint64_t start, end;
	uint8_t what; /* FILTER_ONLY | FILTER_HIDE */
};

#define MAX_MATCHED (1u << 18)
#define MAX_SPANS 1024
static struct matched *matched; /* sorted by start */
static uint32_t nmatched;
static struct {
	uint64_t low, high;
} spans[MAX_SPANS] BIG_TABLE; /* the modules read */
static uint32_t nspans, rescans;

static int compile(const char *name, regex_t *re, const char **text)
{
	const char *v = *text = runtime_getenv(name);
	if (!v || !*v)
		return 0;
	if (regcomp(re, v, REG_EXTENDED | REG_NOSUB) == 0)
		return 1;
	runtime_say("bad regular expression in %s: %s; it is left out", name, v);
	return 0;
}

static const struct runtime_record_filter lent = {runtime_filter_enter, runtime_filter_exit};

void runtime_filter_init(void)
{
	runtime_record_filter = &lent;
	if (runtime_image_patched()) {
		/* The in-process engine patches every function but -N's
		 * (patch_engine.c); -F keeps the calls made while a matching
		 * one is open, as the hooks do. */
		only_set = compile("CALLTRACE_PATCH_ONLY", &only_re, &only_text);
		runtime_filters_on = only_set;
	} else {
		only_set = compile("CALLTRACE_FILTER", &only_re, &only_text);
		const char *v = runtime_getenv("CALLTRACE_FILTER_VERBOSE");
		verbose = v && *v && strcmp(v, "0") != 0;
		hide_set = compile("CALLTRACE_NOTRACE", &hide_re, &hide_text);
		runtime_filters_on = only_set || hide_set;
	}
	/* Names are matched with a filter only: the demangler is looked for
	 * then (a dlsym that fails costs an image's start 10 us), before any
	 * signal handler can need it. */
	if (runtime_filters_on)
		name_match_prepare();
}

struct scan {
	uint64_t bias;
	uint32_t matched[2]; /* functions -F, -N match */
};

static void add_function(const struct elf_function *f, void *ctx)
{
	const struct scan *s = ctx;
	uint8_t what = 0;
	if (only_set && name_match(&only_re, only_text, f->name))
		what |= FILTER_ONLY;
	if (hide_set && name_match(&hide_re, hide_text, f->name))
		what |= FILTER_HIDE;
	struct scan *counts = ctx;
	counts->matched[0] += (what & FILTER_ONLY) != 0;
	counts->matched[1] += (what & FILTER_HIDE) != 0;
	if (what && nmatched < MAX_MATCHED)
		matched[nmatched++] =
		    (struct matched){s->bias + f->address, s->bias + f->address + f->size, what};
}

static int add_module(struct dl_phdr_info *info, size_t size, void *ctx)
{
	(void)size;
	int program = !info->dlpi_name || !*info->dlpi_name;
	const char *path = program ? runtime_program_path() : info->dlpi_name;
	uint64_t low = UINT64_MAX, high = 0;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_LOAD) {
			uint64_t a = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
			if (a < low)
				low = a;
			if (a + info->dlpi_phdr[i].p_memsz > high)
				high = a + info->dlpi_phdr[i].p_memsz;
		}
	if (nspans < MAX_SPANS && high > low) {
		spans[nspans].low = low;
		spans[nspans++].high = high;
	}
	struct scan s = {info->dlpi_addr, {0, 0}};
	elf_functions_each(path, add_function, &s, NULL);
	uint32_t *seen = ctx;
	if (verbose && (*seen)++ >= modules_said && (program || s.matched[0] || s.matched[1])) {
		runtime_say("%s: %u function%s match -F, %u match -N", path, s.matched[0],
			    s.matched[0] == 1 ? "" : "s", s.matched[1]);
		modules_said = *seen;
	}
	return 0;
}

static void sort_matched(void)
{
	for (uint32_t i = 1; i < nmatched; i++) /* insertion sort: few, mostly sorted */
		for (uint32_t j = i; j > 0 && matched[j - 1].start > matched[j].start; j--) {
			struct matched m = matched[j];
			matched[j] = matched[j - 1];
			matched[j - 1] = m;
		}
}

static void read_table(void)
{
	if (!matched) {
		void *m = mmap(NULL, MAX_MATCHED * sizeof(*matched), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return;
		matched = m;
	}
	nmatched = nspans = 0;
	uint32_t seen = 0;
	dl_iterate_phdr(add_module, &seen);
	sort_matched();
}

static int seen_module(uint64_t address)
{
	for (uint32_t i = 0; i < nspans; i++)
		if (address >= spans[i].low && address < spans[i].high)
			return 1;
	return 0;
}

/* What the filters say of the function at `address`: FILTER_ONLY,
 * FILTER_HIDE, both or neither.  Runs with the thread marked busy; the
 * table is read again (the runtime's own work) for a module not seen yet. */
static int decide(struct thread_state *t, uint64_t address)
{
	/* Matching names allocates: a module is not read in a signal handler,
	 * which may have come while the thread was inside malloc.  The call
	 * is then decided by the table as it is, and the module is read at
	 * its next call from elsewhere. */
	int unseen = matched && !seen_module(address) && rescans < 64;
	if (!matched || (unseen && name_match_safe_now())) {
		rescans += unseen;
		uint32_t gen = t->gen;
		t->gen = RUNTIME_GEN_INTERNAL;
		read_table();
		t->gen = gen;
	}
	uint32_t lo = 0, hi = nmatched;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (matched[mid].end <= address)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < nmatched && matched[lo].start <= address ? matched[lo].what : 0;
}

int runtime_filter_enter(struct thread_state *t, uint64_t fn)
{
	int what = decide(t, fn);
	int in_scope = !only_set || t->filter_scope > 0 || (what & FILTER_ONLY);
	if (what & FILTER_ONLY)
		t->filter_scope++;
	return in_scope && !(what & FILTER_HIDE);
}

void runtime_filter_exit(struct thread_state *t, uint64_t fn)
{
	if ((decide(t, fn) & FILTER_ONLY) && t->filter_scope > 0)
		t->filter_scope--;
}
