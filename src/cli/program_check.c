/*
 * program_check.c - whether `calltrace record` can run a program, checked
 * before anything is recorded, and why not in the words a shell would use.
 *
 * execve's own error comes too late to be clear (from a forked child, or
 * from the dynamic engine after it has started) and says nothing about a
 * script's missing interpreter or an ELF file cut short.  Also where the
 * program is (as execvp finds it) and which engine records it when none is
 * chosen: `record` and `check` both ask.
 */
#include "cli.h"

#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* "calltrace: NAME: cannot run: WHY"; returns `status`. */
static int cannot_run(const char *name, int status, const char *why, const char *what, int err)
{
	if (what)
		cli_error("%s: cannot run: %s %s: %s", name, why, what, strerror(err));
	else
		cli_error("%s: cannot run: %s", name, why);
	return status;
}

/* The interpreter of a "#!" script: its first word, into `out`; 0 or -1. */
static int script_interpreter(const char *head, size_t n, char *out, size_t len)
{
	const char *p = head + 2, *end = head + n;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	size_t word = 0;
	while (p + word < end && !strchr(" \t\n\r", p[word]) && p[word])
		word++;
	if (word == 0 || word >= len)
		return -1;
	memcpy(out, p, word);
	out[word] = '\0';
	return 0;
}

/* Whether the ELF header and program headers in `fd` describe a file whose
 * segments and headers all lie inside it; an interpreter it names is
 * checked too.  0, or the exit status after saying why not. */
static int check_elf(const char *name, int fd, off_t size)
{
	Elf64_Ehdr eh;
	ssize_t got = pread(fd, &eh, sizeof(eh), 0);
	if (got >= EI_NIDENT && eh.e_ident[EI_CLASS] != ELFCLASS64)
		return 0; /* another class: execve decides */
	if (got != (ssize_t)sizeof(eh) || eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    eh.e_phoff > (uint64_t)size ||
	    (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr) > (uint64_t)size - eh.e_phoff)
		return cannot_run(name, 126, "the ELF file is truncated (Exec format error)", NULL,
				  0);
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		return cannot_run(name, 126, "an ELF file, but not a program (Exec format error)",
				  NULL, 0);
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) !=
		    (ssize_t)sizeof(ph))
			return cannot_run(name, 126, "unreadable program headers", NULL, 0);
		if ((ph.p_type == PT_LOAD || ph.p_type == PT_INTERP) &&
		    (ph.p_offset > (uint64_t)size || ph.p_filesz > (uint64_t)size - ph.p_offset))
			return cannot_run(name, 126,
					  "the ELF file is truncated (Exec format error)", NULL, 0);
		if (ph.p_type == PT_INTERP) {
			char interp[256];
			size_t n = ph.p_filesz < sizeof(interp) ? ph.p_filesz : sizeof(interp) - 1;
			if (pread(fd, interp, n, (off_t)ph.p_offset) != (ssize_t)n)
				n = 0;
			interp[n] = '\0';
			if (access(interp, X_OK) < 0)
				return cannot_run(name, errno == ENOENT ? 127 : 126,
						  "bad ELF interpreter", interp, errno);
		}
	}
	return 0;
}

int cli_check_program(const char *name, const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return cannot_run(name, errno == ENOENT ? 127 : 126, strerror(errno), NULL, 0);
	if (S_ISDIR(st.st_mode))
		return cannot_run(name, 126, "is a directory", NULL, 0);
	if (!S_ISREG(st.st_mode))
		return cannot_run(name, 126, "not a regular file", NULL, 0);
	if (access(path, X_OK) < 0)
		return cannot_run(name, 126, strerror(errno), NULL, 0);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) /* executable but not readable: execve may still run it */
		return 0;
	char head[256];
	ssize_t n = pread(fd, head, sizeof(head), 0);
	int rc = 0;
	if (n >= 4 && memcmp(head, ELFMAG, SELFMAG) == 0) {
		rc = check_elf(name, fd, st.st_size);
	} else if (n >= 2 && head[0] == '#' && head[1] == '!') {
		char interp[256];
		if (script_interpreter(head, (size_t)n, interp, sizeof(interp)) < 0)
			rc = cannot_run(name, 126, "a #! line without an interpreter", NULL, 0);
		else if (access(interp, X_OK) < 0)
			rc = cannot_run(name, errno == ENOENT ? 127 : 126, "bad interpreter",
					interp, errno);
	} else {
		rc = cannot_run(name, 126,
				"neither an ELF program nor a #! script (Exec format "
				"error)",
				NULL, 0);
	}
	close(fd);
	return rc;
}

/* Finds PROGRAM the way execvp would; 0 and its path, or -1 with errno. */
int cli_find_program(const char *name, char *path, size_t len)
{
	if (strchr(name, '/')) {
		snprintf(path, len, "%s", name);
		return access(path, X_OK) == 0 ? 0 : -1;
	}
	const char *dirs = getenv("PATH");
	if (!dirs)
		dirs = "/usr/local/bin:/usr/bin:/bin";
	int err = ENOENT;
	for (const char *d = dirs; *d;) {
		const char *colon = strchr(d, ':');
		size_t n = colon ? (size_t)(colon - d) : strlen(d);
		snprintf(path, len, "%.*s/%s", (int)n, n ? d : ".", name);
		struct stat st;
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			if (access(path, X_OK) == 0)
				return 0;
			err = EACCES;
		}
		d += n + (colon ? 1 : 0);
	}
	errno = err;
	return -1;
}

/* The interpreter a "#!" script at `path` names, into `out` (PATH_MAX);
 * 0, or -1 when it is no script. */
static int script_file_interpreter(const char *path, char *out)
{
	char head[256];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? pread(fd, head, sizeof(head), 0) : -1;
	if (fd >= 0)
		close(fd);
	if (n < 2 || head[0] != '#' || head[1] != '!')
		return -1;
	return script_interpreter(head, (size_t)n, out, PATH_MAX);
}

enum record_engine cli_auto_engine(const char *path, int instrumented)
{
	if (instrumented)
		return ENGINE_RUNTIME;
	/* A script runs its interpreter (env, a shell...), which takes the
	 * runtime preloaded as any program does: it is the one to look at. */
	char interpreter[2][PATH_MAX];
	for (int depth = 0; depth < 4; depth++) {
		char *next = interpreter[depth % 2];
		if (script_file_interpreter(path, next) < 0)
			break;
		path = next;
	}
	/* A stripped program's functions are found through .eh_frame. */
	return elf_file_is_dynamic(path) == 1 ? ENGINE_PATCH : ENGINE_PTRACE;
}
