/*
 * perfetto_proto.c - the calls as Perfetto's native protobuf trace (a
 * perfetto.protos.Trace: a sequence of TracePackets), streamed: a slice
 * begin when each call enters, a slice end when it exits, on a track per
 * thread under a track per process; an instant event for each
 * calltrace_mark().  Each thread is one packet sequence whose first packet
 * clears the incremental state and sets the thread's track as the default
 * of its events; function names, with their file and line, are interned
 * (InternedData.event_names and source_locations) the first time a
 * sequence uses them, so an event is about 20 bytes.  Recorded argument
 * and return values and the unfinished and entered_before (a ring's)
 * marks are debug annotations; a call of another kind than the program's
 * own has its kind as category
 * ("library", "syscall", "sched": off-CPU intervals are slices).  A time
 * window (from, to) keeps the calls that overlap it: a call that began
 * before the window is written when it turns out to reach into it.
 * Field numbers are those of the .proto files under Perfetto's protos/perfetto/trace.
 */
#include <stdlib.h>
#include <string.h>
#include "views.h"
#include "call_values.h"
#include "call_kind.h"
#include "view_util.h"
#include "../format/proto_wire.h"
#include "../utils/array.h"

/* Field numbers, by message. */
enum {
	TRACE_PACKET = 1,
	PACKET_TIMESTAMP = 8,
	PACKET_SEQUENCE_ID = 10, /* trusted_packet_sequence_id */
	PACKET_TRACK_EVENT = 11,
	PACKET_INTERNED_DATA = 12,
	PACKET_SEQUENCE_FLAGS = 13,
	PACKET_DEFAULTS = 59, /* trace_packet_defaults */
	PACKET_TRACK_DESCRIPTOR = 60,
	DEFAULTS_TRACK_EVENT = 11, /* TracePacketDefaults.track_event_defaults */
	EVENT_DEFAULTS_TRACK_UUID = 11,
	TRACK_UUID = 1,
	TRACK_PARENT_UUID = 5,
	TRACK_PROCESS = 3,
	TRACK_THREAD = 4,
	PROCESS_PID = 1,
	PROCESS_NAME = 6,
	THREAD_PID_FIELD = 1,
	THREAD_TID_FIELD = 2,
	THREAD_NAME_FIELD = 5,
	EVENT_TYPE = 9,
	EVENT_NAME_IID = 10,
	EVENT_NAME = 23,
	EVENT_CATEGORIES = 22,
	EVENT_DEBUG_ANNOTATIONS = 4,
	EVENT_SOURCE_LOCATION_IID = 34,
	INTERNED_EVENT_NAMES = 2,
	INTERNED_ANNOTATION_NAMES = 3,
	INTERNED_SOURCE_LOCATIONS = 4,
	ENTRY_IID = 1,	/* EventName, DebugAnnotationName, SourceLocation */
	ENTRY_NAME = 2, /* EventName, DebugAnnotationName */
	LOCATION_FILE = 2,
	LOCATION_FUNCTION = 3,
	LOCATION_LINE = 4,
	ANNOTATION_NAME_IID = 1,
	ANNOTATION_BOOL = 2,
	ANNOTATION_UINT = 3,
	ANNOTATION_STRING = 6,
};

enum { SLICE_BEGIN = 1, SLICE_END = 2, INSTANT = 3 };
enum { SEQ_STATE_CLEARED = 1, SEQ_NEEDS_STATE = 2 };
/* Interned debug annotation names (their iids). */
enum { NAME_ARGS = 1, NAME_RETURN, NAME_UNFINISHED, NAME_AFTER_SEQ, NAME_ENTERED_BEFORE };
static const char *const annotation_names[] = {"",	     "args",	  "return",
					       "unfinished", "after_seq", "entered_before"};

struct open_call {
	const struct symbol *sym;
	uint64_t start_ns;
	int written, skipped;
	char *args; /* a pending call's argument text, or NULL */
};

struct process_track {
	uint32_t pid;
	uint64_t uuid;
};

struct perfetto_proto {
	FILE *out;
	int failed;
	uint64_t from_ns, to_ns;
	struct proto_buf pkt;
	uint32_t sequence;	 /* the thread's packet sequence, from 1 */
	uint64_t next_uuid;	 /* of tracks */
	struct view_symtab iids; /* symbol id -> iid */
	uint64_t next_iid;
	uint8_t *sent; /* iid -> interned on this sequence already */
	size_t cap_sent;
	struct process_track *procs;
	size_t nprocs, cap_procs;
	struct open_call *stack; /* by depth; the first `used` are set */
	size_t used, cap_stack;
	struct call_values *values;
	struct value_out text;
};

