/*
 * order_app.c - the bundled example: a tiny order-processing pipeline.
 *
 * main loads three orders, reserves stock (static library libinventory.a),
 * prices them (shared library libpricing.so), asks the shipping plugin
 * (libshipping.so, opened with dlopen and closed with dlclose) for delivery
 * estimates, forks a child that prints the invoices, and runs two threads
 * at once: one notifies the customers, one writes the audit log.
 *
 * Usage: order_app PATH/TO/libshipping.so
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "inventory.h"
#include "pricing.h"

#define NORDERS 3

struct order {
	int id;
	const char *customer;
	const char *item;
	int quantity;
	int express;
	int accepted;
	int total_cents;
	int days;
};

static struct order orders[NORDERS];

static void parse_order(struct order *o, int id, const char *customer, const char *item,
			int quantity, int express)
{
	*o = (struct order){
	    .id = id, .customer = customer, .item = item, .quantity = quantity, .express = express};
}

static void load_orders(void)
{
	parse_order(&orders[0], 101, "ada", "teapot", 2, 0);
	parse_order(&orders[1], 102, "brian", "kettle", 3, 1);
	parse_order(&orders[2], 103, "chloe", "mug", 12, 0);
}

static void validate_orders(void)
{
	for (int i = 0; i < NORDERS; i++)
		orders[i].accepted = inventory_reserve(orders[i].item, orders[i].quantity);
}

static void price_orders(void)
{
	for (int i = 0; i < NORDERS; i++)
		if (orders[i].accepted)
			orders[i].total_cents = pricing_quote(orders[i].item, orders[i].quantity);
}

static void plan_shipping(const char *plugin_path)
{
	void *plugin = dlopen(plugin_path, RTLD_NOW);
	if (!plugin) {
		fprintf(stderr, "order_app: %s\n", dlerror());
		exit(1);
	}
	int (*estimate)(int, int) = (int (*)(int, int))dlsym(plugin, "shipping_estimate");
	if (!estimate) {
		fprintf(stderr, "order_app: %s\n", dlerror());
		exit(1);
	}
	for (int i = 0; i < NORDERS; i++)
		if (orders[i].accepted)
			orders[i].days = estimate(orders[i].quantity, orders[i].express);
	dlclose(plugin);
}

static void invoice_format_line(const struct order *o)
{
	if (o->accepted)
		printf("invoice %d: %s x%d for %s, %d.%02d, ships in %d days\n", o->id, o->item,
		       o->quantity, o->customer, o->total_cents / 100, o->total_cents % 100,
		       o->days);
	else
		printf("invoice %d: %s x%d for %s, out of stock\n", o->id, o->item, o->quantity,
		       o->customer);
}

static void print_invoices(void)
{
	for (int i = 0; i < NORDERS; i++)
		invoice_format_line(&orders[i]);
}

static void run_invoice_printer(void)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		print_invoices();
		exit(0);
	}
	waitpid(pid, NULL, 0);
}

static int send_email(const struct order *o)
{
	return o->accepted ? 1 : 0;
}

static void *notify_customers(void *arg)
{
	int *sent = arg;
	for (int i = 0; i < NORDERS; i++)
		*sent += send_email(&orders[i]);
	return NULL;
}

static int audit_record(const struct order *o)
{
	return o->id;
}

static void *write_audit_log(void *arg)
{
	int *records = arg;
	for (int i = 0; i < NORDERS; i++)
		*records += audit_record(&orders[i]) > 0;
	return NULL;
}

static void run_background_jobs(int *sent, int *records)
{
	pthread_t notifier, auditor;
	pthread_create(&notifier, NULL, notify_customers, sent);
	pthread_create(&auditor, NULL, write_audit_log, records);
	pthread_join(notifier, NULL);
	pthread_join(auditor, NULL);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: order_app PATH/TO/libshipping.so\n");
		return 2;
	}
	int sent = 0, records = 0;
	load_orders();
	validate_orders();
	price_orders();
	plan_shipping(argv[1]);
	run_invoice_printer();
	run_background_jobs(&sent, &records);
	printf("done: %d emails sent, %d audit records\n", sent, records);
	return 0;
}
