/*
 * first_call.c - functions whose first call comes in awkward places, for
 * the in-process engine that patches an entry at its first call: built
 * without hooks.
 *
 * Usage: first_call MODE
 *   few     40 functions, of which 3 run (1, 2 and 3 times)
 *   race    8 threads call the same 4 fresh functions at once, 1000 times
 *           each (a barrier lines their first calls up)
 *   signal  a signal handler (every signal blocked in it) makes the first
 *           call of handled(), 3 times; then a first call with every
 *           signal blocked by sigprocmask
 *   fork    4 threads make first calls while the main thread forks 5
 *           children (each calls in_child() once) and vforks one that execs
 *           this program in mode `execed` (exec_work() 3 times)
 *   short   tiny_ret, one byte long with no padding after it, 1000 times
 *   trap    the program's own SIGTRAP handler (which makes a first call)
 *           takes its traps: raise(SIGTRAP) twice and one int3; it reads
 *           its handler back
 *   trap_once  the same with SA_RESETHAND: one raise reaches the handler,
 *           which is then the default's; a second raise kills the process
 * Prints what it computed; exits 0.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static volatile long sink;

/* ---- few: most functions never run ---------------------------------------- */

#define UNUSED_FN(n)                                                                               \
	NOINLINE long unused_##n(long x)                                                           \
	{                                                                                          \
		return x * (n + 3) + sink;                                                         \
	}
