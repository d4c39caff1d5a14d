// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl: the generic netlink socket to the "mrc" family, and sockets of
 * NETLINK_SOCK_DIAG.
 *
 * Requests are acknowledged, and the kernel's extended ack message, if any,
 * is reported with the error.  Replies are handed to a callback per message.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/mrc_netlink.h>

#include "nl.h"

/* What one request's replies go to. */
struct nl_reply {
	struct mrc_nl *nl;
	mnl_cb_t cb;
	void *data;
};

struct nl_parse_ctx {
	const struct nl_policy *policy;
	unsigned int max;
	const struct nlattr **tb;
};

static const struct nl_policy ctrl_policy[CTRL_ATTR_MAX + 1] = {
	[CTRL_ATTR_FAMILY_ID]		= { MNL_TYPE_U16 },
	[CTRL_ATTR_MCAST_GROUPS]	= { MNL_TYPE_NESTED },
};

static const struct nl_policy ctrl_group_policy[CTRL_ATTR_MCAST_GRP_MAX + 1] = {
	[CTRL_ATTR_MCAST_GRP_NAME]	= { MNL_TYPE_NUL_STRING },
	[CTRL_ATTR_MCAST_GRP_ID]	= { MNL_TYPE_U32 },
};

static int nl_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nl_parse_ctx *ctx = data;
	unsigned int type = mnl_attr_get_type(attr);
	const struct nl_policy *pol;
	int err;

	/* Attributes newer than this tool are not needed. */
	if (type > ctx->max)
		return MNL_CB_OK;

	pol = &ctx->policy[type];
	if (pol->len)
		err = mnl_attr_validate2(attr, pol->type, pol->len);
	else
		err = mnl_attr_validate(attr, pol->type);
	if (err < 0)
		return MNL_CB_ERROR;

	ctx->tb[type] = attr;
	return MNL_CB_OK;
}

/*
 * Fill @tb[0..@max] with the attributes of a message that follow @offset
 * bytes of payload, each checked against @policy.  Returns 0, or -1 with
 * errno set.
 */
int nl_parse_at(const struct nlmsghdr *nlh, unsigned int offset,
		const struct nl_policy *policy, unsigned int max,
		const struct nlattr **tb)
{
	struct nl_parse_ctx ctx = { policy, max, tb };

	memset(tb, 0, (max + 1) * sizeof(*tb));
	if (mnl_attr_parse(nlh, offset, nl_attr_cb, &ctx) != MNL_CB_OK)
		return -1;
	return 0;
}

/* The same for a generic netlink message. */
int nl_parse(const struct nlmsghdr *nlh, const struct nl_policy *policy,
	     unsigned int max, const struct nlattr **tb)
{
	return nl_parse_at(nlh, GENL_HDRLEN, policy, max, tb);
}

/* The same for the attributes nested in @nest. */
int nl_parse_nested(const struct nlattr *nest, const struct nl_policy *policy,
		    unsigned int max, const struct nlattr **tb)
{
	struct nl_parse_ctx ctx = { policy, max, tb };

	memset(tb, 0, (max + 1) * sizeof(*tb));
	if (mnl_attr_parse_nested(nest, nl_attr_cb, &ctx) != MNL_CB_OK)
		return -1;
	return 0;
}

/* Record a failure; returns MNL_CB_ERROR for the callbacks' convenience. */
static int nl_fail(struct mrc_nl *nl, int err)
{
	nl->err = err;
	errno = err;
	return MNL_CB_ERROR;
}

void mrc_nl_perror(const struct mrc_nl *nl)
{
	if (nl->extack)
		fprintf(stderr, "mrcctl: %s: %s\n", nl->extack,
			strerror(nl->err));
	else
		fprintf(stderr, "mrcctl: %s\n", strerror(nl->err));
}

static int nl_extack_cb(const struct nlattr *attr, void *data)
{
	struct mrc_nl *nl = data;

	if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
	    !mnl_attr_validate(attr, MNL_TYPE_NUL_STRING))
		nl->extack = mnl_attr_get_str(attr);
	return MNL_CB_OK;
}

/* Find the extended ack message, if any, after @offset bytes of payload. */
static void nl_parse_extack(struct mrc_nl *nl, const struct nlmsghdr *nlh,
			    size_t offset)
{
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (mnl_attr_parse(nlh, offset, nl_extack_cb, nl) != MNL_CB_OK)
		nl->extack = NULL;
}

static int nl_error_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	struct nl_reply *reply = data;
	struct mrc_nl *nl = reply->nl;
	size_t offset = sizeof(*err);

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*err))
		return nl_fail(nl, EBADMSG);

	/* Without NETLINK_CAP_ACK, the request follows its header. */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		offset += mnl_nlmsg_get_payload_len(&err->msg);
	nl_parse_extack(nl, nlh, offset);

	if (err->error < 0)
		return nl_fail(nl, -err->error);
	if (nl->extack)
		fprintf(stderr, "mrcctl: warning: %s\n", nl->extack);
	return MNL_CB_STOP;
}

