/*
 * short_name.c - a demangled C++ name's short form, as the views show it by
 * default: scope and name alone, without return type, template arguments,
 * parameter list, cv/ref qualifiers and ABI tags.
 *
 *   std::__cxx11::basic_string<...> std::operator+<char, ...>(char const*, ...)
 *     -> std::operator+
 *   std::vector<int, std::allocator<int> >::push_back(int const&)
 *     -> std::vector::push_back
 *   main::{lambda(int)#1}::operator()(int) const -> main::{lambda#1}::operator()
 *   (anonymous namespace)::helper(int)           -> (anonymous namespace)::helper
 *
 * Operators keep their symbol (operator<<, operator(), operator new[]);
 * a lambda keeps its number but not its parameters.  A C name is unchanged.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "symbols.h"

const char *symbol_name_params(const char *name)
{
	const char *close = strrchr(name, ')');
	if (!close || strstr(close, "::"))
		return NULL; /* "(anonymous namespace)::f" has none */
	int depth = 0;
	for (const char *p = close; p >= name; p--) {
		depth += *p == ')';
		depth -= *p == '(';
		if (depth == 0)
			return p > name && !(p - name >= 8 && strncmp(p - 8, "operator", 8) == 0)
				   ? p
				   : NULL; /* "X::operator()" has none either */
	}
	return NULL;
}

/* The length of an operator's symbol at s ("<<=" of "operator<<=(...)"),
 * 0 when s starts a word (new, delete, a conversion's type). */
static size_t operator_symbol(const char *s)
{
	static const char *const symbols[] = {"()", "[]",   "<=>", "<<=", ">>=", "->*", "<<", ">>",
					      "<=", ">=",   "==",  "!=",  "&&",	 "||",	"++", "--",
					      "+=", "-=",   "*=",  "/=",  "%=",	 "&=",	"|=", "^=",
					      "->", "\"\"", "+",   "-",	  "*",	 "/",	"%",  "^",
					      "&",  "|",    "~",   "!",	  "=",	 "<",	">",  ","};
	for (size_t i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++)
		if (strncmp(s, symbols[i], strlen(symbols[i])) == 0)
			return strlen(symbols[i]);
	return 0;
}

/* The ')' that closes the '(' at open, before end; NULL if none. */
static const char *matching_paren(const char *open, const char *end)
{
	int depth = 0;
	for (const char *p = open; p < end; p++) {
		depth += *p == '(';
		depth -= *p == ')';
		if (depth == 0)
			return p;
	}
	return NULL;
}

static int starts_word(const char *name, const char *p)
{
	return p == name || p[-1] == ':' || p[-1] == ' ' || p[-1] == '(';
}

struct short_out {
	char *buf;
	size_t len, used;
};

static void put(struct short_out *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n && o->used + 1 < o->len; i++)
		o->buf[o->used++] = s[i];
}

const char *symbol_short_name(const char *name, char *buf, size_t len)
{
	struct short_out o = {buf, len, 0};
	if (!buf || len == 0)
		return name;
	const char *end = symbol_name_params(name);
	end = end && end > name ? end : name + strlen(name);
	size_t start = 0; /* output position after the return type */
	int angle = 0, paren = 0, brace = 0, operator_seen = 0;
	for (const char *p = name; p < end; p++) {
		if (!angle && !operator_seen && strncmp(p, "operator", 8) == 0 &&
		    starts_word(name, p)) {
			size_t sym = operator_symbol(p + 8);
			put(&o, p, 8 + sym);
			p += 7 + sym;
			operator_seen = 1; /* new, delete, a conversion: read on */
			continue;
		}
		if (!angle && strncmp(p, "[abi:", 5) == 0) {
			const char *close = strchr(p, ']');
			p = close && close < end ? close : end - 1;
			continue;
		}
		if (*p == '<' || (*p == '>' && angle)) {
			angle += *p == '<' ? 1 : -1;
			continue;
		}
		if (angle)
			continue;
		if (brace && (*p == '(' || *p == ')' || paren)) {
			paren += *p == '(';
			paren -= *p == ')';
			continue; /* a lambda's parameters */
		}
		if (*p == '(' && !paren && p > name &&
		    (isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == ')' ||
		     p[-1] == '>')) {
			const char *close = matching_paren(p, end);
			p = close ? close : end - 1;
			continue; /* an enclosing function's parameters: f(int)::Local */
		}
		brace += *p == '{';
		brace -= *p == '}' && brace;
		paren += *p == '(';
		paren -= *p == ')' && paren;
		if (*p == ' ' && !paren && !brace && !operator_seen)
			start = o.used + 1;
		put(&o, p, 1);
	}
	while (o.used > start && buf[o.used - 1] == ' ')
		o.used--;
	buf[o.used] = '\0';
	if (start && start <= o.used)
		memmove(buf, buf + start, o.used - start + 1);
	return buf;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash && slash[1] ? slash + 1 : path;
}

const char *symbol_name_apart(const struct symbol *s, int by_file, char *buf, size_t len)
{
	const char *full = s->full_name ? s->full_name : s->name;
	const char *params = symbol_name_params(full);
	if (!by_file && params && params > full && strcmp(full, s->name) != 0)
		snprintf(buf, len, "%s%s", s->name, params);
	else if (s->file && *s->file)
		snprintf(buf, len, "%s (%s)", s->name, base_name(s->file));
	else if (s->module && strcmp(s->module, "?") != 0)
		snprintf(buf, len, "%s (%s)", s->name, base_name(s->module));
	else
		snprintf(buf, len, "%s", s->name);
	return buf;
}

int symbol_name_is(const struct symbol *s, const char *text)
{
	char buf[1024];
	if (strcmp(text, s->name) == 0 || (s->full_name && strcmp(text, s->full_name) == 0) ||
	    (s->mangled && strcmp(text, s->mangled) == 0) ||
	    strcmp(text, symbol_name_apart(s, 0, buf, sizeof(buf))) == 0 ||
	    strcmp(text, symbol_name_apart(s, 1, buf, sizeof(buf))) == 0)
		return 1;
	if (!s->short_name || s->short_name == s->name)
		return 0;
	struct symbol brief = *s; /* the forms short names take */
	brief.name = s->short_name;
	return symbol_name_is(&brief, text);
}
