// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl: "monitor", one line per notification of the family's groups:
 * "monitor" (planes and settings), "conn" (connections up and down, planes
 * they leave and join) and "path" (EVs retired and restored).
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <linux/genetlink.h>

#include "mrcctl.h"

/* "2026-11-29T16:30:00.123456" and its NUL, with room to spare. */
#define MONITOR_TIME_LEN	40

const char *const monitor_usage_lines[] = {
	"monitor [ planes | conns | paths ]...",
	"monitor help",
	NULL
};

/* What to watch, in the order of enum nl_group, then "help". */
static const char *const monitor_objects[] = {
	[NL_GROUP_MONITOR]	= "planes",
	[NL_GROUP_CONN]		= "conns",
	[NL_GROUP_PATH]		= "paths",
	[NL_GROUP_COUNT]	= "help",
};

void monitor_usage(FILE *out)
{
	usage_print(out, monitor_usage_lines, false);
}

struct monitor_event {
	__u8 cmd;
	const char *text;	/* name in text output */
	const char *json;	/* name in JSON output */
	const char *object;	/* JSON key of the attributes */
	const struct field_set *set;
	const struct field_set *more;	/* more attributes, or NULL */
	/* Plane nests of a connection, or NULL; @planes: several of them. */
	const struct field_set *plane;
	bool planes;
};

static const struct monitor_event monitor_events[] = {
	{ .cmd = MRC_CMD_PLANE_ADD_NTF, .text = "plane add",
	  .json = "plane-add", .object = "plane", .set = &plane_fields },
	{ .cmd = MRC_CMD_PLANE_DEL_NTF, .text = "plane del",
	  .json = "plane-del", .object = "plane", .set = &plane_fields },
	{ .cmd = MRC_CMD_PLANE_CHANGE_NTF, .text = "plane change",
	  .json = "plane-change", .object = "plane", .set = &plane_fields },
	{ .cmd = MRC_CMD_CONFIG_CHANGE_NTF, .text = "config change",
	  .json = "config-change", .object = "config", .set = &config_fields },
	{ .cmd = MRC_CMD_CONN_UP_NTF, .text = "conn up",
	  .json = "conn-up", .object = "conn", .set = &conn_event_fields,
	  .plane = &event_plane_fields, .planes = true },
	{ .cmd = MRC_CMD_CONN_DOWN_NTF, .text = "conn down",
	  .json = "conn-down", .object = "conn", .set = &conn_event_fields,
	  .more = &conn_stats_fields },
	{ .cmd = MRC_CMD_CONN_PLANE_LEAVE_NTF, .text = "conn left",
	  .json = "conn-left", .object = "conn", .set = &conn_event_fields,
	  .plane = &event_plane_fields },
	{ .cmd = MRC_CMD_CONN_PLANE_JOIN_NTF, .text = "conn joined",
	  .json = "conn-joined", .object = "conn", .set = &conn_event_fields,
	  .plane = &event_plane_fields },
	{ .cmd = MRC_CMD_EV_RETIRE_NTF, .text = "ev retired",
	  .json = "ev-retired", .object = "conn", .set = &ev_event_fields,
	  .plane = &event_plane_fields },
	{ .cmd = MRC_CMD_EV_RESTORE_NTF, .text = "ev restored",
	  .json = "ev-restored", .object = "conn", .set = &ev_event_fields,
	  .plane = &event_plane_fields },
};

/* The event a message of the family notifies, or NULL. */
static const struct monitor_event *
monitor_event_find(const struct nlmsghdr *nlh)
{
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(nlh);
	size_t i;

	if (mnl_nlmsg_get_payload_len(nlh) < GENL_HDRLEN)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(monitor_events); i++)
		if (monitor_events[i].cmd == genl->cmd)
			return &monitor_events[i];
	return NULL;
}

/* The local time, to the microsecond, in ISO 8601 format. */
static int monitor_time(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	size_t n;

	if (clock_gettime(CLOCK_REALTIME, &ts) < 0 ||
	    !localtime_r(&ts.tv_sec, &tm))
		return -1;
	n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!n) {
		errno = EOVERFLOW;
		return -1;
	}
	snprintf(buf + n, len - n, ".%06ld", ts.tv_nsec / 1000);
	return 0;
}

/*
 * The planes of a connection's event: as text, " planes 1,2" for several,
 * or the fields of the one; in JSON, an array "planes" or an object
 * "plane" in the open object.
 */
static int monitor_print_planes(struct mrcctl *ctl,
				const struct monitor_event *ev,
				const struct nlmsghdr *nlh)
{
	const struct nlattr *tb[MRC_ATTR_TB_SIZE];
	struct json_writer *w = &ctl->jw;
	const struct nlattr *attr, *id;
	const char *sep = " planes ";

	if (ctl->json && ev->planes)
		json_arr_open(w, "planes");
	mnl_attr_for_each(attr, nlh, GENL_HDRLEN) {
		if (mnl_attr_get_type(attr) != MRC_CONN_ATTR_PLANE)
			continue;
		if (nl_parse_nested(attr, ev->plane->policy, ev->plane->max,
				    tb) < 0)
			return -1;
		id = tb[MRC_CONN_PLANE_ATTR_ID];
		if (ctl->json) {
			field_json(w, ev->planes ? NULL : "plane", ev->plane, tb);
		} else if (!ev->planes) {
			field_pairs(stdout, ev->plane, tb, " ", "");
		} else if (id) {
			printf("%s%u", sep, mnl_attr_get_u32(id));
			sep = ",";
		}
	}
	if (ctl->json && ev->planes)
		json_arr_close(w);
	return 0;
}

