/*
 * launch.c - `calltrace record` without recompiling: start the program
 * under the engine and trace it to the end.
 *
 * The child waits on a pipe until the tracer has seized it, then execs the
 * program; the exec event is the first stop, with only the executable and
 * the dynamic linker mapped: the executable's functions get their
 * breakpoints there, libraries as the dynamic linker reports them.  Ctrl-C
 * is the program's business (the tracer ignores it and follows the
 * program's fate); SIGTERM and SIGHUP sent to the tracer are passed on.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>
#include "engine.h"

#define TRACE_OPTIONS                                                                              \
	(PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC |     \
	 PTRACE_O_TRACEEXIT)

static volatile pid_t forward_to;

static void forward_signal(int sig)
{
	if (forward_to > 0)
		kill(forward_to, sig);
}

static void child_exec(int go_fd, char *const *argv)
{
	char go = 0;
	while (read(go_fd, &go, 1) < 0 && errno == EINTR)
		;
	close(go_fd);
	if (go != 'g')
		_exit(127);
	execvp(argv[0], argv);
	fprintf(stderr, "calltrace: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* Waits for the child's exec; 0, or -1 when it died first. */
static int wait_exec(pid_t pid)
{
	for (;;) {
		int status;
		if (waitpid(pid, &status, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (!WIFSTOPPED(status))
			return -1;
		int event = status >> 16;
		if (event == PTRACE_EVENT_EXEC)
			return 0;
		ptrace(PTRACE_CONT, pid, 0, event ? 0 : WSTOPSIG(status));
	}
}

static pid_t start_child(struct engine *e, char *const *argv)
{
	int go[2];
	if (pipe2(go, O_CLOEXEC) < 0) {
		engine_error("pipe: %s", strerror(errno));
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		engine_error("fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		close(go[1]);
		child_exec(go[0], argv);
	}
	close(go[0]);
	if (ptrace(PTRACE_SEIZE, pid, 0, TRACE_OPTIONS | PTRACE_O_EXITKILL) < 0) {
		engine_error("cannot trace %s: %s", argv[0], strerror(errno));
		kill(pid, SIGKILL);
		close(go[1]);
		waitpid(pid, NULL, 0);
		return -1;
	}
	e->main_pid = pid;
	ssize_t unused = write(go[1], "g", 1);
	(void)unused;
	close(go[1]);
	return pid;
}

static int trace_first_image(struct engine *e, pid_t pid)
{
	struct process *p = process_new(e, pid);
	struct thread *t = p ? thread_new(e, p, pid) : NULL;
	if (!t)
		return -1;
	process_begin_image(e, p, PROCESS_START, 0);
	if (process_setup_image(e, p, t) < 0)
		return -1;
	return thread_resume(e, t, 0);
}

/* Detaches from every process and waits for the program's end; its exit
 * status (128 + signal if a signal killed it). */
static int let_go_and_wait(struct engine *e, pid_t pid)
{
	int status;
	engine_detach_all(e);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void set_signals(struct sigaction *old_int, struct sigaction *old_quit,
			struct sigaction *old_term, struct sigaction *old_hup)
{
	struct sigaction ign = {.sa_handler = SIG_IGN}, fwd = {.sa_handler = forward_signal};
	sigaction(SIGINT, &ign, old_int);
	sigaction(SIGQUIT, &ign, old_quit);
	sigaction(SIGTERM, &fwd, old_term);
	sigaction(SIGHUP, &fwd, old_hup);
}

int dynamic_record(const struct dynamic_options *o)
{
	struct engine e;
	struct sigaction old_int, old_quit, old_term, old_hup;
	if (!o->argv || !o->argv[0]) {
		engine_error("no program to run");
		return -1;
	}
	engine_init(&e, o);
	affinity_pin_tracer(&e);
	pid_t pid = start_child(&e, o->argv);
	if (pid < 0)
		return -1;
	forward_to = pid;
	set_signals(&old_int, &old_quit, &old_term, &old_hup);
	trace_guard_install(&e);
	int rc = -1;
	if (wait_exec(pid) < 0) {
		waitpid(pid, NULL, __WALL);
	} else if (trace_first_image(&e, pid) < 0) {
		kill(pid, SIGKILL);
		event_loop(&e);
	} else {
		int loop = event_loop(&e);
		if (loop == 1) /* the trace lost its space: the program goes on untraced */
			rc = let_go_and_wait(&e, pid);
		else if (loop == 0 && e.have_main_status)
			rc = e.main_status;
	}
	trace_guard_remove();
	engine_print_stats(&e);
	engine_fini(&e);
	forward_to = 0;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	return rc;
}