/* ---- packets ---------------------------------------------------------------- */

static void write_packet(struct perfetto_proto *pp)
{
	struct proto_buf *b = &pp->pkt;
	if (b->failed) {
		pp->failed = 1;
		proto_buf_free(b);
		return;
	}
	uint8_t head[11];
	size_t n = 0;
	head[n++] = TRACE_PACKET << 3 | 2;
	for (uint64_t v = b->len;; v >>= 7) {
		head[n++] = (uint8_t)(v < 0x80 ? v : (v & 0x7f) | 0x80);
		if (v < 0x80)
			break;
	}
	fwrite_unlocked(head, 1, n, pp->out);
	fwrite_unlocked(b->data, 1, b->len, pp->out);
	proto_buf_reset(b);
}

/* A packet of the thread's sequence at time t. */
static void packet_begin(struct perfetto_proto *pp, uint64_t t)
{
	proto_put_varint_field(&pp->pkt, PACKET_TIMESTAMP, t);
	proto_put_varint_field(&pp->pkt, PACKET_SEQUENCE_ID, pp->sequence);
	proto_put_varint_field(&pp->pkt, PACKET_SEQUENCE_FLAGS, SEQ_NEEDS_STATE);
}

static void track_descriptor(struct perfetto_proto *pp, uint64_t uuid, uint64_t parent,
			     const struct walk_thread *t, int process)
{
	struct proto_buf *b = &pp->pkt;
	size_t track = proto_message_begin(b);
	proto_put_varint_field(b, TRACK_UUID, uuid);
	if (parent)
		proto_put_varint_field(b, TRACK_PARENT_UUID, parent);
	size_t desc = proto_message_begin(b);
	if (process) {
		const char *cmd = t->image && t->image->command ? t->image->command : "";
		proto_put_varint_field(b, PROCESS_PID, t->pid);
		proto_put_string_field(b, PROCESS_NAME, *cmd ? cmd : "process");
		proto_message_end(b, TRACK_PROCESS, desc);
	} else {
		proto_put_varint_field(b, THREAD_PID_FIELD, t->pid);
		proto_put_varint_field(b, THREAD_TID_FIELD, t->tid);
		if (t->name && *t->name)
			proto_put_string_field(b, THREAD_NAME_FIELD, t->name);
		proto_message_end(b, TRACK_THREAD, desc);
	}
	proto_message_end(b, PACKET_TRACK_DESCRIPTOR, track);
}

/* The track of t's process, described the first time. */
static uint64_t process_track(struct perfetto_proto *pp, const struct walk_thread *t)
{
	for (size_t i = 0; i < pp->nprocs; i++)
		if (pp->procs[i].pid == t->pid)
			return pp->procs[i].uuid;
	uint64_t uuid = ++pp->next_uuid;
	if (ARRAY_RESERVE(pp->procs, pp->nprocs, pp->cap_procs, 16))
		pp->procs[pp->nprocs++] = (struct process_track){t->pid, uuid};
	track_descriptor(pp, uuid, 0, t, 1);
	write_packet(pp);
	return uuid;
}

/* The sequence's first packet: the thread's track, made the default of
 * its events, the state cleared, the annotation names interned. */
static void begin_thread(void *ctx, const struct walk_thread *t)
{
	struct perfetto_proto *pp = ctx;
	struct proto_buf *b = &pp->pkt;
	uint64_t parent = process_track(pp, t);
	uint64_t uuid = ++pp->next_uuid;
	pp->sequence++;
	if (pp->sent)
		memset(pp->sent, 0, pp->cap_sent);
	proto_put_varint_field(b, PACKET_SEQUENCE_ID, pp->sequence);
	proto_put_varint_field(b, PACKET_SEQUENCE_FLAGS, SEQ_STATE_CLEARED);
	size_t defaults = proto_message_begin(b);
	size_t event = proto_message_begin(b);
	proto_put_varint_field(b, EVENT_DEFAULTS_TRACK_UUID, uuid);
	proto_message_end(b, DEFAULTS_TRACK_EVENT, event);
	proto_message_end(b, PACKET_DEFAULTS, defaults);
	size_t interned = proto_message_begin(b);
	for (uint64_t i = NAME_ARGS; i <= NAME_ENTERED_BEFORE; i++) {
		size_t entry = proto_message_begin(b);
		proto_put_varint_field(b, ENTRY_IID, i);
		proto_put_string_field(b, ENTRY_NAME, annotation_names[i]);
		proto_message_end(b, INTERNED_ANNOTATION_NAMES, entry);
	}
	proto_message_end(b, PACKET_INTERNED_DATA, interned);
	track_descriptor(pp, uuid, parent, t, 0);
	write_packet(pp);
}

