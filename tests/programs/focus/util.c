/* util.c - a static step() of the same name as walk.c's. */
static int step(int n)
{
	return n + 1;
}

int util_run(int n)
{
	int sum = 0;
	for (int i = 0; i < n; i++)
		sum += step(i);
	return sum;
}
