/* handle.c - routes a request: reads, writes or a scan of the store. */
#include "requests.h"

static int checksum(int v)
{
	return (v * 31 + 7) % 1009;
}

static int scan(int from, int n)
{
	int sum = 0;
	for (int k = from; k < from + n; k++)
		sum += checksum(store_get(k));
	return sum;
}

int handle_request(struct request *r)
{
	int result;
	switch (r->kind) {
	case 0:
		result = store_get(r->key);
		break;
	case 1:
		store_put(r->key, r->value);
		result = checksum(r->value);
		break;
	default:
		result = scan(r->key, 110 + r->id % 40);
		break;
	}
	return respond(r, result);
}

int respond(const struct request *r, int result)
{
	return checksum(result + r->id);
}
