/*
 * printable.h - text read from a trace (a command line, a module's path, a
 * thread's name), or from a file it names, made safe to print on a
 * terminal: a damaged or hostile trace must not move the cursor, clear the
 * screen or ring the bell.  Every place that prints such text in a warning
 * or a text view uses it.
 */
#ifndef CALLTRACE_PRINTABLE_H
#define CALLTRACE_PRINTABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The length of the valid UTF-8 sequence of 2 to 4 bytes at p (n bytes
 * there), or 0 when there is none. */
size_t utf8_sequence(const uint8_t *p, size_t n);

/* s with every control character (C0, DEL and C1) and every byte that is
 * not part of valid UTF-8 written as \xHH, into buf (len > 0 bytes, cut
 * with "..." when it does not fit); returns buf. */
const char *printable(const char *s, char *buf, size_t len);

/* The same, written to f, whole. */
void printable_put(FILE *f, const char *s);

/* Room for a path made printable. */
#define PRINTABLE_PATH_MAX 4096

#endif
