/*
 * static_a.c - a static function named like one in static_b.c: the views
 * tell the two apart by their file.
 */
int use_a(int v);

static int scale(int v)
{
	return v * 2;
}

int use_a(int v)
{
	return scale(v) + scale(v + 1);
}
