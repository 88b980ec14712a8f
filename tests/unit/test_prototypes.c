/*
 * test_prototypes.c - unit test of the built-in prototype table
 * (src/symbols/prototypes.c): the table is sorted and well formed, and
 * functions are found by their plain, versioned, aliased and C++ names.
 */
#include <elf.h>
#include <string.h>
#include "../../src/symbols/prototypes.h"
#include "check.h"

static void test_table_is_sorted_and_well_formed(void)
{
	unsigned n = prototype_function_count();
	CHECK(n >= 300, "the table has %u functions", n);
	for (unsigned i = 0; i < n; i++) {
		const struct prototype *p = prototype_function_at(i);
		if (i > 0)
			CHECK(strcmp(prototype_function_at(i - 1)->name, p->name) < 0,
			      "%s before %s", prototype_function_at(i - 1)->name, p->name);
		CHECK(p->nargs <= PROTO_MAX_ARGS && p->ret < PT_TYPES, "%s", p->name);
		for (unsigned a = 0; a < p->nargs; a++) {
			CHECK(p->args[a].name[0] && p->args[a].type != PT_VOID &&
				  p->args[a].type < PT_TYPES,
			      "%s argument %u", p->name, a);
			if (p->args[a].type == PT_SOCKADDR)
				CHECK(p->args[a].len_arg < p->nargs, "%s length", p->name);
		}
		/* Every name finds its own entry. */
		CHECK(prototype_of_function(p->name) == p, "%s found", p->name);
	}
	CHECK(prototype_function_at(n) == NULL, "past the end");
}

static void test_plain_lookup(void)
{
	const struct prototype *p = prototype_of_function("open");
	CHECK(p && p->nargs == 3 && p->ret == PT_FD && p->failure == PF_MINUS_ONE, "open");
	CHECK(p && p->args[0].type == PT_STRING && p->args[1].type == PT_OPEN_FLAGS &&
		  p->args[2].type == PT_MODE,
	      "open's arguments");
	p = prototype_of_function("connect");
	CHECK(p && p->args[1].type == PT_SOCKADDR && p->args[1].len_arg == 2, "connect");
	p = prototype_of_function("pthread_mutex_lock");
	CHECK(p && p->failure == PF_ERRNUM, "pthread_mutex_lock");
	p = prototype_of_function("malloc");
	CHECK(p && p->ret == PT_PTR && p->failure == PF_NULL && p->nargs == 1, "malloc");
	p = prototype_of_function("fprintf");
	CHECK(p && p->variadic && p->nargs == 2, "fprintf is variadic");
	p = prototype_of_function("getpid");
	CHECK(p && p->nargs == 0 && p->failure == PF_NONE, "getpid");
	p = prototype_of_function("mmap");
	CHECK(p && p->nargs == 6 && p->args[2].type == PT_PROT && p->args[3].type == PT_MAP_FLAGS,
	      "mmap");
}

static void test_versioned_names(void)
{
	const struct prototype *open = prototype_of_function("open");
	CHECK(prototype_of_function("open@GLIBC_2.2.5") == open, "open@");
	CHECK(prototype_of_function("open@@GLIBC_2.2.5") == open, "open@@");
	CHECK(prototype_of_function("pthread_cond_wait@@GLIBC_2.3.2") ==
		  prototype_of_function("pthread_cond_wait"),
	      "pthread_cond_wait@@");
	CHECK(prototype_of_function("@GLIBC_2.2.5") == NULL, "a version alone");
}

