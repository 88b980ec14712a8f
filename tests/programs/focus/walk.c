/* walk.c - for `calltrace graph --focus`: walk() reached through two
 * callers and recursing, and a static step() with a namesake in util.c. */
int util_run(int n);

static int step(int n)
{
	return n * 2;
}

static int walk(int n)
{
	if (n <= 0)
		return step(n);
	return walk(n - 1) + step(n);
}

static int first(void)
{
	return walk(2);
}

static int second(void)
{
	return walk(1) + util_run(3);
}

int main(void)
{
	int sum = 0;
	for (int i = 0; i < 3; i++)
		sum += first();
	sum += second();
	return sum == 12345;
}
