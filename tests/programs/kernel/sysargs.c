/*
 * sysargs.c - a program whose system calls' arguments the kernel tests
 * compare with strace's: it opens a file it is given and reads it, writes
 * known bytes, stats the file, makes a pipe, connects to a port nobody
 * listens on (refused) and to a local socket that accepts, sleeps 40 ms,
 * opens a path longer than the copies keep, a NULL path and a bad pointer
 * (EFAULT), and forks a child that execs /bin/true.
 *
 * usage: sysargs FILE SOCKET
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void files(const char *path)
{
	char buf[4096];
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (read(fd, buf, sizeof(buf)) < 0)
		_exit(1);
	close(fd);
	if (write(1, "hello, \"world\"\t\001\n", 17) != 17)
		_exit(1);
	struct stat st;
	syscall(SYS_newfstatat, AT_FDCWD, path, &st, 0);
	int p[2];
	if (pipe2(p, O_CLOEXEC) == 0) {
		close(p[0]);
		close(p[1]);
	}
	char long_path[400];
	memset(long_path, 'a', sizeof(long_path) - 1);
	long_path[0] = '/';
	long_path[sizeof(long_path) - 1] = 0;
	syscall(SYS_openat, AT_FDCWD, long_path, O_RDONLY);
	syscall(SYS_openat, AT_FDCWD, NULL, O_RDONLY);
	syscall(SYS_openat, AT_FDCWD, (char *)-1, O_RDONLY);
}

static void sockets(const char *name)
{
	struct sockaddr_in in = {.sin_family = AF_INET, .sin_port = htons(1)};
	inet_pton(AF_INET, "127.0.0.1", &in.sin_addr);
	int s = socket(AF_INET, SOCK_STREAM, 0);
	connect(s, (struct sockaddr *)&in, sizeof(in));
	close(s);
	struct sockaddr_un un = {.sun_family = AF_UNIX};
	strncpy(un.sun_path, name, sizeof(un.sun_path) - 1);
	unlink(name);
	int l = socket(AF_UNIX, SOCK_STREAM, 0), c = socket(AF_UNIX, SOCK_STREAM, 0);
	bind(l, (struct sockaddr *)&un, sizeof(un));
	listen(l, 1);
	connect(c, (struct sockaddr *)&un, sizeof(un));
	struct sockaddr_un peer;
	socklen_t len = sizeof(peer);
	int a = accept(l, (struct sockaddr *)&peer, &len);
	close(a);
	close(c);
	close(l);
	unlink(name);
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	files(argv[1]);
	sockets(argv[2]);
	struct timespec ts = {0, 40000000};
	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	pid_t pid = fork();
	if (pid == 0) {
		char *args[] = {"true", NULL};
		execve("/bin/true", args, (char *[]){"A=1", NULL});
		_exit(127);
	}
	waitpid(pid, NULL, 0);
	return 0;
}
