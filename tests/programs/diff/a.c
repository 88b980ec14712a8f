/*
 * a.c - a static function named like b.c's: the diff test tells them apart.
 */
static int step(int i)
{
	return i + 1;
}

int count_a(int n)
{
	int sum = 0;
	for (int i = 0; i < n; i++)
		sum += step(i);
	return sum;
}