/* The end of a dump, which may carry the error that cut it short. */
static int nl_done_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nl_reply *reply = data;
	int err = 0;

	if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(err))
		memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
	if (err >= 0)
		return MNL_CB_STOP;

	nl_parse_extack(reply->nl, nlh, sizeof(err));
	return nl_fail(reply->nl, -err);
}

static int nl_data_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nl_reply *reply = data;

	return reply->cb ? reply->cb(nlh, reply->data) : MNL_CB_OK;
}

/* Not const: mnl_cb_run2() of libmnl 1.0.4 does not take it so. */
static mnl_cb_t nl_ctl_cb[NLMSG_MIN_TYPE] = {
	[NLMSG_ERROR]	= nl_error_cb,
	[NLMSG_DONE]	= nl_done_cb,
};

/*
 * Send @nlh and pass each reply to @cb until the ack or the end of the dump.
 * Returns 0, or -1 with nl->err and nl->extack set, without reporting it.
 */
int mrc_nl_talk(struct mrc_nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb,
		void *data)
{
	struct nl_reply reply = { nl, cb, data };
	unsigned int seq = nlh->nlmsg_seq;
	ssize_t len;
	int ret;

	nl->err = 0;
	nl->extack = NULL;
	if (mnl_socket_sendto(nl->sock, nlh, nlh->nlmsg_len) < 0)
		return nl_fail(nl, errno);

	do {
		len = mnl_socket_recvfrom(nl->sock, nl->buf, sizeof(nl->buf));
		if (len < 0)
			return nl_fail(nl, errno);
		ret = mnl_cb_run2(nl->buf, len, seq, nl->portid, nl_data_cb,
				  &reply, nl_ctl_cb, NLMSG_MIN_TYPE);
	} while (ret > MNL_CB_STOP);

	if (ret < 0) {
		/* Failures of libmnl or of @cb leave their cause in errno. */
		if (!nl->err)
			nl->err = errno;
		return -1;
	}
	return 0;
}

static struct nlmsghdr *nl_msg(struct mrc_nl *nl, __u16 type, __u8 cmd,
			       __u8 version, __u16 flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nl->buf);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++nl->seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = version;
	return nlh;
}

/*
 * Start a request of the "mrc" family in the socket's buffer, which it
 * occupies until sent.  @flags: NLM_F_ACK for a "do", NLM_F_DUMP for a dump.
 */
struct nlmsghdr *mrc_nl_msg(struct mrc_nl *nl, __u8 cmd, __u16 flags)
{
	return nl_msg(nl, nl->family, cmd, MRC_FAMILY_VERSION, flags);
}

/* Add a string attribute; -1 if it does not fit in the buffer. */
int mrc_nl_put_strz(struct nlmsghdr *nlh, __u16 type, const char *s)
{
	return mnl_attr_put_strz_check(nlh, NL_BUF_SIZE, type, s) ? 0 : -1;
}

/* Send a request made by mrc_nl_msg(); report the failure if it fails. */
int mrc_nl_request(struct mrc_nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb,
		   void *data)
{
	if (mrc_nl_talk(nl, nlh, cb, data) < 0) {
		mrc_nl_perror(nl);
		return -1;
	}
	return 0;
}

/* The id of the multicast group named @name among @groups, or 0. */
static __u32 nl_family_group(const struct nlattr *groups, const char *name)
{
	const struct nlattr *tb[CTRL_ATTR_MCAST_GRP_MAX + 1];
	const struct nlattr *group, *grp_name, *grp_id;

	mnl_attr_for_each_nested(group, groups) {
		if (nl_parse_nested(group, ctrl_group_policy,
				    CTRL_ATTR_MCAST_GRP_MAX, tb) < 0)
			continue;
		grp_name = tb[CTRL_ATTR_MCAST_GRP_NAME];
		grp_id = tb[CTRL_ATTR_MCAST_GRP_ID];
		if (grp_name && grp_id &&
		    !strcmp(mnl_attr_get_str(grp_name), name))
			return mnl_attr_get_u32(grp_id);
	}
	return 0;
}

const char *const nl_group_names[NL_GROUP_COUNT] = {
	[NL_GROUP_MONITOR]	= MRC_MCGRP_MONITOR,
	[NL_GROUP_CONN]		= MRC_MCGRP_CONN,
	[NL_GROUP_PATH]		= MRC_MCGRP_PATH,
};

static int nl_family_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[CTRL_ATTR_MAX + 1];
	struct mrc_nl *nl = data;
	int i;

	if (nl_parse(nlh, ctrl_policy, CTRL_ATTR_MAX, tb) < 0)
		return MNL_CB_ERROR;
	if (!tb[CTRL_ATTR_FAMILY_ID]) {
		errno = EPROTO;
		return MNL_CB_ERROR;
	}

	nl->family = mnl_attr_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	for (i = 0; i < NL_GROUP_COUNT && tb[CTRL_ATTR_MCAST_GROUPS]; i++)
		nl->groups[i] = nl_family_group(tb[CTRL_ATTR_MCAST_GROUPS],
						nl_group_names[i]);
	return MNL_CB_OK;
}

