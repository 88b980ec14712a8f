/*
 * big_table.h - keeps the runtime's tables apart from its small state.
 *
 * Every image the runtime starts in writes its small state (flags,
 * counters, locks, short arrays) at start, and each page of it written
 * costs a page fault, and a copy after a fork.  A table of a page or more
 * is marked BIG_TABLE: page-aligned, and libcalltrace.so is linked with
 * -fdata-sections and --sort-section=alignment (Makefile), so the tables
 * go first and the small state lies together after them, on a few pages
 * instead of one page between every two tables.
 */
#ifndef CALLTRACE_BIG_TABLE_H
#define CALLTRACE_BIG_TABLE_H

#define BIG_TABLE __attribute__((aligned(4096)))

#endif