/* ---- slices ------------------------------------------------------------------- */

/* The iid of s's name (and source location); 0 when out of memory. */
static uint64_t iid_of(struct perfetto_proto *pp, const struct symbol *s)
{
	void **slot = view_symtab_slot(&pp->iids, s->id);
	if (!slot)
		return 0;
	if (!*slot)
		*slot = (void *)(uintptr_t)++pp->next_iid;
	uint64_t iid = (uintptr_t)*slot;
	if (iid >= pp->cap_sent) {
		size_t cap = pp->cap_sent ? pp->cap_sent * 2 : 1024;
		uint8_t *sent = realloc(pp->sent, cap);
		if (!sent)
			return 0;
		memset(sent + pp->cap_sent, 0, cap - pp->cap_sent);
		pp->sent = sent;
		pp->cap_sent = cap;
	}
	return iid;
}

/* InternedData for s the first time this sequence uses it. */
static void intern(struct perfetto_proto *pp, const struct symbol *s, uint64_t iid)
{
	struct proto_buf *b = &pp->pkt;
	if (pp->sent[iid])
		return;
	pp->sent[iid] = 1;
	size_t interned = proto_message_begin(b);
	size_t entry = proto_message_begin(b);
	proto_put_varint_field(b, ENTRY_IID, iid);
	proto_put_string_field(b, ENTRY_NAME, s->name);
	proto_message_end(b, INTERNED_EVENT_NAMES, entry);
	entry = proto_message_begin(b);
	proto_put_varint_field(b, ENTRY_IID, iid);
	if (s->file)
		proto_put_string_field(b, LOCATION_FILE, s->file);
	proto_put_string_field(b, LOCATION_FUNCTION, s->name);
	if (s->line)
		proto_put_varint_field(b, LOCATION_LINE, s->line);
	proto_message_end(b, INTERNED_SOURCE_LOCATIONS, entry);
	proto_message_end(b, PACKET_INTERNED_DATA, interned);
}

static void annotation_text(struct proto_buf *b, uint64_t name, const char *text)
{
	size_t a = proto_message_begin(b);
	proto_put_varint_field(b, ANNOTATION_NAME_IID, name);
	proto_put_string_field(b, ANNOTATION_STRING, text);
	proto_message_end(b, EVENT_DEBUG_ANNOTATIONS, a);
}

static void write_begin(struct perfetto_proto *pp, const struct open_call *c)
{
	struct proto_buf *b = &pp->pkt;
	uint64_t iid = iid_of(pp, c->sym);
	if (!iid) {
		pp->failed = 1;
		return;
	}
	packet_begin(pp, c->start_ns);
	size_t event = proto_message_begin(b);
	proto_put_varint_field(b, EVENT_TYPE, SLICE_BEGIN);
	proto_put_varint_field(b, EVENT_NAME_IID, iid);
	proto_put_varint_field(b, EVENT_SOURCE_LOCATION_IID, iid);
	if (c->sym->kind != CALL_FUNCTION) /* "library", "syscall", "sched" */
		proto_put_string_field(b, EVENT_CATEGORIES, view_kind_json(c->sym->kind));
	if (c->args)
		annotation_text(b, NAME_ARGS, c->args);
	proto_message_end(b, PACKET_TRACK_EVENT, event);
	intern(pp, c->sym, iid);
	write_packet(pp);
}

/* The calls still pending around `depth` (begun before the window) reach
 * into it: their begins are written, outermost first. */
static void write_pending(struct perfetto_proto *pp, uint32_t depth)
{
	for (uint32_t d = 0; d < depth && d < pp->used; d++) {
		struct open_call *c = &pp->stack[d];
		if (c->written || c->skipped)
			continue;
		write_begin(pp, c);
		c->written = 1;
		free(c->args);
		c->args = NULL;
	}
}

/* The values of calls, read once per function; NULL when out of memory. */
static struct call_values *call_values_of(struct perfetto_proto *pp)
{
	if (!pp->values && !(pp->values = call_values_new()))
		pp->failed = 1;
	return pp->values;
}

/* The call's recorded arguments as C text ("a=40, b=2"), or NULL. */
static const char *args_text(struct perfetto_proto *pp, const struct walk_event *e)
{
	if (!e->args || !call_values_of(pp))
		return NULL;
	value_out_reset(&pp->text);
	call_values_args_c(pp->values, &pp->text, e->sym, e->args, e->args_len, e->ret, e->ret_len);
	const char *text = value_out_text(&pp->text);
	return *text ? text : NULL;
}

