/*
 * jumps.c - calls that longjmp and siglongjmp leave behind.
 *
 * jump_plain: setjmp, then dive_1 -> dive_2 -> dive_3, which longjmps back;
 * jump_plain then calls after_jump twice.  jump_from_handler: sigsetjmp,
 * then sig_dive raises SIGUSR1, whose handler on_usr1 siglongjmps back;
 * then after_jump.  jump_nested: a setjmp in a callee (catcher) that
 * stays open: only the calls under it are left.  jump_plain runs twice.
 * jump_in_child: a forked child runs jump_plain (its trace begins inside
 * calls it inherited).  Prints "jumps 4".
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static jmp_buf plain_env, nested_env;
static sigjmp_buf handler_env;
static volatile int jumps;

static NOINLINE void dive_3(jmp_buf env)
{
	longjmp(env, 1);
}

static NOINLINE void dive_2(jmp_buf env)
{
	dive_3(env);
	jumps += 100; /* not reached */
}

static NOINLINE void dive_1(jmp_buf env)
{
	dive_2(env);
	jumps += 100;
}

static NOINLINE int after_jump(int x)
{
	return x + 1;
}

static NOINLINE void jump_plain(void)
{
	if (setjmp(plain_env) == 0)
		dive_1(plain_env);
	jumps++;
	after_jump(after_jump(1));
}

static void on_usr1(int sig)
{
	(void)sig;
	siglongjmp(handler_env, 1);
}

static NOINLINE void sig_dive(void)
{
	raise(SIGUSR1);
	jumps += 100;
}

static NOINLINE void jump_from_handler(void)
{
	signal(SIGUSR1, on_usr1);
	if (sigsetjmp(handler_env, 1) == 0)
		sig_dive();
	jumps++;
	after_jump(2);
}

static NOINLINE void catcher(void)
{
	if (setjmp(nested_env) == 0)
		dive_1(nested_env);
	jumps++;
	after_jump(3);
}

static NOINLINE void jump_nested(void)
{
	catcher();
	after_jump(4);
}

static NOINLINE void jump_in_child(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		jump_plain();
		exit(0);
	}
	waitpid(pid, NULL, 0);
}

int main(void)
{
	jump_plain();
	jump_plain(); /* its enter is the fast path's the second time */
	jump_from_handler();
	jump_nested();
	fflush(stdout);
	jump_in_child();
	printf("jumps %d\n", jumps);
	return 0;
}
