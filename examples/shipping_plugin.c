/* shipping_plugin.c - the example shop's shipping plugin, built as
 * libshipping.so: the app loads it with dlopen, asks for estimates and
 * unloads it with dlclose. */

int shipping_estimate(int quantity, int express);

static const char *shipping_pick_carrier(int quantity)
{
	return quantity > 5 ? "freight" : "parcel";
}

static int shipping_days(const char *carrier, int express)
{
	int days = carrier[0] == 'f' ? 6 : 3;
	return express ? days / 2 : days;
}

int shipping_estimate(int quantity, int express)
{
	return shipping_days(shipping_pick_carrier(quantity), express);
}
