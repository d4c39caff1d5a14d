// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl: configure MRC planes and settings, and show connections, over the
 * "mrc" netlink family.
 *
 * Command line parsing, dispatch to the objects, and what they share.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mrcctl.h"

#define NETNS_RUN_DIR	"/run/netns"

#define KW_NONE		(-1)
#define KW_AMBIGUOUS	(-2)

static const char *const main_usage_lines[] = {
	"[OPTIONS] OBJECT { COMMAND | help }",
	"[OPTIONS] -batch FILE [-force]",
	"showconf",
	"help",
	"-V",
	NULL
};

static const char main_usage_where[] =
	"where  OBJECT := { plane | config | conn | sock | monitor | plan |\n"
	"                   stats | showconf | help }\n"
	"       OPTIONS := { -j[son] | -p[retty] | -s[tats] | -n[etns] NETNS }\n";

static void main_usage(FILE *out)
{
	usage_print(out, main_usage_lines, false);
	fputs(main_usage_where, out);
}

static void full_usage(FILE *out)
{
	usage_print(out, main_usage_lines, false);
	usage_print(out, plane_usage_lines, true);
	usage_print(out, config_usage_lines, true);
	usage_print(out, conn_usage_lines, true);
	usage_print(out, sock_usage_lines, true);
	usage_print(out, monitor_usage_lines, true);
	usage_print(out, plan_usage_lines, true);
	usage_print(out, stats_usage_lines, true);
	fputs(main_usage_where, out);
}

/* Print "Usage: mrcctl LINE", then "       mrcctl LINE"; all so if @more. */
void usage_print(FILE *out, const char *const *lines, bool more)
{
	for (; *lines; lines++) {
		fprintf(out, "%s mrcctl %s\n", more ? "      " : "Usage:",
			*lines);
		more = true;
	}
}

/* Report a command line that is not understood; returns EXIT_USAGE. */
int usage_error(void (*usage)(FILE *out), const char *fmt, ...)
{
	va_list ap;

	fputs("mrcctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	usage(stderr);
	return EXIT_USAGE;
}

/*
 * Index of the word of @words[0..n) in @allowed that @arg is, or is the only
 * one to start with; KW_NONE or KW_AMBIGUOUS if there is none or several.
 */
static int keyword_find(const char *arg, const char *const *words,
			unsigned int n, unsigned long allowed)
{
	size_t len = strlen(arg);
	int found = KW_NONE;
	unsigned int i;

	if (!len)
		return KW_NONE;
	for (i = 0; i < n; i++) {
		if (!(allowed & BIT(i)) || strncmp(arg, words[i], len))
			continue;
		if (!words[i][len])
			return i;
		found = found == KW_NONE ? (int)i : KW_AMBIGUOUS;
	}
	return found;
}

/*
 * Like keyword_find(), but report the error; @what names the kind of word
 * in the message.  Returns the index, or a negative value.
 */
int keyword_parse(const char *arg, const char *what,
		  const char *const *words, unsigned int n,
		  unsigned long allowed, void (*usage)(FILE *out))
{
	int kw = keyword_find(arg, words, n, allowed);

	if (kw == KW_AMBIGUOUS)
		usage_error(usage, "ambiguous %s \"%s\"", what, arg);
	else if (kw == KW_NONE && keyword_find(arg, words, n, KW_ALL) >= 0)
		usage_error(usage, "%s \"%s\" is not valid here", what, arg);
	else if (kw == KW_NONE)
		usage_error(usage, "unknown %s \"%s\"", what, arg);
	return kw;
}

/*
 * Parse "KEYWORD [VALUE]..." where each keyword in @allowed may appear once,
 * into the bits of @seen, and each value with @parse.  Returns 0, the error
 * @parse returns, or EXIT_USAGE after reporting the error.
 */
int keywords_parse(const struct keywords *kws, unsigned long allowed,
		   int argc, char **argv, unsigned long *seen,
		   int (*parse)(void *data, int kw, const char *val),
		   void *data)
{
	const char *name;
	int i, kw, err;

	*seen = 0;
	for (i = 0; i < argc; i++) {
		kw = keyword_parse(argv[i], "argument", kws->words, kws->n,
				   allowed, kws->usage);
		if (kw < 0)
			return EXIT_USAGE;
		name = kws->words[kw];
		if (*seen & BIT(kw))
			return usage_error(kws->usage, "\"%s\" given twice",
					   name);
		*seen |= BIT(kw);
		if (kws->flags & BIT(kw))
			continue;
		if (++i == argc)
			return usage_error(kws->usage, "\"%s\" needs a value",
					   name);
		err = parse(data, kw, argv[i]);
		if (err)
			return err;
	}
	return 0;
}

/* For commands without arguments: 0, or EXIT_USAGE if there are some. */
int args_none(int argc, char **argv, void (*usage)(FILE *out))
{
	if (argc)
		return usage_error(usage, "unexpected argument \"%s\"",
				   argv[0]);
	return 0;
}

/* A decimal number up to @max, without sign or spaces; 0 or -1. */
static int parse_uint(const char *arg, unsigned long max, unsigned long *val)
{
	char *end;

	if (!isdigit((unsigned char)*arg))
		return -1;
	errno = 0;
	*val = strtoul(arg, &end, 10);
	if (errno || *end || *val > max)
		return -1;
	return 0;
}

int parse_u32(const char *arg, __u32 *val)
{
	unsigned long v;

	if (parse_uint(arg, UINT32_MAX, &v) < 0)
		return -1;
	*val = v;
	return 0;
}

int parse_u16(const char *arg, __u16 *val)
{
	unsigned long v;

	if (parse_uint(arg, UINT16_MAX, &v) < 0)
		return -1;
	*val = v;
	return 0;
}

/* Move to the network namespace named @name, as "ip netns" does. */
static int netns_enter(const char *name)
{
	char path[PATH_MAX];
	int fd, err;

	fd = -1;
	errno = ENAMETOOLONG;
	if (snprintf(path, sizeof(path), "%s/%s", NETNS_RUN_DIR, name) <
	    (int)sizeof(path))
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr,
			"mrcctl: cannot open network namespace \"%s\": %s\n",
			name, strerror(errno));
		return -1;
	}

	err = setns(fd, CLONE_NEWNET);
	if (err < 0)
		fprintf(stderr,
			"mrcctl: cannot enter network namespace \"%s\": %s\n",
			name, strerror(errno));
	close(fd);
	return err;
}

