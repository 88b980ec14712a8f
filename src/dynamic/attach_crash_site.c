/*
 * attach_crash_site.c - the program's function a fault is charged to in a
 * process `attach` came into with the in-process engine, when the fault
 * hit in calltrace's code for a call's entry (a full stack overflows there
 * first): the same lookup as the runtime's crash handler
 * (src/patch/trampoline_site.c), its memory read from outside the process
 * with the places the runtime gave (attach_abi.h).
 */
#include "inject.h"
#include "../patch/trampoline_site.h"
#include "../runtime/attach_abi.h"
#include "../runtime/patch_record.h"

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

static uint64_t function_of(void *ctx, uint64_t start)
{
	const struct remote_code *c = ctx;
	uint64_t function = 0; /* struct patch_record's first word */
	return read_remote(c->pid, start, &function, sizeof(function)) == 0 ? function : 0;
}

uint64_t attach_crash_site(void *ctx, const struct user_regs_struct *r)
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
	    .ctx = &code,
	    .enter_stub = info->enter_stub,
	    .enter_stub_end = info->enter_stub_end,
	    .entering = entering,
	};
	return trampoline_site_function(&view, r->rip, r->r11);
}
