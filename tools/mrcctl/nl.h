/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrcctl: the generic netlink socket to the "mrc" family, and sockets of
 * NETLINK_SOCK_DIAG.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */
#ifndef MRCCTL_NL_H
#define MRCCTL_NL_H

#include <stddef.h>
#include <linux/types.h>
#include <libmnl/libmnl.h>

/* Large enough for any datagram the kernel sends, dumps included. */
#define NL_BUF_SIZE	32768

/* The multicast groups of the family. */
enum nl_group {
	NL_GROUP_MONITOR,	/* planes and settings */
	NL_GROUP_CONN,		/* connections: up, down, planes left, joined */
	NL_GROUP_PATH,		/* EVs retired and restored */
	NL_GROUP_COUNT,
};

extern const char *const nl_group_names[NL_GROUP_COUNT];

/* How an attribute must look to be used: its type and, if not 0, length. */
struct nl_policy {
	enum mnl_attr_data_type type;
	size_t len;
};

struct mrc_nl {
	struct mnl_socket *sock;
	unsigned int portid;
	unsigned int seq;
	__u16 family;		/* id of the "mrc" family */
	__u32 groups[NL_GROUP_COUNT];	/* ids of its groups, 0 for none */
	int err;			/* errno of the last failure */
	const char *extack;		/* the kernel's message, in buf */
	char buf[NL_BUF_SIZE];		/* the request, then the replies */
};

int mrc_nl_open(struct mrc_nl *nl);
int mrc_nl_open_diag(struct mrc_nl *nl);
void mrc_nl_close(struct mrc_nl *nl);
struct nlmsghdr *mrc_nl_msg(struct mrc_nl *nl, __u8 cmd, __u16 flags);
struct nlmsghdr *mrc_nl_diag_msg(struct mrc_nl *nl, __u16 type, __u16 flags,
				 size_t hdrlen);
int mrc_nl_put_strz(struct nlmsghdr *nlh, __u16 type, const char *s);
int mrc_nl_talk(struct mrc_nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb,
		void *data);
int mrc_nl_request(struct mrc_nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb,
		   void *data);
int mrc_nl_subscribe(struct mrc_nl *nl, enum nl_group group);
int mrc_nl_fd(const struct mrc_nl *nl);
int mrc_nl_receive(struct mrc_nl *nl, mnl_cb_t cb, void *data);
void mrc_nl_perror(const struct mrc_nl *nl);

int nl_parse_at(const struct nlmsghdr *nlh, unsigned int offset,
		const struct nl_policy *policy, unsigned int max,
		const struct nlattr **tb);
int nl_parse(const struct nlmsghdr *nlh, const struct nl_policy *policy,
	     unsigned int max, const struct nlattr **tb);
int nl_parse_nested(const struct nlattr *nest, const struct nl_policy *policy,
		    unsigned int max, const struct nlattr **tb);

#endif /* MRCCTL_NL_H */