/* Move to the namespace of -n, once; reports failures. */
int mrcctl_enter_netns(struct mrcctl *ctl)
{
	if (!ctl->netns || ctl->in_netns)
		return 0;
	if (netns_enter(ctl->netns) < 0)
		return -1;
	ctl->in_netns = true;
	return 0;
}

/* Open the netlink socket, in the namespace of -n; reports failures. */
int mrcctl_connect(struct mrcctl *ctl)
{
	if (ctl->nl.sock)
		return 0;
	if (mrcctl_enter_netns(ctl) < 0)
		return -1;
	return mrc_nl_open(&ctl->nl);
}

/* Start a request, connecting first; NULL after reporting a failure. */
struct nlmsghdr *mrcctl_msg(struct mrcctl *ctl, __u8 cmd, __u16 flags)
{
	if (mrcctl_connect(ctl) < 0)
		return NULL;
	return mrc_nl_msg(&ctl->nl, cmd, flags);
}

struct reply_print {
	struct mrcctl *ctl;
	const struct field_set *set;
	bool text;
};

static int reply_print_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[MRC_ATTR_TB_SIZE];
	const struct reply_print *rp = data;
	struct mrcctl *ctl = rp->ctl;

	if (field_parse(rp->set, nlh, tb) < 0)
		return MNL_CB_ERROR;

	if (ctl->json) {
		json_init(&ctl->jw, stdout, ctl->pretty);
		field_json(&ctl->jw, NULL, rp->set, tb);
	} else if (rp->text) {
		field_pairs(stdout, rp->set, tb, "", "\n");
	}
	return MNL_CB_OK;
}

/*
 * Send a "do" request whose reply holds the attributes of @set, and print
 * the reply as JSON with -j, else as "label value" lines if @text.
 * Returns the exit status.
 */
int mrcctl_request(struct mrcctl *ctl, struct nlmsghdr *nlh,
		   const struct field_set *set, bool text)
{
	struct reply_print rp = { ctl, set, text };

	if (mrc_nl_request(&ctl->nl, nlh, reply_print_cb, &rp) < 0)
		return EXIT_FAILURE;
	return EXIT_SUCCESS;
}

enum option {
	OPT_JSON,
	OPT_PRETTY,
	OPT_STATS,
	OPT_NETNS,
	OPT_BATCH,
	OPT_FORCE,
	OPT_VERSION,
	OPT_HELP,
	OPT_COUNT,
};

static const char *const option_names[OPT_COUNT] = {
	[OPT_JSON]	= "json",
	[OPT_PRETTY]	= "pretty",
	[OPT_STATS]	= "stats",
	[OPT_NETNS]	= "netns",
	[OPT_BATCH]	= "batch",
	[OPT_FORCE]	= "force",
	[OPT_VERSION]	= "Version",
	[OPT_HELP]	= "help",
};