static void test_aliases(void)
{
	const struct prototype *open = prototype_of_function("open");
	CHECK(prototype_of_function("open64") == open, "open64");
	CHECK(prototype_of_function("__open64") == open, "__open64");
	CHECK(prototype_of_function("__open_2") == open, "__open_2");
	CHECK(prototype_of_function("__open64_2") == open, "__open64_2");
	CHECK(prototype_of_function("__open64_2@GLIBC_2.7") == open, "__open64_2@");
	CHECK(prototype_of_function("__read_chk") == prototype_of_function("read"), "__read_chk");
	CHECK(prototype_of_function("__isoc99_sscanf") == prototype_of_function("sscanf"),
	      "__isoc99_sscanf");
	CHECK(prototype_of_function("__isoc23_strtol") == prototype_of_function("strtol"),
	      "__isoc23_strtol");
	CHECK(prototype_of_function("__libc_malloc") == prototype_of_function("malloc"),
	      "__libc_malloc");
	CHECK(prototype_of_function("_IO_putc") == prototype_of_function("putc"), "_IO_putc");
	CHECK(prototype_of_function("fopen64") == prototype_of_function("fopen"), "fopen64");
	CHECK(prototype_of_function("__fxstat64") == prototype_of_function("__fxstat"),
	      "__fxstat64");
	/* A checking function whose arguments differ has its own entry. */
	const struct prototype *p = prototype_of_function("__sprintf_chk");
	CHECK(p && p != prototype_of_function("sprintf") && p->nargs == 4 && p->variadic,
	      "__sprintf_chk");
	p = prototype_of_function("__printf_chk@GLIBC_2.3.4");
	CHECK(p && p->args[1].type == PT_STRING, "__printf_chk's format is its second argument");
}

static void test_cxx_operators(void)
{
	const struct prototype *p = prototype_of_function("_Znwm");
	CHECK(p && p->ret == PT_PTR && p->nargs == 1 && p->args[0].type == PT_ULONG, "_Znwm");
	CHECK(prototype_of_function("operator new(unsigned long)") != NULL, "demangled new");
	CHECK(prototype_of_function("operator new") != NULL, "short new");
	CHECK(prototype_of_function("operator new[]") != NULL, "short new[]");
	p = prototype_of_function("_ZdlPv");
	CHECK(p && p->ret == PT_VOID && p->args[0].type == PT_PTR, "_ZdlPv");
	CHECK(prototype_of_function("operator delete(void*, unsigned long)") ==
		  prototype_of_function("operator delete(void*, unsigned long)"),
	      "sized delete");
	CHECK(prototype_of_function("_ZdlPvm@@GLIBCXX_3.4.21") == prototype_of_function("_ZdlPvm"),
	      "_ZdlPvm versioned");
}

static void test_unknown(void)
{
	CHECK(prototype_of_function(NULL) == NULL, "NULL");
	CHECK(prototype_of_function("") == NULL, "empty");
	CHECK(prototype_of_function("my_own_function") == NULL, "unknown");
	CHECK(prototype_of_function("ope") == NULL, "a prefix of open");
	CHECK(prototype_of_function("openx") == NULL, "open with more");
	CHECK(prototype_of_function("__") == NULL, "prefix alone");
	CHECK(prototype_of_function("64") == NULL, "suffix alone");
	CHECK(prototype_of_function("__64") == NULL, "prefix and suffix");
}

static void check_syscall(uint32_t machine, uint64_t nr, const char *name, int nargs)
{
	const struct prototype *p = (const struct prototype *)1;
	const char *got = syscall_name(machine, nr, &p);
	CHECK(strcmp(got, name) == 0, "machine %u, %llu: %s, not %s", machine,
	      (unsigned long long)nr, got, name);
	if (nargs < 0)
		CHECK(p == NULL, "%s has no prototype", name);
	else
		CHECK(p && p->nargs == nargs && strcmp(p->name, got) == 0 &&
			  p->failure == PF_NEG_ERRNO,
		      "%s's prototype", name);
}

