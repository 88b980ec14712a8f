/*
 * ownmalloc.c - a program with its own (instrumented) malloc family and an
 * instrumented function that runs from .preinit_array, before libc and any
 * library constructor.  Usage: ownmalloc [fork].
 *
 * early_init() runs from .preinit_array: it calls early_leaf(), malloc()
 * and free() once.  main() calls use_heap() (one malloc and one free);
 * with "fork", it forks first, and the child calls use_heap() once and
 * leaves with _exit(0), the parent waits for it and calls use_heap()
 * once.  Output goes through write(): stdio would allocate.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- a bump allocator that never gives memory back ---------------------- */

#define ARENA_SIZE (64u << 20)
static unsigned char arena[ARENA_SIZE] __attribute__((aligned(64)));
static size_t arena_used;

struct block {
	size_t size;
	size_t pad; /* keeps the payload 16-byte aligned */
};

static void *carve(size_t size, size_t align)
{
	size_t start, end;
	size_t used = __atomic_load_n(&arena_used, __ATOMIC_RELAXED);
	do {
		start = (used + sizeof(struct block) + align - 1) & ~(align - 1);
		end = start + size;
		if (end > ARENA_SIZE) {
			errno = ENOMEM;
			return NULL;
		}
	} while (!__atomic_compare_exchange_n(&arena_used, &used, end, 1, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	((struct block *)(arena + start))[-1].size = size;
	return arena + start;
}

void *malloc(size_t size)
{
	return carve(size, 16);
}

void free(void *p)
{
	(void)p;
}

void *calloc(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return carve(n * size, 16); /* the arena starts zeroed, nothing is reused */
}

void *realloc(void *p, size_t size)
{
	void *q = carve(size, 16);
	if (p && q) {
		size_t old = ((struct block *)p)[-1].size;
		memcpy(q, p, old < size ? old : size);
	}
	return q;
}

void *memalign(size_t align, size_t size)
{
	return carve(size, align < 16 ? 16 : align);
}

void *aligned_alloc(size_t align, size_t size)
{
	return memalign(align, size);
}

int posix_memalign(void **out, size_t align, size_t size)
{
	void *p = memalign(align, size);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

size_t malloc_usable_size(void *p)
{
	return p ? ((struct block *)p)[-1].size : 0;
}

/* ---- the program --------------------------------------------------------- */

static void say(const char *text)
{
	ssize_t unused = write(1, text, strlen(text));
	(void)unused;
}

static int early_leaf(void)
{
	return 1;
}

static void early_init(void)
{
	char *p = malloc(16);
	p[0] = (char)early_leaf();
	free(p);
}

__attribute__((section(".preinit_array"), used)) static void (*run_early)(void) = early_init;

static void use_heap(void)
{
	char *p = malloc(32);
	strcpy(p, "heap");
	free(p);
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "fork") == 0) {
		pid_t child = fork();
		if (child == 0) {
			use_heap();
			say("child used the heap\n");
			_exit(0);
		}
		int status = 0;
		waitpid(child, &status, 0);
		say(WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "child exited 0\n"
								  : "child failed\n");
	}
	use_heap();
	say("main used the heap\n");
	return 0;
}
