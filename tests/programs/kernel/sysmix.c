/*
 * sysmix.c - a program whose system calls the kernel tests count: between
 * two marks (each followed by close(-100) and close(-101), which strace
 * sees too, and getppid()) it opens,
 * writes, reads and closes a file, sleeps 40 ms, forks a child that calls
 * getpgid() 3 times, runs a thread that calls getuid() 2 times, and forks a
 * child that execs this program again to call getgid() 4 times.
 *
 * usage: sysmix FILE  |  sysmix --exec-target
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void calltrace_mark(const char *text) __attribute__((weak));

static char *self;

static void mark(const char *text, int fd)
{
	if (calltrace_mark)
		calltrace_mark(text);
	close(fd);
	getppid();
}

static void do_files(const char *path)
{
	char buf[16];
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return;
	for (int i = 0; i < 3; i++)
		if (write(fd, "abcd", 4) != 4)
			break;
	lseek(fd, 0, SEEK_SET);
	if (read(fd, buf, sizeof(buf)) < 0)
		perror("read");
	close(fd);
}

static void do_sleep(void)
{
	struct timespec ts = {0, 40 * 1000 * 1000};
	nanosleep(&ts, NULL);
}

static void child_work(void)
{
	for (int i = 0; i < 3; i++)
		getpgid(0);
}

static void do_fork(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		child_work();
		_exit(0);
	}
	waitpid(pid, NULL, 0);
}

static void *thread_work(void *arg)
{
	for (int i = 0; i < 2; i++)
		getuid();
	return arg;
}

static void do_thread(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, thread_work, NULL) == 0)
		pthread_join(t, NULL);
}

static void do_exec(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		execl(self, self, "--exec-target", (char *)NULL);
		_exit(127);
	}
	waitpid(pid, NULL, 0);
}

static void exec_target(void)
{
	for (int i = 0; i < 4; i++)
		getgid();
}

int main(int argc, char **argv)
{
	self = argv[0];
	if (argc > 1 && strcmp(argv[1], "--exec-target") == 0) {
		exec_target();
		return 0;
	}
	if (argc < 2)
		return 2;
	mark("begin", -100);
	do_files(argv[1]);
	do_sleep();
	do_fork();
	do_thread();
	do_exec();
	mark("end", -101);
	return 0;
}
