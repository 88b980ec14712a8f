/*
 * engine_log.c - the engine's messages: errors always, notes with
 * --verbose.  The lowest layer of the ptrace engine: it calls nothing of
 * the engine, so every file may use it.
 */
#include <stdarg.h>
#include <stdio.h>
#include "engine.h"

void engine_error(const char *fmt, ...)
{
	va_list ap;
	fputs("calltrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void engine_note(const struct engine *e, const char *fmt, ...)
{
	va_list ap;
	if (!e->verbose)
		return;
	fputs("calltrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
