/*
 * symbols.h - address -> function name, source file and line.
 *
 * Resolution happens at analysis time from the module records: the caller
 * finds the module of an address (trace_reader_find_module) and asks for
 * the symbol at address - load_bias in that ELF file.  elfutils (libdw)
 * reads the symbol tables and DWARF line tables, finding separate debug info
 * the usual ways (.gnu_debuglink, /usr/lib/debug/.build-id/); C++ names are
 * demangled.  Results are cached: the same (module, address) gives the same
 * pointer for the life of the table.
 */
#ifndef CALLTRACE_SYMBOLS_H
#define CALLTRACE_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

struct prototype; /* prototypes.h */

struct symbol {
	const char *name;	/* as the views show it (symbol_set_name_style:
				   short by default); "sub_<hex>" or "0x<hex>"
				   when unknown */
	const char *short_name; /* symbol_short_name(), or NULL: the name */
	const char *full_name;	/* demangled in full, or NULL: the name */
	const char *mangled;	/* as the ELF symbol has it, or NULL: the name */
	const char *module;	/* the module's path, or "?" */
	const char *file;	/* source file, or NULL */
	uint32_t line;		/* 0 when unknown */
	uint64_t address;	/* the runtime address asked for */
	uint64_t file_address;	/* in the module's file (0: unknown module) */
	int filter_state;	/* for the walker's filters: 0 = not yet decided */
	uint32_t id;		/* dense 0..n-1 over every symbol of the table */
	uint8_t kind;		/* enum trace_call_kind: a library call's symbol is
				   another than the same function's own */
	/* Library calls and system calls: the built-in prototype that gives
	 * their values' meaning (prototypes.h), or NULL. */
	const struct prototype *proto;
	/* A library call through a GOT slot: the symbol version its
	 * relocation asked for ("GLIBC_2.2.5"), or NULL. */
	const char *version;
};

/* The module of system calls, off-CPU intervals and kernel functions. */
#define KERNEL_MODULE_NAME "[kernel]"

struct symbol_table;

struct symbol_table *symbol_table_new(void);
void symbol_table_free(struct symbol_table *t);

/* The symbol at `file_address` of the ELF file `path` (build-id optional),
 * reported for the runtime address `runtime_address`.  Never NULL. */
const struct symbol *symbol_table_lookup(struct symbol_table *t, const char *path,
					 const uint8_t *build_id, size_t build_id_len,
					 uint64_t file_address, uint64_t runtime_address);
/* The symbol for an address outside every known module.  Never NULL. */
const struct symbol *symbol_table_unknown(struct symbol_table *t, uint64_t runtime_address);
/* How many distinct symbols have been handed out (ids are below this). */
uint32_t symbol_table_count(const struct symbol_table *t);

/*
 * Calls of other kinds (format/trace_format.h, "Kinds of calls").  Each
 * gets a symbol of its own, never the one a function's own calls get: a
 * report row or a graph node of `puts` as a library call is another than
 * of `puts` traced inside the C library.
 */

/* The function bound to the GOT slot at `file_address` of the ELF file
 * `path` (its JUMP_SLOT or GLOB_DAT relocation's symbol, as written: maybe
 * mangled) and, in *version, the symbol version it asks for or NULL; NULL
 * when no such relocation fills a slot there.  The strings live as long
 * as the table. */
const char *symbol_table_got_slot(struct symbol_table *t, const char *path, const uint8_t *build_id,
				  size_t build_id_len, uint64_t file_address, const char **version);
/* 1 if the dynamic symbol table of `path` defines `name`; 0 if not (or
 * the file cannot be read). */
int symbol_table_defines(struct symbol_table *t, const char *path, const uint8_t *build_id,
			 size_t build_id_len, const char *name);
/* The function that `path` exports at `file_address`, as a program asks
 * dlsym for it: of aliases (`puts`, `_IO_puts`), the one with the fewest
 * leading underscores; NULL when none is exported there. */
const char *symbol_table_exported_at(struct symbol_table *t, const char *path,
				     const uint8_t *build_id, size_t build_id_len,
				     uint64_t file_address);
/* The symbol of library calls of the function `name` (demangled, its
 * version cut) that `module` provides (NULL: "?"): one per (name,
 * module), whether the calls went through GOT slots or pointers.  `where`
 * is kept as its address; its source file and line stay unknown (it is
 * the call into the library that is shown, by library).  Its proto is the
 * function's built-in prototype. */
const struct symbol *symbol_table_library(struct symbol_table *t, const char *name,
					  const char *version, const char *module, uint64_t where);
