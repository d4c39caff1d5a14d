// SPDX-License-Identifier: GPL-2.0
/*
 * MRC: the AF_MRC socket layer.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/net.h>
#include <linux/random.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <linux/mrc.h>

#include "mrc.h"

static struct proto mrc_proto = {
	.name		= "MRC",
	.owner		= THIS_MODULE,
	.obj_size	= sizeof(struct mrc_sock),
};

/* Ephemeral ports, as the IPv4 default of ip_local_port_range. */
#define MRC_EPHEMERAL_MIN	32768
#define MRC_EPHEMERAL_MAX	60999

static bool mrc_port_in_use(struct mrc_net *mn, u16 port)
{
	struct mrc_sock *msk;

	lockdep_assert_held(&mn->ports_lock);
	hash_for_each_possible(mn->ports, msk, port_node, port)
		if (msk->port == port)
			return true;
	return false;
}

/*
 * Ports are per namespace, not per address: a connection spans every
 * plane, so the port alone names a socket on a host.
 */
static int mrc_port_bind(struct mrc_sock *msk, u16 port)
{
	struct mrc_net *mn = mrc_pernet(sock_net(&msk->sk));
	u32 range = MRC_EPHEMERAL_MAX - MRC_EPHEMERAL_MIN + 1;
	u32 i, offset;
	int err = 0;

	spin_lock_bh(&mn->ports_lock);
	if (port) {
		if (mrc_port_in_use(mn, port))
			err = -EADDRINUSE;
	} else {
		offset = get_random_u32_below(range);
		for (i = 0; i < range; i++) {
			port = MRC_EPHEMERAL_MIN + (offset + i) % range;
			if (!mrc_port_in_use(mn, port))
				break;
		}
		if (i == range)
			err = -EADDRINUSE;
	}
	if (!err) {
		WRITE_ONCE(msk->port, port);
		hash_add(mn->ports, &msk->port_node, port);
	}
	spin_unlock_bh(&mn->ports_lock);
	return err;
}

static void mrc_port_unbind(struct mrc_sock *msk)
{
	struct mrc_net *mn = mrc_pernet(sock_net(&msk->sk));

	if (!msk->port)
		return;
	spin_lock_bh(&mn->ports_lock);
	hash_del(&msk->port_node);
	spin_unlock_bh(&mn->ports_lock);
}

/* Check a user's address and take the plane address out of it. */
static int mrc_addr_from_user(const struct sockaddr *uaddr, int addr_len,
			      struct mrc_addr *addr, u16 *port)
{
	const struct sockaddr_mrc *smrc = (const struct sockaddr_mrc *)uaddr;

	if (addr_len < (int)sizeof(*smrc))
		return -EINVAL;
	if (smrc->smrc_family != AF_MRC)
		return -EAFNOSUPPORT;
	if (smrc->__smrc_pad)
		return -EINVAL;

	memset(addr, 0, sizeof(*addr));
	addr->family = smrc->smrc_addr_family;
	switch (addr->family) {
	case AF_UNSPEC:
		break;
	case AF_INET:
		addr->v4 = smrc->smrc_addr4;
		break;
	case AF_INET6:
		memcpy(&addr->v6, smrc->smrc_addr6, sizeof(addr->v6));
		break;
	default:
		return -EAFNOSUPPORT;
	}
	*port = ntohs(smrc->smrc_port);
	return 0;
}

static int mrc_bind(struct socket *sock, struct sockaddr *uaddr, int addr_len)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *msk = mrc_sk(sk);
	struct net *net = sock_net(sk);
	struct mrc_addr addr;
	u16 port;
	int err;

	err = mrc_addr_from_user(uaddr, addr_len, &addr, &port);
	if (err)
		return err;
	if (port && port < PROT_SOCK &&
	    !ns_capable(net->user_ns, CAP_NET_BIND_SERVICE))
		return -EACCES;

	lock_sock(sk);
	if (msk->port) {
		err = -EINVAL;
		goto out;
	}
	if (addr.family != AF_UNSPEC &&
	    !mrc_plane_is_local(mrc_pernet(net), &addr)) {
		err = -EADDRNOTAVAIL;
		goto out;
	}
	err = mrc_port_bind(msk, port);
	if (!err)
		msk->addr = addr;
out:
	release_sock(sk);
	return err;
}

