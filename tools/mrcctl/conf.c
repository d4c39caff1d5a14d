// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl: the configuration of a namespace as commands ("showconf"), and
 * commands read from a file ("-batch FILE"), so that one replays the
 * other, as "ip -batch" does.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#include <errno.h>
#include <string.h>

#include "mrcctl.h"

/* Words of a batch line, at most. */
#define BATCH_MAX_ARGS	64

static void showconf_usage(FILE *out)
{
	fputs("Usage: mrcctl showconf\n", out);
}

/*
 * The settings first: "config set port" is refused once planes exist.
 * Replayed with -batch in a namespace without planes (after "plane
 * flush"), it makes the same configuration.
 */
int do_showconf(struct mrcctl *ctl, int argc, char **argv)
{
	int err;

	err = args_none(argc, argv, showconf_usage);
	if (err)
		return err;
	if (ctl->json)
		return usage_error(showconf_usage,
				   "showconf prints commands, not JSON");
	return config_showconf(ctl) ?: plane_showconf(ctl);
}

/*
 * Split @line into words at blanks, up to a '#' that starts a word (a
 * comment).  Returns the number of words, or -1 if there are too many.
 */
static int batch_split(char *line, char **argv)
{
	char *save, *word;
	int argc = 0;

	for (word = strtok_r(line, " \t\r\n", &save); word;
	     word = strtok_r(NULL, " \t\r\n", &save)) {
		if (*word == '#')
			break;
		if (argc == BATCH_MAX_ARGS)
			return -1;
		argv[argc++] = word;
	}
	return argc;
}

/*
 * Run each line of @path ("-" for stdin) as the arguments of a command
 * line, after the options.  Stops at the first command that fails, unless
 * @force; then the exit status is that of the last failure.
 */
int run_batch(struct mrcctl *ctl, const char *path, bool force)
{
	char *line = NULL, *argv[BATCH_MAX_ARGS];
	bool from_stdin = !strcmp(path, "-");
	int argc, status, ret = EXIT_SUCCESS;
	unsigned int lineno = 0;
	size_t size = 0;
	FILE *in;

	in = from_stdin ? stdin : fopen(path, "r");
	if (!in) {
		fprintf(stderr, "mrcctl: cannot open \"%s\": %s\n", path,
			strerror(errno));
		return EXIT_FAILURE;
	}
	while (getline(&line, &size, in) >= 0) {
		lineno++;
		argc = batch_split(line, argv);
		if (!argc)
			continue;
		if (argc < 0) {
			fprintf(stderr, "mrcctl: %s:%u: more than %d words\n",
				path, lineno, BATCH_MAX_ARGS);
			status = EXIT_USAGE;
		} else {
			status = run_object(ctl, argc, argv);
		}
		if (status == EXIT_SUCCESS)
			continue;
		fprintf(stderr, "mrcctl: %s:%u: command failed\n", path,
			lineno);
		ret = status;
		if (!force)
			break;
	}
	if (ferror(in)) {
		fprintf(stderr, "mrcctl: cannot read \"%s\"\n", path);
		ret = EXIT_FAILURE;
	}
	free(line);
	if (!from_stdin)
		fclose(in);
	return ret;
}
