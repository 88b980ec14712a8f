/* three_leaves.c - the shortest process with calls: main calls leaf three
 * times (tests of traces of many short processes). */
static int leaf(int i)
{
	return i + 1;
}

int main(void)
{
	return leaf(leaf(leaf(0))) - 3;
}
