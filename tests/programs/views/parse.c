/* parse.c - turns a request number into a request, a character at a time. */
#include <stdio.h>
#include "requests.h"

static int classify(char c)
{
	return c >= '0' && c <= '9' ? 1 : 0;
}

static int read_field(const char *text, int *at)
{
	int v = 0;
	while (text[*at] && classify(text[*at]))
		v = v * 10 + (text[(*at)++] - '0');
	if (text[*at])
		(*at)++;
	return v;
}

void parse_request(int id, struct request *r)
{
	int at = 0;
	snprintf(r->text, sizeof(r->text), "%d %d %d", id % 3, (id * 7) % 50, id);
	r->id = id;
	r->kind = read_field(r->text, &at);
	r->key = read_field(r->text, &at);
	r->value = read_field(r->text, &at);
}
