/* requests.h - a small request server for the views' tests: parse, route,
 * store and respond, each in its own source file. */
#ifndef REQUESTS_H
#define REQUESTS_H

struct request {
	int id, kind, key, value;
	char text[32];
};

void parse_request(int id, struct request *r);
int handle_request(struct request *r);
int store_get(int key);
void store_put(int key, int value);
int respond(const struct request *r, int result);
void mark(const char *text);

#endif
