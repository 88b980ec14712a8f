/*
 * target.h - the target's folder (src/arch/<cpu>/), chosen here and only
 * here by the compiler's own macro, so that a file compiled alone (a test
 * helper) needs no include path, and no other file an #ifdef.
 * ARCH_HEADER(name) is the folder's header of that name, for an #include
 * (arch.h, value_regs.h).
 */
#ifndef CALLTRACE_ARCH_TARGET_H
#define CALLTRACE_ARCH_TARGET_H

#if defined(__x86_64__)
#define ARCH_FOLDER x86_64
#elif defined(__aarch64__)
#define ARCH_FOLDER aarch64
#else
#error "calltrace: no src/arch/ folder for this architecture"
#endif

#define ARCH_QUOTE_(path) #path
#define ARCH_QUOTE(path) ARCH_QUOTE_(path)
/* No space around the slash: it would be in the path. */
/* clang-format off */
#define ARCH_HEADER(name) ARCH_QUOTE(ARCH_FOLDER/name)
/* clang-format on */

#endif