/* Look up the ids of the "mrc" family and of its multicast groups. */
static int nl_resolve_family(struct mrc_nl *nl)
{
	struct nlmsghdr *nlh;

	nlh = nl_msg(nl, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, NLM_F_ACK);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, MRC_FAMILY_NAME);

	if (!mrc_nl_talk(nl, nlh, nl_family_cb, nl))
		return 0;

	if (nl->err != ENOENT) {
		mrc_nl_perror(nl);
		return -1;
	}
	fprintf(stderr,
		"mrcctl: the mrc module is not loaded (family \"%s\" not found)\n",
		MRC_FAMILY_NAME);
	return -1;
}

static int nl_socket_open(struct mrc_nl *nl, int bus)
{
	int one = 1;

	nl->sock = mnl_socket_open(bus);
	if (!nl->sock)
		return -1;
	if (mnl_socket_setsockopt(nl->sock, NETLINK_EXT_ACK, &one,
				  sizeof(one)) < 0 ||
	    mnl_socket_setsockopt(nl->sock, NETLINK_CAP_ACK, &one,
				  sizeof(one)) < 0 ||
	    mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID) < 0)
		return -1;

	nl->portid = mnl_socket_get_portid(nl->sock);
	nl->seq = time(NULL);
	return 0;
}

/* Open a socket of netlink @bus; reports the failure and returns -1. */
static int nl_open(struct mrc_nl *nl, int bus)
{
	nl->err = 0;
	nl->extack = NULL;
	memset(nl->groups, 0, sizeof(nl->groups));
	if (nl_socket_open(nl, bus) < 0) {
		nl->err = errno;
		mrc_nl_perror(nl);
		mrc_nl_close(nl);
		return -1;
	}
	return 0;
}

/*
 * Open a generic netlink socket in the current network namespace and find
 * the "mrc" family.  Reports the failure and returns -1 if that fails.
 */
int mrc_nl_open(struct mrc_nl *nl)
{
	if (nl_open(nl, NETLINK_GENERIC) < 0)
		return -1;
	if (nl_resolve_family(nl) < 0) {
		mrc_nl_close(nl);
		return -1;
	}
	return 0;
}

/*
 * Open a NETLINK_SOCK_DIAG socket in the current network namespace, for
 * the requests of mrc_nl_diag_msg().  Reports the failure and returns -1.
 */
int mrc_nl_open_diag(struct mrc_nl *nl)
{
	return nl_open(nl, NETLINK_SOCK_DIAG);
}

/*
 * Start a sock_diag request of @type (SOCK_DIAG_BY_FAMILY, SOCK_DESTROY)
 * with @hdrlen bytes of header, zeroed, in the socket's buffer.
 */
struct nlmsghdr *mrc_nl_diag_msg(struct mrc_nl *nl, __u16 type, __u16 flags,
				 size_t hdrlen)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nl->buf);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++nl->seq;
	mnl_nlmsg_put_extra_header(nlh, hdrlen);
	return nlh;
}

void mrc_nl_close(struct mrc_nl *nl)
{
	if (nl->sock && mnl_socket_close(nl->sock) < 0)
		fprintf(stderr, "mrcctl: closing the netlink socket: %s\n",
			strerror(errno));
	nl->sock = NULL;
}

/*
 * Join a multicast group of the family.  Returns 0, or -1 with nl->err
 * set: ENOENT when the family has no such group (an older module), EPERM
 * when the group needs CAP_NET_ADMIN.
 */
int mrc_nl_subscribe(struct mrc_nl *nl, enum nl_group group)
{
	nl->extack = NULL;
	if (!nl->groups[group]) {
		nl->err = ENOENT;
		return -1;
	}
	if (mnl_socket_setsockopt(nl->sock, NETLINK_ADD_MEMBERSHIP,
				  &nl->groups[group],
				  sizeof(nl->groups[group])) < 0) {
		nl->err = errno;
		return -1;
	}
	return 0;
}

int mrc_nl_fd(const struct mrc_nl *nl)
{
	return mnl_socket_get_fd(nl->sock);
}

/*
 * Receive one datagram of notifications and pass each message to @cb.
 * Returns 0, or -1 with nl->err set (ENOBUFS: notifications were lost).
 */
int mrc_nl_receive(struct mrc_nl *nl, mnl_cb_t cb, void *data)
{
	ssize_t len;

	nl->err = 0;
	nl->extack = NULL;
	len = mnl_socket_recvfrom(nl->sock, nl->buf, sizeof(nl->buf));
	if (len < 0 || mnl_cb_run(nl->buf, len, 0, 0, cb, data) < 0) {
		nl->err = errno;
		return -1;
	}
	return 0;
}
