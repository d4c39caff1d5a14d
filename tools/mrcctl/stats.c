// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl: "stats", the counters of a network namespace, and the counters
 * that other replies carry (a plane's, with -s).  Counters come as nests
 * of a name and a value, so that this tool shows the ones a newer kernel
 * adds without knowing them.
 *
 * "stats -d" prints what changed since the last "stats -d", as nstat
 * does, keeping the last values in a history file of the user and the
 * namespace.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/genetlink.h>

#include "mrcctl.h"

/* More than the kernel has; the rest would be left out, with a warning. */
#define COUNTERS_MAX	256
#define COUNTER_NAME_MAX 64

struct counter {
	char name[COUNTER_NAME_MAX];
	unsigned long long value;
};

struct counters {
	struct counter c[COUNTERS_MAX];
	unsigned int n;
	bool truncated;
};

const char *const stats_usage_lines[] = {
	"stats [show] [-d[elta]]",
	"stats help",
	NULL
};

void stats_usage(FILE *out)
{
	usage_print(out, stats_usage_lines, false);
}

static const struct nl_policy counter_policy[MRC_COUNTER_ATTR_MAX + 1] = {
	[MRC_COUNTER_ATTR_NAME]		= { MNL_TYPE_NUL_STRING },
	[MRC_COUNTER_ATTR_VALUE]	= { MNL_TYPE_U64 },
};

static int counter_add(struct counters *cs, const struct nlattr *nest)
{
	const struct nlattr *tb[MRC_COUNTER_ATTR_MAX + 1];
	struct counter *c;

	if (nl_parse_nested(nest, counter_policy, MRC_COUNTER_ATTR_MAX,
			    tb) < 0 ||
	    !tb[MRC_COUNTER_ATTR_NAME] || !tb[MRC_COUNTER_ATTR_VALUE])
		return -1;
	if (cs->n == COUNTERS_MAX) {
		cs->truncated = true;
		return 0;
	}
	c = &cs->c[cs->n++];
	snprintf(c->name, sizeof(c->name), "%s",
		 mnl_attr_get_str(tb[MRC_COUNTER_ATTR_NAME]));
	c->value = mnl_attr_get_u64(tb[MRC_COUNTER_ATTR_VALUE]);
	return 0;
}

/* The counters of a message: every attribute @attr, in order. */
static int counters_collect(const struct nlmsghdr *nlh, unsigned int attr,
			    struct counters *cs)
{
	const struct nlattr *a;

	cs->n = 0;
	cs->truncated = false;
	mnl_attr_for_each(a, nlh, GENL_HDRLEN) {
		if (mnl_attr_get_type(a) == attr && counter_add(cs, a) < 0)
			return -1;
	}
	if (cs->truncated)
		fprintf(stderr, "mrcctl: more than %d counters, the rest left out\n",
			COUNTERS_MAX);
	return 0;
}

/*
 * A plane's counters (-s): members of an object @key in JSON, else one
 * indented line of "name value" pairs.
 */
int counters_show(struct mrcctl *ctl, const struct nlmsghdr *nlh,
		  unsigned int attr, const char *key)
{
	static struct counters cs;
	unsigned int i;

	if (counters_collect(nlh, attr, &cs) < 0)
		return -1;
	if (ctl->json) {
		json_obj_open(&ctl->jw, key);
		for (i = 0; i < cs.n; i++)
			json_uint(&ctl->jw, cs.c[i].name, cs.c[i].value);
		json_obj_close(&ctl->jw);
		return 0;
	}
	if (!cs.n)
		return 0;
	fputs("   ", stdout);
	for (i = 0; i < cs.n; i++)
		printf(" %s %llu", cs.c[i].name, cs.c[i].value);
	putchar('\n');
	return 0;
}

static int stats_cb(const struct nlmsghdr *nlh, void *data)
{
	return counters_collect(nlh, MRC_STATS_ATTR_COUNTER, data) < 0 ?
	       MNL_CB_ERROR : MNL_CB_OK;
}

/* The history of -d: one per user and namespace, as nstat keeps one. */
static int history_path(char *buf, size_t len)
{
	const char *env = getenv("MRCCTL_STATS_HISTORY");
	struct stat st;

	if (env && *env)
		return snprintf(buf, len, "%s", env) >= (int)len ? -1 : 0;
	if (stat("/proc/self/ns/net", &st) < 0)
		return -1;
	return snprintf(buf, len, "/tmp/.mrcctl-stats.u%u.%lu",
			(unsigned int)getuid(),
			(unsigned long)st.st_ino) >= (int)len ? -1 : 0;
}

/*
 * The values of the last -d, into @old (by name); none is not an error.
 * In a directory that others write to, only a file of ours counts.
 */
static void history_read(const char *path, struct counters *old)
{
	char name[COUNTER_NAME_MAX];
	unsigned long long value;
	struct stat st;
	FILE *f;
	int fd;

	old->n = 0;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	f = fdopen(fd, "r");
	if (!f || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != getuid()) {
		if (f)
			fclose(f);
		else
			close(fd);
		return;
	}
	while (old->n < COUNTERS_MAX &&
	       fscanf(f, "%63s %llu", name, &value) == 2) {
		snprintf(old->c[old->n].name, COUNTER_NAME_MAX, "%s", name);
		old->c[old->n++].value = value;
	}
	fclose(f);
}

/*
 * Replace the history at once, so that a reader never sees half of it: a
 * new file of our own (mkstemp() makes it, never follows a link), renamed
 * over the old one.
 */
static int history_write(const char *path, const struct counters *cs)
{
	char tmp[4096];
	unsigned int i;
	FILE *f;
	int fd;

	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp))
		return -1;
	fd = mkstemp(tmp);
	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		return -1;
	}
	for (i = 0; i < cs->n; i++)
		fprintf(f, "%s %llu\n", cs->c[i].name, cs->c[i].value);
	if (fclose(f) == EOF || rename(tmp, path) < 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

static unsigned long long history_value(const struct counters *old,
					const char *name)
{
	unsigned int i;

	for (i = 0; i < old->n; i++)
		if (!strcmp(old->c[i].name, name))
			return old->c[i].value;
	return 0;
}

static void stats_print(struct mrcctl *ctl, const struct counters *cs,
			const struct counters *old)
{
	unsigned long long value;
	unsigned int i;

	if (ctl->json) {
		json_init(&ctl->jw, stdout, ctl->pretty);
		json_obj_open(&ctl->jw, NULL);
	}
	for (i = 0; i < cs->n; i++) {
		value = cs->c[i].value;
		/* A counter below its history: the namespace is new. */
		if (old) {
			unsigned long long was = history_value(old,
							       cs->c[i].name);

			value = value >= was ? value - was : value;
			if (!value)
				continue;
		}
		if (ctl->json)
			json_uint(&ctl->jw, cs->c[i].name, value);
		else
			printf("%-24s %llu\n", cs->c[i].name, value);
	}
	if (ctl->json)
		json_obj_close(&ctl->jw);
}

static int stats_show(struct mrcctl *ctl, int argc, char **argv)
{
	static struct counters cs, old;
	char path[4096];
	bool delta = false;
	struct nlmsghdr *nlh;

	for (; argc; argc--, argv++) {
		if (!strcmp(argv[0], "-d") || !strcmp(argv[0], "-delta") ||
		    !strcmp(argv[0], "delta"))
			delta = true;
		else
			return usage_error(stats_usage,
					   "unexpected argument \"%s\"",
					   argv[0]);
	}

	nlh = mrcctl_msg(ctl, MRC_CMD_STATS_GET, NLM_F_ACK);
	if (!nlh || mrc_nl_request(&ctl->nl, nlh, stats_cb, &cs) < 0)
		return EXIT_FAILURE;
	if (!delta) {
		stats_print(ctl, &cs, NULL);
		return EXIT_SUCCESS;
	}
	if (history_path(path, sizeof(path)) < 0) {
		fprintf(stderr, "mrcctl: no place for the history of -d\n");
		return EXIT_FAILURE;
	}
	history_read(path, &old);
	stats_print(ctl, &cs, &old);
	if (history_write(path, &cs) < 0) {
		fprintf(stderr, "mrcctl: cannot write %s: %s\n", path,
			strerror(errno));
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}

int do_stats(struct mrcctl *ctl, int argc, char **argv)
{
	if (argc && !strcmp(argv[0], "help")) {
		stats_usage(stdout);
		return EXIT_SUCCESS;
	}
	if (argc && !strcmp(argv[0], "show"))
		return stats_show(ctl, argc - 1, argv + 1);
	return stats_show(ctl, argc, argv);
}
