// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl: "monitor", one line per notification of the "monitor" group.
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
	"monitor",
	"monitor help",
	NULL
};

/* The only command, as the monitor itself takes no argument. */
static const char *const monitor_commands[] = { "help" };

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
};

static const struct monitor_event monitor_events[] = {
	{ MRC_CMD_PLANE_ADD_NTF, "plane add", "plane-add", "plane",
	  &plane_fields },
	{ MRC_CMD_PLANE_DEL_NTF, "plane del", "plane-del", "plane",
	  &plane_fields },
	{ MRC_CMD_PLANE_CHANGE_NTF, "plane change", "plane-change", "plane",
	  &plane_fields },
	{ MRC_CMD_CONFIG_CHANGE_NTF, "config change", "config-change",
	  "config", &config_fields },
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

static void monitor_print(struct mrcctl *ctl, const struct monitor_event *ev,
			  const char *time, const struct nlattr *const *tb)
{
	struct json_writer *w = &ctl->jw;

	if (!ctl->json) {
		printf("[%s] %s", time, ev->text);
		field_pairs(stdout, ev->set, tb, " ", "");
		putchar('\n');
		return;
	}

	/* One compact object per line, even with -p. */
	json_init(w, stdout, false);
	json_obj_open(w, NULL);
	json_str(w, "time", time);
	json_str(w, "event", ev->json);
	field_json(w, ev->object, ev->set, tb);
	json_obj_close(w);
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
	    field_parse(ev->set, nlh, tb) < 0)
		return MNL_CB_ERROR;
	monitor_print(ctl, ev, time, tb);
	if (fflush(stdout) == EOF)
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

int do_monitor(struct mrcctl *ctl, int argc, char **argv)
{
	int sigfd, status;

	if (argc) {
		if (keyword_parse(argv[0], "command", monitor_commands,
				  ARRAY_SIZE(monitor_commands), KW_ALL,
				  monitor_usage) < 0 ||
		    args_none(argc - 1, argv + 1, monitor_usage))
			return EXIT_USAGE;
		monitor_usage(stdout);
		return EXIT_SUCCESS;
	}

	if (mrcctl_connect(ctl) < 0 || mrc_nl_subscribe(&ctl->nl) < 0)
		return EXIT_FAILURE;
	sigfd = monitor_signalfd();
	if (sigfd < 0)
		return EXIT_FAILURE;
	status = monitor_loop(ctl, sigfd);
	close(sigfd);
	return status;
}