/* The symbol of a call the kernel saw: `kind` CALL_SYSCALL (`where` the
 * number of a system call of ELF machine `machine`, 0: x86-64), CALL_OFFCPU
 * (enum trace_offcpu_reason: "off-cpu:preempted", "off-cpu:blocked") or
 * CALL_KERNEL (an address's low 60 bits).  Its module is "[kernel]". */
const struct symbol *symbol_table_kernel_side(struct symbol_table *t, unsigned kind,
					      uint32_t machine, uint64_t where);

/* Demangles a C++ name into buf; returns buf, or `name` itself if it is not
 * a mangled name. */
const char *symbol_demangle(const char *name, char *buf, size_t buflen);
/* The C++ runtime's __cxa_demangle, libstdc++ opened for it at the first
 * call (the tool does not link it); NULL when there is none.  Also asked,
 * through a weak reference, by name_match.c in the tool's ptrace engine. */
void *symbol_cxa_demangler(void);

/* A demangled C++ name's short form into buf: scope and name without
 * return type, template arguments, parameters, qualifiers and ABI tags
 * ("std::vector<int>::push_back(int const&)" gives "std::vector::push_back",
 * operators kept: "std::operator<<"; a lambda's number kept:
 * "main::{lambda#1}::operator()").  A C name stays as it is.  Returns buf
 * (name itself when buf is unusable). */
const char *symbol_short_name(const char *name, char *buf, size_t len);
/* Where a demangled name's parameter list starts: the '(' matching its last
 * ')'; NULL when it has none ("(anonymous namespace)::f", "X::operator()"). */
const char *symbol_name_params(const char *name);

/* The shown name with what tells it from others that show alike, into buf:
 * an overload's parameter list and qualifiers ("area(double)",
 * "P::get(int) const"), or with by_file (or for a name without parameters)
 * its source file's base name, else its module's ("helper (a.c)"). */
const char *symbol_name_apart(const struct symbol *s, int by_file, char *buf, size_t len);
/* 1 when text names s exactly as a view may show it: its shown, full or
 * mangled name, or a symbol_name_apart() form. */
int symbol_name_is(const struct symbol *s, const char *text);

/* How the views name functions (--demangle): short names (the default),
 * full demangled names, or mangled names as the symbol table has them. */
enum symbol_name_style { SYMBOL_NAMES_SHORT, SYMBOL_NAMES_FULL, SYMBOL_NAMES_MANGLED };
/* Chooses the style of the names that symbol tables created after this
 * call give (struct symbol's name). */
void symbol_set_name_style(enum symbol_name_style style);
/* Parses "simple", "full" or "no"; -1 when it is none of them. */
int symbol_parse_name_style(const char *text);

/* 1 if the symbol tables (.dynsym or .symtab) of the ELF file at `path`
 * name `symbol_name`, defined or not; 0 if not; -1 if the file is not a
 * readable ELF file.  A program built with -finstrument-functions
 * references "__cyg_profile_func_enter". */
int elf_file_references(const char *path, const char *symbol_name);

/* 1 if the ELF file at `path` is dynamically linked (has an interpreter),
 * 0 if static, -1 if it is not a readable ELF file. */
int elf_file_is_dynamic(const char *path);

/* 1 if the ELF file at `path` has a full symbol table (.symtab: it is not
 * stripped), 0 if not, -1 if it is not a readable ELF file. */
int elf_file_has_symtab(const char *path);

/* What `calltrace check` tells about one ELF file, read in one pass. */
#define ELF_FACTS_NEEDED_MAX 64
struct elf_facts {
	int type, machine, elf_class;	/* e_type, e_machine, EI_CLASS */
	int has_interp, has_dynamic;	/* PT_INTERP, PT_DYNAMIC */
	int pie_flag;			/* DT_FLAGS_1 has DF_1_PIE */
	int has_symtab, has_debug_info; /* .symtab; .debug_info with contents */
	int cyg_hooks;			/* __cyg_profile_func_enter: 0 none, 1 used, 2 defined */
	int runtime_linked;		/* defines calltrace_start: the runtime is linked in */
	int mcount, fentry;		/* -pg (mcount), -mfentry (__fentry__) */
	int patchable_entries;		/* a __patchable_function_entries section */
	int has_debuglink;		/* .gnu_debuglink: file name and CRC */
	char debuglink[256];
	uint32_t debuglink_crc;
	char build_id[129]; /* hex, "" when none */
	char runpath[1024]; /* DT_RUNPATH, else DT_RPATH, else "" */
	int runpath_is_rpath;
	size_t nneeded; /* DT_NEEDED, in order (the first ones) */
	char needed[ELF_FACTS_NEEDED_MAX][128];
};

/* Fills *f from the ELF file at `path`; 0, or -1 if it is not a readable
 * ELF file. */
int elf_file_facts(const char *path, struct elf_facts *f);

#endif
