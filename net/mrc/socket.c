// SPDX-License-Identifier: GPL-2.0
/*
 * MRC: the AF_MRC socket layer.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/net.h>
#include <net/sock.h>
#include <linux/mrc.h>

#include "mrc.h"

static struct proto mrc_proto = {
	.name		= "MRC",
	.owner		= THIS_MODULE,
	.obj_size	= sizeof(struct mrc_sock),
};

static int mrc_release(struct socket *sock)
{
	struct sock *sk = sock->sk;

	if (!sk)
		return 0;

	mrc_pernet_unlink_sock(mrc_sk(sk));

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
	.bind		= sock_no_bind,		\
	.connect	= sock_no_connect,	\
	.socketpair	= sock_no_socketpair,	\
	.accept		= sock_no_accept,	\
	.getname	= sock_no_getname,	\
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
	}
	return err;
}

void mrc_socket_exit(void)
{
	sock_unregister(PF_MRC);
	proto_unregister(&mrc_proto);
}
