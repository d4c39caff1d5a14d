/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MRC: Multipath Reliable Connection transport, internal interfaces.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */
#ifndef _NET_MRC_MRC_H
#define _NET_MRC_MRC_H

#include <linux/hashtable.h>
#include <linux/in6.h>
#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/sock.h>

/**
 * struct mrc_net - MRC state of one network namespace
 * @net: the namespace
 * @sockets: every MRC socket of the namespace, for /proc/net/mrc
 * @sockets_lock: protects @sockets
 * @planes: the namespace's planes, by id
 * @nr_planes: number of entries in @planes
 * @udp_port: UDP port of the encapsulation, host order
 * @default_evs: entropy values per plane unless a plane sets its own
 * @refresh_work: recomputes plane states after address changes
 * @ports: bound sockets, by port
 * @ports_lock: protects @ports
 *
 * @planes, @nr_planes, @udp_port and @default_evs change under RTNL;
 * @planes is also an RCU list for readers on the data path.
 */
struct mrc_net {
	struct net		*net;
	struct hlist_head	sockets;
	spinlock_t		sockets_lock;	/* process context only */
	struct list_head	planes;
	unsigned int		nr_planes;
	u16			udp_port;
	u32			default_evs;
	struct work_struct	refresh_work;
	DECLARE_HASHTABLE(ports, 8);
	spinlock_t		ports_lock;	/* taken with BHs off */
};

/**
 * struct mrc_addr - an IPv4 or IPv6 address, or none
 * @family: AF_UNSPEC, AF_INET or AF_INET6
 * @v4: the address when @family is AF_INET
 * @v6: the address when @family is AF_INET6
 */
struct mrc_addr {
	sa_family_t		family;
	__be32			v4;
	struct in6_addr		v6;
};

/**
 * struct mrc_plane - a network device used as an MRC plane
 * @list: entry in &mrc_net.planes
 * @rcu: frees the plane after readers are done
 * @mn: the plane's namespace
 * @dev: the device, held while the plane exists
 * @dev_tracker: tracks the hold on @dev
 * @sock: UDP tunnel socket bound to @addr4 or @addr6 on @dev
 * @family: AF_INET or AF_INET6
 * @addr4: local IPv4 address when @family is AF_INET
 * @addr6: local IPv6 address when @family is AF_INET6
 * @id: plane id; plane k of one host talks to plane k of its peers
 * @admin_up: whether the administrator lets connections use the plane
 * @state: an &enum mrc_plane_state, derived from the rest
 * @evs: entropy values per connection, 0 for the namespace default
 *
 * Every field but @state is set under RTNL; @state is written under RTNL
 * and read locklessly on the data path.
 */
struct mrc_plane {
	struct list_head	list;
	struct rcu_head		rcu;
	struct mrc_net		*mn;
	struct net_device	*dev;
	netdevice_tracker	dev_tracker;
	struct socket		*sock;
	sa_family_t		family;
	__be32			addr4;
	struct in6_addr		addr6;
	u8			id;
	bool			admin_up;
	u8			state;
	u32			evs;
};

/* Parameters of a plane to add, from netlink. */
struct mrc_plane_cfg {
	struct net_device	*dev;
	int			id;		/* -1: lowest free */
	sa_family_t		family;		/* AF_UNSPEC: pick one */
	__be32			addr4;
	struct in6_addr		addr6;
	bool			admin_up;
	u32			evs;
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
 * @port_node: entry in &mrc_net.ports once bound
 * @port: bound port, host order; 0 until bound
 * @addr: bound address: AF_UNSPEC (any plane), AF_INET or AF_INET6
 *
 * @port and @addr change under the socket lock, and only from unbound to
 * bound.
 */
struct mrc_sock {
	struct sock		sk;
	struct hlist_node	net_node;
	struct hlist_node	port_node;
	u16			port;
	struct mrc_addr		addr;
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

/* plane.c */
int mrc_plane_init(void);
void mrc_plane_exit(void);
void mrc_plane_net_init(struct mrc_net *mn);
void mrc_plane_net_exit(struct mrc_net *mn);
struct mrc_plane *mrc_plane_find(struct mrc_net *mn, int id,
				 const struct net_device *dev);
bool mrc_plane_is_local(struct mrc_net *mn, const struct mrc_addr *addr);
struct mrc_plane *mrc_plane_add(struct mrc_net *mn,
				const struct mrc_plane_cfg *cfg,
				struct netlink_ext_ack *extack);
void mrc_plane_del(struct mrc_plane *plane);
void mrc_plane_update(struct mrc_plane *plane, bool admin_up, u32 evs);
u32 mrc_plane_evs(const struct mrc_plane *plane);

/* socket.c */
int mrc_socket_init(void);
void mrc_socket_exit(void);

/* netlink.c */
int mrc_netlink_init(void);
void mrc_netlink_exit(void);
void mrc_nl_notify_plane(const struct mrc_plane *plane, u8 cmd);

#endif /* _NET_MRC_MRC_H */
