/*
 * preinit.c - a function in .preinit_array, which the dynamic linker runs
 * before any library's constructor, then main.
 */
#include <stdio.h>

static int early_value;

static void early_setup(void)
{
	early_value = 42;
}

__attribute__((section(".preinit_array"),
	       used)) static void (*const preinit_entry)(void) = early_setup;

int main(void)
{
	printf("early value %d\n", early_value);
	return 0;
}