/*
 * Parse the options, "-word" or "--word", into @ctl.  Returns -1 to go on
 * with the arguments from argv[*i] on, else the exit status.
 */
static int parse_options(struct mrcctl *ctl, int argc, char **argv, int *i)
{
	const char *opt;
	int kw;

	for (*i = 1; *i < argc && argv[*i][0] == '-'; (*i)++) {
		opt = argv[*i] + 1;
		if (*opt == '-')
			opt++;

		kw = keyword_find(opt, option_names, OPT_COUNT, KW_ALL);
		switch (kw) {
		case OPT_JSON:
			ctl->json = true;
			break;
		case OPT_PRETTY:
			ctl->json = true;
			ctl->pretty = true;
			break;
		case OPT_STATS:
			ctl->stats = true;
			break;
		case OPT_NETNS:
		case OPT_BATCH:
			if (++*i == argc)
				return usage_error(main_usage,
						   "%s needs a value",
						   argv[*i - 1]);
			if (kw == OPT_NETNS)
				ctl->netns = argv[*i];
			else
				ctl->batch = argv[*i];
			break;
		case OPT_FORCE:
			ctl->force = true;
			break;
		case OPT_VERSION:
			printf("mrcctl %s\n", MRCCTL_VERSION);
			return EXIT_SUCCESS;
		case OPT_HELP:
			full_usage(stdout);
			return EXIT_SUCCESS;
		default:
			return usage_error(main_usage, "unknown option \"%s\"",
					   argv[*i]);
		}
	}
	return -1;
}

enum object {
	OBJ_PLANE,
	OBJ_CONFIG,
	OBJ_CONN,
	OBJ_SOCK,
	OBJ_MONITOR,
	OBJ_STATS,
	OBJ_SHOWCONF,
	OBJ_HELP,
	OBJ_COUNT,
};

static const char *const object_names[OBJ_COUNT] = {
	[OBJ_PLANE]	= "plane",
	[OBJ_CONFIG]	= "config",
	[OBJ_CONN]	= "conn",
	[OBJ_SOCK]	= "sock",
	[OBJ_MONITOR]	= "monitor",
	[OBJ_STATS]	= "stats",
	[OBJ_SHOWCONF]	= "showconf",
	[OBJ_HELP]	= "help",
};

int run_object(struct mrcctl *ctl, int argc, char **argv)
{
	if (!argc)
		return usage_error(main_usage, "no object given");
	/* Only spelled out: its prefixes have always meant "plane". */
	if (!strcmp(argv[0], "plan"))
		return do_plan(ctl, argc - 1, argv + 1);

	switch (keyword_parse(argv[0], "object", object_names, OBJ_COUNT,
			      KW_ALL, main_usage)) {
	case OBJ_PLANE:
		return do_plane(ctl, argc - 1, argv + 1);
	case OBJ_CONFIG:
		return do_config(ctl, argc - 1, argv + 1);
	case OBJ_CONN:
		return do_conn(ctl, argc - 1, argv + 1);
	case OBJ_SOCK:
		return do_sock(ctl, argc - 1, argv + 1);
	case OBJ_MONITOR:
		return do_monitor(ctl, argc - 1, argv + 1);
	case OBJ_STATS:
		return do_stats(ctl, argc - 1, argv + 1);
	case OBJ_SHOWCONF:
		return do_showconf(ctl, argc - 1, argv + 1);
	case OBJ_HELP:
		full_usage(stdout);
		return EXIT_SUCCESS;
	default:
		return EXIT_USAGE;
	}
}

/* Make sure that the output was written: a write error fails the command. */
static int output_close(int status)
{
	if (fflush(stdout) == EOF || ferror(stdout)) {
		fprintf(stderr, "mrcctl: cannot write the output\n");
		return status ? status : EXIT_FAILURE;
	}
	return status;
}

int main(int argc, char **argv)
{
	static struct mrcctl ctl;
	int i, status;

	status = parse_options(&ctl, argc, argv, &i);
	if (status < 0 && ctl.batch && i < argc)
		status = usage_error(main_usage,
				     "no command line with -batch: \"%s\"",
				     argv[i]);
	else if (status < 0 && ctl.batch)
		status = run_batch(&ctl, ctl.batch, ctl.force);
	else if (status < 0 && ctl.force)
		status = usage_error(main_usage, "-force goes with -batch");
	else if (status < 0)
		status = run_object(&ctl, argc - i, argv + i);
	mrc_nl_close(&ctl.nl);
	return output_close(status);
}
