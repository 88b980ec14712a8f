/* pricing.c - prices of the example shop, built as the shared library
 * libpricing.so that the app links at build time.  Amounts are in cents. */
#include <string.h>
#include "pricing.h"

static int pricing_base_price(const char *item)
{
	if (strcmp(item, "teapot") == 0)
		return 2500;
	if (strcmp(item, "kettle") == 0)
		return 4000;
	return 800;
}

static int pricing_apply_discount(int cents, int quantity)
{
	return quantity >= 10 ? cents * 9 / 10 : cents;
}

static int pricing_add_tax(int cents)
{
	return cents + cents / 5;
}

int pricing_quote(const char *item, int quantity)
{
	int cents = pricing_base_price(item) * quantity;
	cents = pricing_apply_discount(cents, quantity);
	return pricing_add_tax(cents);
}
