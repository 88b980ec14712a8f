/*
 * dynamic_options.c - the options `record` and `attach` share for the
 * dynamic engine: which libraries and functions to instrument, whether to
 * follow forks, and how much to say.
 */
#include "cli.h"

int cli_dynamic_option(struct cli_dynamic *d, int opt, const char *arg)
{
	switch (opt) {
	case CLI_OPT_MODULE:
		return cli_compile_regex(&d->module_re, &d->dyn.module_filter, arg, "--module") < 0
			   ? -1
			   : 1;
	case 'F':
		d->dyn.only_text = arg;
		return cli_compile_regex(&d->only_re, &d->dyn.only, arg, "-F") < 0 ? -1 : 1;
	case 'N':
		d->dyn.hide_text = arg;
		return cli_compile_regex(&d->hide_re, &d->dyn.hide, arg, "-N") < 0 ? -1 : 1;
	case CLI_OPT_NO_FOLLOW:
		d->dyn.follow_forks = 0;
		return 1;
	case 'v':
		d->dyn.verbose = 1;
		return 1;
	}
	return 0;
}

void cli_dynamic_free(struct cli_dynamic *d)
{
	if (d->dyn.module_filter)
		regfree(&d->module_re);
	if (d->dyn.only)
		regfree(&d->only_re);
	if (d->dyn.hide)
		regfree(&d->hide_re);
	if (d->dyn.args_only)
		regfree(&d->args_re);
	d->dyn.module_filter = d->dyn.only = d->dyn.hide = d->dyn.args_only = NULL;
}