static int mrc_getname(struct socket *sock, struct sockaddr *uaddr, int peer)
{
	struct sockaddr_mrc *smrc = (struct sockaddr_mrc *)uaddr;
	struct sock *sk = sock->sk;
	struct mrc_sock *msk = mrc_sk(sk);

	/* No connection has a peer yet. */
	if (peer)
		return -ENOTCONN;

	memset(smrc, 0, sizeof(*smrc));
	smrc->smrc_family = AF_MRC;
	lock_sock(sk);
	smrc->smrc_port = htons(msk->port);
	smrc->smrc_addr_family = msk->addr.family;
	if (msk->addr.family == AF_INET)
		smrc->smrc_addr4 = msk->addr.v4;
	else if (msk->addr.family == AF_INET6)
		memcpy(smrc->smrc_addr6, &msk->addr.v6, sizeof(msk->addr.v6));
	release_sock(sk);
	return sizeof(*smrc);
}

static int mrc_release(struct socket *sock)
{
	struct sock *sk = sock->sk;

	if (!sk)
		return 0;

	mrc_pernet_unlink_sock(mrc_sk(sk));
	mrc_port_unbind(mrc_sk(sk));

	lock_sock(sk);
	sock_orphan(sk);
	sk->sk_shutdown = SHUTDOWN_MASK;
	release_sock(sk);

	sock_prot_inuse_add(sock_net(sk), sk->sk_prot, -1);
	sock->sk = NULL;
	sock_put(sk);
	return 0;
}

static int mrc_ioctl(struct socket *sock, unsigned int cmd, unsigned long arg)
{
	return -ENOIOCTLCMD;
}

/*
 * Both socket types share one core; they differ in whether message
 * boundaries are kept.  Calls that the transport does not offer yet fail
 * with EOPNOTSUPP, as for any family that lacks them.
 */
#define MRC_PROTO_OPS_COMMON			\
	.family		= PF_MRC,		\
	.owner		= THIS_MODULE,		\
	.release	= mrc_release,		\
	.bind		= mrc_bind,		\
	.connect	= sock_no_connect,	\
	.socketpair	= sock_no_socketpair,	\
	.accept		= sock_no_accept,	\
	.getname	= mrc_getname,		\
	.ioctl		= mrc_ioctl,		\
	.listen		= sock_no_listen,	\
	.shutdown	= sock_no_shutdown,	\
	.sendmsg	= sock_no_sendmsg,	\
	.recvmsg	= sock_no_recvmsg,	\
	.mmap		= sock_no_mmap

static const struct proto_ops mrc_stream_ops = {
	MRC_PROTO_OPS_COMMON,
};

static const struct proto_ops mrc_seqpacket_ops = {
	MRC_PROTO_OPS_COMMON,
};

static int mrc_create(struct net *net, struct socket *sock, int protocol,
		      int kern)
{
	struct sock *sk;

	switch (sock->type) {
	case SOCK_STREAM:
		sock->ops = &mrc_stream_ops;
		break;
	case SOCK_SEQPACKET:
		sock->ops = &mrc_seqpacket_ops;
		break;
	default:
		return -ESOCKTNOSUPPORT;
	}

	if (protocol != MRCPROTO_MRC)
		return -EPROTONOSUPPORT;

	sk = sk_alloc(net, PF_MRC, GFP_KERNEL, &mrc_proto, kern);
	if (!sk)
		return -ENOMEM;

	sock_init_data(sock, sk);
	sk->sk_protocol = protocol;
	sock->state = SS_UNCONNECTED;

	sock_prot_inuse_add(net, &mrc_proto, 1);
	mrc_pernet_link_sock(mrc_sk(sk));
	return 0;
}

static const struct net_proto_family mrc_family_ops = {
	.family	= PF_MRC,
	.create	= mrc_create,
	.owner	= THIS_MODULE,
};

int mrc_socket_init(void)
{
	int err;

	err = proto_register(&mrc_proto, 1);
	if (err)
		return err;

	err = sock_register(&mrc_family_ops);
	if (err) {
		pr_err("address family %d is taken by another module\n",
		       PF_MRC);
		proto_unregister(&mrc_proto);
		/* Not EEXIST: modprobe would take that for "loaded already". */
		return -EBUSY;
	}
	return 0;
}

void mrc_socket_exit(void)
{
	sock_unregister(PF_MRC);
	proto_unregister(&mrc_proto);
}
