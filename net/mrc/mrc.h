/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MRC: Multipath Reliable Connection transport, internal interfaces.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */
#ifndef _NET_MRC_MRC_H
#define _NET_MRC_MRC_H

#include <linux/list.h>
#include <linux/spinlock.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/sock.h>

/**
 * struct mrc_net - MRC state of one network namespace
 * @sockets: every MRC socket of the namespace, for /proc/net/mrc
 * @sockets_lock: protects @sockets
 */
struct mrc_net {
	struct hlist_head	sockets;
	spinlock_t		sockets_lock;	/* process context only */
};

extern unsigned int mrc_net_id;

static inline struct mrc_net *mrc_pernet(const struct net *net)
{
	return net_generic(net, mrc_net_id);
}

/**
 * struct mrc_sock - an AF_MRC socket
 * @sk: the socket; must stay first, the core casts between the two
 * @net_node: entry in &mrc_net.sockets
 */
struct mrc_sock {
	struct sock		sk;
	struct hlist_node	net_node;
};

static inline struct mrc_sock *mrc_sk(const struct sock *sk)
{
	return container_of(sk, struct mrc_sock, sk);
}

/* pernet.c */
int mrc_pernet_init(void);
void mrc_pernet_exit(void);
void mrc_pernet_link_sock(struct mrc_sock *msk);
void mrc_pernet_unlink_sock(struct mrc_sock *msk);

/* socket.c */
int mrc_socket_init(void);
void mrc_socket_exit(void);

/* netlink.c */
int mrc_netlink_init(void);
void mrc_netlink_exit(void);

#endif /* _NET_MRC_MRC_H */
