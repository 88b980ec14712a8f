/*
 * array.h - growable arrays: room for one more element, by doubling.
 *
 *	if (!ARRAY_RESERVE(v, n, cap, 16))
 *		return -1;            (out of memory: v and cap unchanged)
 *	v[n++] = x;
 */
#ifndef CALLTRACE_ARRAY_H
#define CALLTRACE_ARRAY_H

#include <stddef.h>
#include <stdlib.h>

/* `items` reallocated to twice *cap elements (`first` when empty), *cap
 * updated; NULL when memory ran out. */
static inline void *array_grow(void *items, size_t elem_size, size_t *cap, size_t first)
{
	size_t n = *cap ? *cap * 2 : first;
	void *grown = realloc(items, n * elem_size);
	if (grown)
		*cap = n;
	return grown;
}

/* 1 when `items` has room for element `n` (grown if needed), 0 when memory
 * ran out.  `cap` may be any unsigned integer lvalue. */
#define ARRAY_RESERVE(items, n, cap, first)                                                        \
	__extension__({                                                                            \
		int room_ = 1;                                                                     \
		if ((n) >= (cap)) {                                                                \
			size_t cap_ = (cap);                                                       \
			void *grown_ = array_grow((items), sizeof(*(items)), &cap_, (first));      \
			if (grown_) {                                                              \
				(items) = grown_;                                                  \
				(cap) = cap_;                                                      \
			} else {                                                                   \
				room_ = 0;                                                         \
			}                                                                          \
		}                                                                                  \
		room_;                                                                             \
	})

#endif
