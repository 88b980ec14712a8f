/*
 * workload.c - a small program for the flame chart's browser test: calls
 * of distinct lengths (busy loops) in the main thread and a worker thread,
 * so that the chart has frames wide enough to click, hover and label.
 */
#include <pthread.h>
#include <stdio.h>

static volatile unsigned long sink;

static void spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

static void parse_value(int i)
{
	spin(150000 + 50000 * (unsigned long)i);
}

static void load_config(void)
{
	spin(100000);
	for (int i = 0; i < 3; i++)
		parse_value(i);
}

static void validate(int i)
{
	spin(200000 + 30000 * (unsigned long)i);
}

static void compress(int i)
{
	spin(300000 + 20000 * (unsigned long)i);
}

static void transform(int i)
{
	spin(50000);
	compress(i);
}

static void process_item(int i)
{
	validate(i);
	transform(i);
}

static void process_items(void)
{
	for (int i = 0; i < 6; i++)
		process_item(i);
}

static void crunch_step(int i)
{
	spin(250000 + 10000 * (unsigned long)i);
}

static void crunch(int i)
{
	crunch_step(i);
	crunch_step(i + 1);
}

static void *worker_main(void *arg)
{
	(void)arg;
	for (int i = 0; i < 4; i++)
		crunch(i);
	return NULL;
}

static void write_block(int i)
{
	spin(120000 + 40000 * (unsigned long)i);
}

static void save_results(void)
{
	for (int i = 0; i < 4; i++)
		write_block(i);
}

int main(void)
{
	pthread_t t;
	load_config();
	pthread_create(&t, NULL, worker_main, NULL);
	process_items();
	pthread_join(t, NULL);
	save_results();
	printf("%lu\n", sink);
	return 0;
}
