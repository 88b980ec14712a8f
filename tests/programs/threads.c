/*
 * threads.c - four named threads that run at the same time, each with its own
 * call chain and known call counts:
 *
 *   alpha_thread -> begin, alpha_work x7
 *   beta_thread  -> begin, beta_work x11 -> beta_leaf
 *   gamma_thread -> begin, gamma_work x3 -> gamma_mid -> gamma_leaf x2
 *   delta_thread -> begin, delta_work -> delta_mid -> delta_deep -> delta_leaf
 *
 * The main thread calls spawn_workers, join_workers and report_totals.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>

#define NWORKERS 4

static pthread_barrier_t start_line;

static int alpha_work(int i)
{
	return i + 1;
}

static int beta_leaf(int i)
{
	return 2 * i;
}

static int beta_work(int i)
{
	return beta_leaf(i) + 1;
}

static int gamma_leaf(int i)
{
	return i * i;
}

static int gamma_mid(int i)
{
	int a = gamma_leaf(i);
	int b = gamma_leaf(i + 1);
	return a + b;
}

static int gamma_work(int i)
{
	return gamma_mid(i);
}

static int delta_leaf(void)
{
	return 42;
}

static int delta_deep(void)
{
	return delta_leaf();
}

static int delta_mid(void)
{
	return delta_deep();
}

static int delta_work(void)
{
	return delta_mid();
}

static void begin(const char *name)
{
	pthread_setname_np(pthread_self(), name);
	pthread_barrier_wait(&start_line);
}

static void *alpha_thread(void *arg)
{
	int *total = arg;
	begin("alpha");
	for (int i = 0; i < 7; i++)
		*total += alpha_work(i);
	return NULL;
}

static void *beta_thread(void *arg)
{
	int *total = arg;
	begin("beta");
	for (int i = 0; i < 11; i++)
		*total += beta_work(i);
	return NULL;
}

static void *gamma_thread(void *arg)
{
	int *total = arg;
	begin("gamma");
	for (int i = 0; i < 3; i++)
		*total += gamma_work(i);
	return NULL;
}

static void *delta_thread(void *arg)
{
	int *total = arg;
	begin("delta");
	*total += delta_work();
	return NULL;
}

static void spawn_workers(pthread_t *tids, int *totals)
{
	void *(*const workers[NWORKERS])(void *) = {alpha_thread, beta_thread, gamma_thread,
						    delta_thread};
	pthread_barrier_init(&start_line, NULL, NWORKERS);
	for (int i = 0; i < NWORKERS; i++)
		pthread_create(&tids[i], NULL, workers[i], &totals[i]);
}

static void join_workers(pthread_t *tids)
{
	for (int i = 0; i < NWORKERS; i++)
		pthread_join(tids[i], NULL);
	pthread_barrier_destroy(&start_line);
}

static void report_totals(const int *totals)
{
	printf("alpha %d beta %d gamma %d delta %d\n", totals[0], totals[1], totals[2], totals[3]);
}

int main(void)
{
	pthread_t tids[NWORKERS];
	int totals[NWORKERS] = {0};
	spawn_workers(tids, totals);
	join_workers(tids);
	report_totals(totals);
	return 0;
}
