/*
 * b.c - a static function named like a.c's: the diff test tells them apart.
 */
static int step(int i)
{
	return i * 2;
}

int count_b(int n)
{
	int sum = 0;
	for (int i = 0; i < n; i++)
		sum += step(i);
	return sum;
}
