/*
 * call_values.c - a call's values written with its function's signature
 * (see call_values.h).  Values come in DWARF's parameter order; where the
 * signature cannot be read now (the file changed, no debug info), values
 * are written as raw bytes.  A library call or a system call is written
 * with its built-in prototype instead (proto_values.c).
 */
#include "call_values.h"

#include <stdio.h>
#include <stdlib.h>
#include "../format/trace_format.h"
#include "../symbols/func_signature.h"
#include "proto_values.h"

struct call_values {
	struct signature_table *signatures;
	uint32_t machine; /* ELF e_machine of the recorded programs (0: x86-64) */
};

struct call_values *call_values_new(void)
{
	struct call_values *cv = calloc(1, sizeof(*cv));
	if (cv && !(cv->signatures = signature_table_new())) {
		free(cv);
		return NULL;
	}
	return cv;
}

void call_values_free(struct call_values *cv)
{
	if (!cv)
		return;
	signature_table_free(cv->signatures);
	free(cv);
}

void call_values_set_machine(struct call_values *cv, uint32_t machine)
{
	cv->machine = machine;
}

/* Whether the symbol's values are described by a built-in prototype (a
 * library call or a system call; an unknown system call's are raw). */
static bool proto_call_of(const struct call_values *cv, const struct symbol *sym,
			  struct proto_call *call)
{
	if (!sym || (!sym->proto && sym->kind != CALL_SYSCALL))
		return false;
	call->proto = sym->proto;
	call->raw = sym->kind == CALL_SYSCALL;
	call->machine = cv->machine;
	call->ret = NULL;
	call->ret_len = 0;
	return true;
}

static const struct func_signature *signature_of(struct call_values *cv, const struct symbol *sym)
{
	if (!sym || !sym->file_address || !sym->module || sym->module[0] != '/')
		return NULL;
	return signature_table_lookup(cv->signatures, sym->module, sym->file_address);
}

/* Calls `each` for every value, with its parameter (NULL past the
 * signature's or without one); stops at bytes that are no value. */
typedef void (*value_fn)(struct value_out *o, const struct func_param *p,
			 const struct tagged_value *v, unsigned index);

static void each_value(const struct func_signature *sig, struct value_out *o, const uint8_t *values,
		       uint32_t len, value_fn each)
{
	size_t at = 0;
	for (unsigned i = 0; at < len; i++) {
		struct tagged_value v;
		size_t used = value_decode(values + at, len - at, &v);
		if (used == 0)
			return;
		each(o, sig && i < sig->nparams ? &sig->params[i] : NULL, &v, i);
		at += used;
	}
}

static void arg_c(struct value_out *o, const struct func_param *p, const struct tagged_value *v,
		  unsigned index)
{
	if (index)
		value_out_text_put(o, ", ");
	if (p && *p->name) {
		value_out_text_put(o, p->name);
		value_out_text_put(o, "=");
	}
	value_format_c(o, p ? p->type : NULL, v);
}

void call_values_args_c(struct call_values *cv, struct value_out *o, const struct symbol *sym,
			const uint8_t *values, uint32_t len, const uint8_t *ret, uint32_t ret_len)
{
	struct proto_call call;
	if (proto_call_of(cv, sym, &call)) {
		call.ret = ret;
		call.ret_len = ret_len;
		proto_values_args_c(o, &call, values, len);
		return;
	}
	if (!values)
		return;
	const struct func_signature *sig = signature_of(cv, sym);
	each_value(sig, o, values, len, arg_c);
	if (sig && sig->variadic)
		value_out_text_put(o, sig->nparams ? ", ..." : "...");
}

void call_values_return_c(struct call_values *cv, struct value_out *o, const struct symbol *sym,
			  const uint8_t *values, uint32_t len)
{
	struct proto_call call;
	if (proto_call_of(cv, sym, &call)) {
		proto_values_return_c(o, &call, values, len);
		return;
	}
	struct tagged_value v;
	if (!values || value_decode(values, len, &v) == 0)
		return;
	const struct func_signature *sig = signature_of(cv, sym);
	value_format_c(o, sig ? sig->return_type : NULL, &v);
}

/* "type", "value" and, for a reference whose object was read, "address". */
static void typed_json(struct value_out *o, const struct ctype *type, const struct tagged_value *v)
{
	uint64_t address;
	value_out_text_put(o, "\"type\": ");
	value_out_json_text(o, type && type->text ? type->text : "?");
	value_out_text_put(o, ", \"value\": ");
	value_format_json(o, type, v);
	if (value_reference_address(type, v, &address)) {
		char text[32];
		snprintf(text, sizeof(text), "0x%llx", (unsigned long long)address);
		value_out_text_put(o, ", \"address\": ");
		value_out_json_text(o, text);
	}
}

static void arg_json(struct value_out *o, const struct func_param *p, const struct tagged_value *v,
		     unsigned index)
{
	value_out_text_put(o, index ? ", {\"name\": " : "{\"name\": ");
	value_out_json_text(o, p ? p->name : "");
	value_out_text_put(o, ", ");
	typed_json(o, p ? p->type : NULL, v);
	value_out_text_put(o, "}");
}

void call_values_args_json(struct call_values *cv, struct value_out *o, const struct symbol *sym,
			   const uint8_t *values, uint32_t len, const uint8_t *ret,
			   uint32_t ret_len)
{
	struct proto_call call;
	if (proto_call_of(cv, sym, &call)) {
		call.ret = ret;
		call.ret_len = ret_len;
		proto_values_args_json(o, &call, values, len);
		return;
	}
	value_out_text_put(o, "[");
	if (values)
		each_value(signature_of(cv, sym), o, values, len, arg_json);
	value_out_text_put(o, "]");
}

void call_values_return_json(struct call_values *cv, struct value_out *o, const struct symbol *sym,
			     const uint8_t *values, uint32_t len)
{
	struct proto_call call;
	if (proto_call_of(cv, sym, &call)) {
		proto_values_return_json(o, &call, values, len);
		return;
	}
	struct tagged_value v;
	if (!values || value_decode(values, len, &v) == 0) {
		value_out_text_put(o, "null");
		return;
	}
	const struct func_signature *sig = signature_of(cv, sym);
	value_out_text_put(o, "{");
	typed_json(o, sig ? sig->return_type : NULL, &v);
	value_out_text_put(o, "}");
}