#define UNUSED_8(a)                                                                                \
	UNUSED_FN(a##0)                                                                            \
	UNUSED_FN(a##1)                                                                            \
	UNUSED_FN(a##2)                                                                            \
	UNUSED_FN(a##3) UNUSED_FN(a##4) UNUSED_FN(a##5) UNUSED_FN(a##6) UNUSED_FN(a##7)
UNUSED_8(1)
UNUSED_8(2)
UNUSED_8(3)
UNUSED_8(4)
UNUSED_FN(50)
UNUSED_FN(51)
UNUSED_FN(52)
UNUSED_FN(53)
UNUSED_FN(54)

NOINLINE long used_once(long x)
{
	return x + 1 + sink;
}

NOINLINE long used_twice(long x)
{
	return x * 2 + sink;
}

NOINLINE long used_thrice(long x)
{
	return x - 3 + sink;
}

/* Keeps the unused functions in the program. */
long (*const keep[])(long) = {
    unused_10, unused_11, unused_12, unused_13, unused_14, unused_15, unused_16, unused_17,
    unused_20, unused_21, unused_22, unused_23, unused_24, unused_25, unused_26, unused_27,
    unused_30, unused_31, unused_32, unused_33, unused_34, unused_35, unused_36, unused_37,
    unused_40, unused_41, unused_42, unused_43, unused_44, unused_45, unused_46, unused_47,
    unused_50, unused_51, unused_52, unused_53, unused_54};

static int few(void)
{
	long v = used_once(1);
	for (int i = 0; i < 2; i++)
		v += used_twice(v);
	for (int i = 0; i < 3; i++)
		v += used_thrice(v);
	printf("few %ld %zu\n", v, sizeof(keep) / sizeof(keep[0]));
	return 0;
}

/* ---- race: first calls in 8 threads at once -------------------------------- */

#define RACERS 8
#define ROUNDS 1000
static pthread_barrier_t line_up;

NOINLINE long race_a(long x)
{
	return x + 1 + sink;
}

NOINLINE long race_b(long x)
{
	return race_a(x) * 3 + sink;
}

NOINLINE long race_c(long x)
{
	return x ^ 0x55;
}

NOINLINE long race_d(long x)
{
	return race_c(x) + race_b(x);
}

static void *racer(void *arg)
{
	long v = (long)(intptr_t)arg;
	pthread_barrier_wait(&line_up);
	for (int i = 0; i < ROUNDS; i++)
		v = race_d(v) & 0xffff;
	return (void *)(intptr_t)v;
}

static int race(void)
{
	pthread_t t[RACERS];
	pthread_barrier_init(&line_up, NULL, RACERS);
	for (long i = 0; i < RACERS; i++)
		pthread_create(&t[i], NULL, racer, (void *)(intptr_t)i);
	long sum = 0;
	for (int i = 0; i < RACERS; i++) {
		void *v;
		pthread_join(t[i], &v);
		sum += (long)(intptr_t)v;
	}
	printf("race %ld\n", sum);
	return 0;
}

/* ---- signal: a first call inside a handler ---------------------------------- */

static volatile sig_atomic_t handled_count;

NOINLINE void handled(int sig)
{
	handled_count += sig == SIGUSR1;
}

static void on_usr1(int sig)
{
	handled(sig);
}

NOINLINE long masked(long x)
{
	return x * 7 + sink;
}

static int in_signal(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigfillset(&sa.sa_mask); /* SIGTRAP too */
	sigaction(SIGUSR1, &sa, NULL);
	for (int i = 0; i < 3; i++)
		raise(SIGUSR1);
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	long v = masked(6);
	sigprocmask(SIG_SETMASK, &old, NULL);
	printf("signal %d %ld\n", (int)handled_count, v);
	return 0;
}

/* ---- fork and exec during first calls ---------------------------------------- */

#define FRESH 4

NOINLINE long fresh_0(long x)
{
	return x + 10;
}

NOINLINE long fresh_1(long x)
{
	return fresh_0(x) + 11;
}

NOINLINE long fresh_2(long x)
{
	return fresh_1(x) + 12;
}

NOINLINE long fresh_3(long x)
{
	return fresh_2(x) + 13;
}

NOINLINE int in_child(int i)
{
	return i + (int)sink;
}

NOINLINE long exec_work(long x)
{
	return x * 5 + sink;
}

static void *fresh_caller(void *arg)
{
	long v = (long)(intptr_t)arg;
	for (int i = 0; i < ROUNDS; i++)
		v = fresh_3(v) & 0xfff;
	return (void *)(intptr_t)v;
}

static int forks(const char *self)
{
	pthread_t t[FRESH];
	for (long i = 0; i < FRESH; i++)
		pthread_create(&t[i], NULL, fresh_caller, (void *)(intptr_t)i);
	int ok = 0;
	for (int i = 0; i < 5; i++) {
		pid_t pid = fork();
		if (pid == 0)
			_exit(in_child(i) == i ? 0 : 1);
		int status;
		ok += pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		      WEXITSTATUS(status) == 0;
	}
	pid_t pid = vfork();
	if (pid == 0) {
		execl(self, self, "execed", (char *)NULL);
		_exit(127);
	}
	int status;
	ok += pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0;
	long sum = 0;
	for (int i = 0; i < FRESH; i++) {
		void *v;
		pthread_join(t[i], &v);
		sum += (long)(intptr_t)v;
	}
	printf("fork %d %ld\n", ok, sum);
	return 0;
}

static int execed(void)
{
	long v = 1;
	for (int i = 0; i < 3; i++)
		v = exec_work(v);
	return v == 125 ? 0 : 1;
}

/* ---- short: a function too short for a jump ----------------------------------- */

long tiny_ret(long x);
long after_tiny(long x);
__asm__(".text\n"
	".p2align 4\n"
	".globl tiny_ret\n"
	".type tiny_ret, @function\n"
	"tiny_ret:\n"
	"\tret\n"
	".size tiny_ret, . - tiny_ret\n"
	".globl after_tiny\n"
	".type after_tiny, @function\n"
	"after_tiny:\n"
	"\tleaq 7(%rdi), %rax\n"
	"\tret\n"
	".size after_tiny, . - after_tiny\n");

static int short_entry(void)
{
	long v = 0;
	for (int i = 0; i < ROUNDS; i++) {
		tiny_ret(i);
		v += i;
	}
	printf("short %ld %ld\n", v, after_tiny(1));
	return 0;
}

/* ---- trap: the program's own SIGTRAP handler ----------------------------------- */

static volatile sig_atomic_t traps;

NOINLINE void count_trap(void)
{
	traps++;
}

static void on_trap(int sig)
{
	(void)sig;
	count_trap();
}

static int own_trap(void)
{
	struct sigaction sa, back;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_trap;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTRAP, &sa, NULL);
	raise(SIGTRAP);
	raise(SIGTRAP);
	__asm__ volatile("int3");
	sigaction(SIGTRAP, NULL, &back);
	printf("trap %d %d\n", (int)traps, back.sa_handler == on_trap);
	return 0;
}

static int own_trap_once(void)
{
	struct sigaction sa, back;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_trap;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTRAP, &sa, NULL);
	raise(SIGTRAP);
	sigaction(SIGTRAP, NULL, &back);
	printf("trap_once %d %d\n", (int)traps, back.sa_handler == SIG_DFL);
	fflush(stdout);
	raise(SIGTRAP);
	printf("trap_once survived a second trap\n");
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	if (strcmp(mode, "few") == 0)
		return few();
	if (strcmp(mode, "race") == 0)
		return race();
	if (strcmp(mode, "signal") == 0)
		return in_signal();
	if (strcmp(mode, "fork") == 0)
		return forks(argv[0]);
	if (strcmp(mode, "execed") == 0)
		return execed();
	if (strcmp(mode, "short") == 0)
		return short_entry();
	if (strcmp(mode, "trap") == 0)
		return own_trap();
	if (strcmp(mode, "trap_once") == 0)
		return own_trap_once();
	fprintf(stderr, "usage: first_call few|race|signal|fork|short|trap|trap_once\n");
	return 2;
}