static int monitor_print(struct mrcctl *ctl, const struct monitor_event *ev,
			 const char *time, const struct nlmsghdr *nlh,
			 const struct nlattr *const *tb)
{
	struct json_writer *w = &ctl->jw;
	int err = 0;

	if (!ctl->json) {
		printf("[%s] %s", time, ev->text);
		field_pairs(stdout, ev->set, tb, " ", "");
		if (ev->more)
			field_pairs(stdout, ev->more, tb, " ", "");
		if (ev->plane)
			err = monitor_print_planes(ctl, ev, nlh);
		putchar('\n');
		return err;
	}

	/* One compact object per line, even with -p. */
	json_init(w, stdout, false);
	json_obj_open(w, NULL);
	json_str(w, "time", time);
	json_str(w, "event", ev->json);
	json_obj_open(w, ev->object);
	field_json_members(w, ev->set, tb);
	if (ev->more)
		field_json_members(w, ev->more, tb);
	if (ev->plane)
		err = monitor_print_planes(ctl, ev, nlh);
	json_obj_close(w);
	json_obj_close(w);
	return err;
}

static int monitor_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[MRC_ATTR_TB_SIZE];
	char time[MONITOR_TIME_LEN];
	const struct monitor_event *ev;
	struct mrcctl *ctl = data;

	if (nlh->nlmsg_type != ctl->nl.family)
		return MNL_CB_OK;
	ev = monitor_event_find(nlh);
	if (!ev)
		return MNL_CB_OK;

	if (monitor_time(time, sizeof(time)) < 0 ||
	    field_parse(ev->set, nlh, tb) < 0 ||
	    monitor_print(ctl, ev, time, nlh, tb) < 0 ||
	    fflush(stdout) == EOF)
		return MNL_CB_ERROR;
	return MNL_CB_OK;
}

/*
 * SIGINT and SIGTERM end the monitor: they are blocked, and read from a
 * signalfd polled with the socket.  Returns the signalfd, or -1.
 */
static int monitor_signalfd(void)
{
	sigset_t mask;
	int fd = -1;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	if (!sigprocmask(SIG_BLOCK, &mask, NULL))
		fd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (fd < 0)
		fprintf(stderr, "mrcctl: %s\n", strerror(errno));
	return fd;
}

/* Print the notifications that came; 0, or -1 after reporting a failure. */
static int monitor_receive(struct mrcctl *ctl)
{
	if (!mrc_nl_receive(&ctl->nl, monitor_cb, ctl))
		return 0;
	if (ctl->nl.err == ENOBUFS) {
		fputs("mrcctl: events lost, the socket overran\n", stderr);
		return 0;
	}
	mrc_nl_perror(&ctl->nl);
	return -1;
}

static int monitor_loop(struct mrcctl *ctl, int sigfd)
{
	struct pollfd pfd[] = {
		{ .fd = mrc_nl_fd(&ctl->nl), .events = POLLIN },
		{ .fd = sigfd, .events = POLLIN },
	};

	for (;;) {
		if (poll(pfd, ARRAY_SIZE(pfd), -1) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "mrcctl: %s\n", strerror(errno));
			return EXIT_FAILURE;
		}
		if (pfd[1].revents)
			return EXIT_SUCCESS;
		if (pfd[0].revents && monitor_receive(ctl) < 0)
			return EXIT_FAILURE;
	}
}

/*
 * Join the groups of @objects, BIT(enum nl_group).  With none asked for,
 * all: "monitor", and those of the others that the user may join (they
 * need CAP_NET_ADMIN) and the module has.  Returns 0, or -1 after
 * reporting a failure.
 */
static int monitor_subscribe(struct mrcctl *ctl, unsigned long objects)
{
	bool all = !objects, denied = false;
	int group;

	if (all)
		objects = BIT(NL_GROUP_COUNT) - 1;
	for (group = 0; group < NL_GROUP_COUNT; group++) {
		if (!(objects & BIT(group)) ||
		    !mrc_nl_subscribe(&ctl->nl, group))
			continue;
		if (all && group != NL_GROUP_MONITOR &&
		    (ctl->nl.err == EPERM || ctl->nl.err == ENOENT)) {
			denied |= ctl->nl.err == EPERM;
			continue;
		}
		if (ctl->nl.err == ENOENT)
			fprintf(stderr,
				"mrcctl: the mrc family has no \"%s\" group\n",
				nl_group_names[group]);
		else
			fprintf(stderr, "mrcctl: joining the \"%s\" group: %s\n",
				nl_group_names[group], strerror(ctl->nl.err));
		return -1;
	}
	if (denied)
		fputs("mrcctl: connection and path events need CAP_NET_ADMIN: not shown\n",
		      stderr);
	return 0;
}

int do_monitor(struct mrcctl *ctl, int argc, char **argv)
{
	unsigned long objects = 0;
	int i, kw, sigfd, status;

	for (i = 0; i < argc; i++) {
		kw = keyword_parse(argv[i], "object", monitor_objects,
				   ARRAY_SIZE(monitor_objects), KW_ALL,
				   monitor_usage);
		if (kw < 0)
			return EXIT_USAGE;
		if (kw == NL_GROUP_COUNT) {
			if (i)
				return usage_error(monitor_usage,
						   "\"help\" comes alone");
			if (args_none(argc - 1, argv + 1, monitor_usage))
				return EXIT_USAGE;
			monitor_usage(stdout);
			return EXIT_SUCCESS;
		}
		objects |= BIT(kw);
	}

	if (mrcctl_connect(ctl) < 0 || monitor_subscribe(ctl, objects) < 0)
		return EXIT_FAILURE;
	sigfd = monitor_signalfd();
	if (sigfd < 0)
		return EXIT_FAILURE;
	status = monitor_loop(ctl, sigfd);
	close(sigfd);
	return status;
}