static void test_syscalls(void)
{
	check_syscall(EM_X86_64, 0, "read", 3);
	check_syscall(EM_X86_64, 2, "open", 3);
	check_syscall(EM_X86_64, 9, "mmap", 6);
	check_syscall(EM_X86_64, 42, "connect", 3);
	check_syscall(EM_X86_64, 59, "execve", 3);
	check_syscall(EM_X86_64, 231, "exit_group", 1);
	check_syscall(EM_X86_64, 257, "openat", 4);
	check_syscall(EM_X86_64, 435, "clone3", 2);
	check_syscall(0, 257, "openat", 4); /* 0: x86-64 */
	check_syscall(EM_X86_64, 134, "uselib", -1);
	check_syscall(EM_AARCH64, 56, "openat", 4);
	check_syscall(EM_AARCH64, 63, "read", 3);
	check_syscall(EM_AARCH64, 64, "write", 3);
	check_syscall(EM_AARCH64, 93, "exit", 1);
	check_syscall(EM_AARCH64, 221, "execve", 3);
	check_syscall(EM_AARCH64, 222, "mmap", 6);
	check_syscall(EM_AARCH64, 79, "newfstatat", 4);
	check_syscall(EM_AARCH64, 25, "fcntl", 3);
	check_syscall(EM_X86_64, 100000, "syscall_100000", -1);
	check_syscall(EM_AARCH64, 244, "syscall_244", -1); /* arch-specific, none on arm64 */
	check_syscall(EM_386, 5, "syscall_5", -1);	   /* a machine without a table */
	check_syscall(EM_X86_64, UINT64_MAX, "syscall_18446744073709551615", -1);
	CHECK(strcmp(syscall_name(EM_X86_64, 1, NULL), "write") == 0, "no prototype asked");
	const struct prototype *p;
	syscall_name(EM_X86_64, 257, &p);
	CHECK(p && p->args[0].type == PT_DIRFD && p->args[1].type == PT_STRING &&
		  p->args[2].type == PT_OPEN_FLAGS && p->args[3].type == PT_MODE,
	      "openat(dfd, filename, flags, mode)");
	/* Every number up to the table's end has a name. */
	unsigned named = 0;
	for (uint64_t nr = 0; nr < 512; nr++)
		named += strncmp(syscall_name(EM_X86_64, nr, NULL), "syscall_", 8) != 0;
	CHECK(named >= 350, "%u x86-64 system calls named", named);
}

static void test_failed(void)
{
	const struct prototype *open = prototype_of_function("open");
	CHECK(prototype_failed(open, 0xffffffffu), "open: -1 as an int");
	CHECK(prototype_failed(open, UINT64_MAX), "open: -1 sign-extended");
	CHECK(!prototype_failed(open, 3) && !prototype_failed(open, 0), "open: 3, 0");
	const struct prototype *mmap = prototype_of_function("mmap");
	CHECK(prototype_failed(mmap, UINT64_MAX), "mmap: MAP_FAILED");
	CHECK(!prototype_failed(mmap, 0xffffffffu), "mmap: an address ending in ff");
	const struct prototype *malloc = prototype_of_function("malloc");
	CHECK(prototype_failed(malloc, 0) && !prototype_failed(malloc, 0x1000), "malloc");
	const struct prototype *lock = prototype_of_function("pthread_mutex_lock");
	CHECK(prototype_failed(lock, 35) && !prototype_failed(lock, 0), "pthread_mutex_lock");
	CHECK(!prototype_failed(prototype_of_function("pthread_barrier_wait"), UINT64_MAX),
	      "PTHREAD_BARRIER_SERIAL_THREAD is no failure");
	CHECK(!prototype_failed(prototype_of_function("strlen"), 0), "strlen never fails");
	const struct prototype *openat;
	syscall_name(EM_X86_64, 257, &openat);
	CHECK(prototype_failed(openat, (uint64_t)-2), "openat: -ENOENT");
	CHECK(prototype_failed(openat, (uint64_t)-4095), "openat: -4095");
	CHECK(!prototype_failed(openat, (uint64_t)-4096), "openat: -4096 is no errno");
	CHECK(!prototype_failed(openat, 3), "openat: 3");
	CHECK(!prototype_failed(NULL, UINT64_MAX), "no prototype");
}

int main(void)
{
	test_table_is_sorted_and_well_formed();
	test_plain_lookup();
	test_versioned_names();
	test_aliases();
	test_cxx_operators();
	test_unknown();
	test_syscalls();
	test_failed();
	return CHECK_SUMMARY("test_prototypes");
}
