/* one.c - libone: its call into libtwo is a call between two libraries. */
int two_call(int x);

int one_call(int x)
{
	return two_call(x) + 1;
}
