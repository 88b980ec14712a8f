/*
 * attach_crash.c - the crash of a process `attach` came into with the
 * in-process engine: the runtime installs no crash handler in a running
 * process, so the tool notes the fatal signal and writes the crash record
 * (crash_note.c) as it holds the process under ptrace.  A fault in
 * calltrace's code for a call's entry (a full stack overflows there first)
 * is charged to the function entered, by the same lookup as the runtime's
 * crash handler (src/patch/trampoline_site.c), the memory read from outside
 * the process at the places the runtime gave (attach_abi.h).
 */
#include "inject.h"
#include "../format/trace_writer.h"
#include "../patch/trampoline_site.h"
#include "../runtime/attach_abi.h"
#include "../runtime/inprocess/patch_record.h"

#include <sys/uio.h>

#define REGIONS_MAX 256

struct remote_code {
	pid_t pid;
	struct patch_code_region regions[REGIONS_MAX];
	uint32_t nregions;
};

static int read_remote(pid_t pid, uint64_t address, void *out, size_t len)
{
	struct iovec local = {out, len}, remote = {(void *)(uintptr_t)address, len};
	return address && process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -1;
}

static uint64_t trampoline_at(void *ctx, uint64_t address)
{
	const struct remote_code *c = ctx;
	for (uint32_t i = 0; i < c->nregions; i++) {
		uint64_t block =
		    patch_code_region_block(&c->regions[i], address, PATCH_TRAMPOLINE_SIZE);
		if (block)
			return block;
	}
	return 0;
}

/* Word `index` of the struct patch_record at `start`, or 0. */
static uint64_t record_word(const struct remote_code *c, uint64_t start, int index)
{
	uint64_t word = 0;
	return read_remote(c->pid, start + 8 * (uint64_t)index, &word, sizeof(word)) == 0 ? word
											  : 0;
}

static uint64_t function_of(void *ctx, uint64_t start)
{
	return record_word(ctx, start, 0); /* the function */
}

static uint64_t resume_of(void *ctx, uint64_t start)
{
	return record_word(ctx, start, 1); /* its displaced instructions */
}

/* A process the runtime was loaded into, and what its runtime said. */
struct attach_crash_facts {
	pid_t pid;
	const struct attach_info *info;
};

/* A crash_site_finder (crash_note.h), `ctx` a struct attach_crash_facts. */
static uint64_t attach_crash_site(void *ctx, const struct user_regs_struct *r, int *own_code)
{
	const struct attach_crash_facts *f = ctx;
	const struct attach_info *info = f->info;
	struct remote_code code = {.pid = f->pid};
	uint64_t entering = 0;
	if (read_remote(f->pid, info->code_region_count, &code.nregions, sizeof(code.nregions)) <
		0 ||
	    code.nregions > REGIONS_MAX ||
	    read_remote(f->pid, info->code_regions, code.regions,
			code.nregions * sizeof(code.regions[0])) < 0)
		return 0;
	if (r->fs_base)
		read_remote(f->pid, r->fs_base + (int64_t)info->entering_offset, &entering,
			    sizeof(entering));
	const struct trampoline_view view = {
	    .trampoline_at = trampoline_at,
	    .function_of = function_of,
	    .resume_of = resume_of,
	    .ctx = &code,
	    .enter_stub = info->enter_stub,
	    .enter_stub_end = info->enter_stub_end,
	    .entering = entering,
	};
	return trampoline_site_function(&view, r->rip, r->r11, own_code);
}

void attach_note_crash(pid_t pid, struct held_thread *t, const struct attach_info *info,
		       struct trace_session *s)
{
	if (t->exiting) {
		s->image = info->image;
		s->pid = (uint32_t)pid;
		crash_note_write(&t->crash, t->tid, s);
	} else if (t->deliver) {
		struct attach_crash_facts facts = {pid, info};
		crash_note_take(&t->crash, pid, t->tid, t->deliver, attach_crash_site, &facts);
	}
}