static void on_enter(void *ctx, const struct walk_event *e)
{
	struct perfetto_proto *pp = ctx;
	if (!ARRAY_RESERVE(pp->stack, e->depth, pp->cap_stack, 64)) {
		pp->failed = 1;
		return;
	}
	while (pp->used <= e->depth)
		pp->stack[pp->used++] = (struct open_call){0};
	struct open_call *c = &pp->stack[e->depth];
	free(c->args);
	*c = (struct open_call){.sym = e->sym, .start_ns = e->start_ns};
	if (e->start_ns > pp->to_ns) {
		c->skipped = 1;
		return;
	}
	const char *args = args_text(pp, e);
	if (e->start_ns >= pp->from_ns) {
		write_pending(pp, e->depth);
		c->args = (char *)args;
		write_begin(pp, c);
		c->args = NULL;
		c->written = 1;
	} else if (args && !(c->args = strdup(args))) {
		pp->failed = 1;
	}
}

static void on_leave(void *ctx, const struct walk_event *e)
{
	struct perfetto_proto *pp = ctx;
	if (e->depth >= pp->used)
		return;
	struct open_call *c = &pp->stack[e->depth];
	if (c->skipped || (!c->written && e->end_ns < pp->from_ns))
		return;
	write_pending(pp, e->depth + 1);
	struct proto_buf *b = &pp->pkt;
	packet_begin(pp, e->end_ns);
	size_t event = proto_message_begin(b);
	proto_put_varint_field(b, EVENT_TYPE, SLICE_END);
	if (e->ret && call_values_of(pp)) {
		value_out_reset(&pp->text);
		call_values_return_c(pp->values, &pp->text, e->sym, e->ret, e->ret_len);
		annotation_text(b, NAME_RETURN, value_out_text(&pp->text));
	}
	for (int i = 0; i < 2; i++) {
		if (!(i ? e->entered_before : e->unfinished))
			continue;
		size_t a = proto_message_begin(b);
		proto_put_varint_field(b, ANNOTATION_NAME_IID,
				       i ? NAME_ENTERED_BEFORE : NAME_UNFINISHED);
		proto_put_varint_field(b, ANNOTATION_BOOL, 1);
		proto_message_end(b, EVENT_DEBUG_ANNOTATIONS, a);
	}
	proto_message_end(b, PACKET_TRACK_EVENT, event);
	write_packet(pp);
}

static void on_mark(void *ctx, const struct walk_mark *m)
{
	struct perfetto_proto *pp = ctx;
	if (m->time_ns < pp->from_ns || m->time_ns > pp->to_ns)
		return;
	char *text = strndup(m->text, m->len);
	if (!text) {
		pp->failed = 1;
		return;
	}
	write_pending(pp, m->depth);
	struct proto_buf *b = &pp->pkt;
	packet_begin(pp, m->time_ns);
	size_t event = proto_message_begin(b);
	proto_put_varint_field(b, EVENT_TYPE, INSTANT);
	proto_put_string_field(b, EVENT_NAME, text);
	size_t a = proto_message_begin(b);
	proto_put_varint_field(b, ANNOTATION_NAME_IID, NAME_AFTER_SEQ);
	proto_put_varint_field(b, ANNOTATION_UINT, m->seq);
	proto_message_end(b, EVENT_DEBUG_ANNOTATIONS, a);
	proto_message_end(b, PACKET_TRACK_EVENT, event);
	write_packet(pp);
	free(text);
}

/* ---- the interface ------------------------------------------------------------ */

struct perfetto_proto *perfetto_proto_new(FILE *out, uint64_t from_ns, uint64_t to_ns)
{
	struct perfetto_proto *pp = calloc(1, sizeof(*pp));
	if (!pp)
		return NULL;
	pp->out = out;
	pp->from_ns = from_ns;
	pp->to_ns = to_ns;
	value_out_init_buffer(&pp->text);
	return pp;
}

void perfetto_proto_consumer(struct perfetto_proto *pp, struct walk_consumer *c)
{
	memset(c, 0, sizeof(*c));
	c->ctx = pp;
	c->begin_thread = begin_thread;
	c->enter = on_enter;
	c->exit = on_leave;
	c->mark = on_mark;
}

int perfetto_proto_finish(struct perfetto_proto *pp)
{
	return pp->failed || pp->pkt.failed ? -1 : 0;
}

void perfetto_proto_free(struct perfetto_proto *pp)
{
	if (!pp)
		return;
	for (size_t i = 0; i < pp->used; i++)
		free(pp->stack[i].args);
	free(pp->stack);
	proto_buf_free(&pp->pkt);
	view_symtab_free(&pp->iids, NULL);
	free(pp->sent);
	free(pp->procs);
	call_values_free(pp->values);
	value_out_free(&pp->text);
	free(pp);
}
