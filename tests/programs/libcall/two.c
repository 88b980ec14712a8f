/* two.c - libtwo, called by libone. */
int two_call(int x)
{
	return x * 2;
}
