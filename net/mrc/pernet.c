// SPDX-License-Identifier: GPL-2.0
/*
 * MRC: per network namespace state and /proc/net/mrc.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <net/net_namespace.h>

#include "mrc.h"

unsigned int mrc_net_id __read_mostly;

static bool mrc_sock_seq_less(struct rb_node *a, const struct rb_node *b)
{
	return rb_entry(a, struct mrc_sock, net_node)->net_seq <
	       rb_entry(b, struct mrc_sock, net_node)->net_seq;
}

void mrc_pernet_link_sock(struct mrc_sock *msk)
{
	struct mrc_net *mn = mrc_pernet(sock_net(&msk->sk));

	spin_lock_bh(&mn->sockets_lock);
	msk->net_seq = mn->sockets_seq++;
	rb_add(&msk->net_node, &mn->sockets, mrc_sock_seq_less);
	spin_unlock_bh(&mn->sockets_lock);
}

void mrc_pernet_unlink_sock(struct mrc_sock *msk)
{
	struct mrc_net *mn = mrc_pernet(sock_net(&msk->sk));

	spin_lock_bh(&mn->sockets_lock);
	rb_erase(&msk->net_node, &mn->sockets);
	RB_CLEAR_NODE(&msk->net_node);
	spin_unlock_bh(&mn->sockets_lock);
}

/* The first socket listed at @seq or later; under sockets_lock. */
struct mrc_sock *mrc_pernet_sock_from(struct mrc_net *mn, u64 seq)
{
	struct rb_node *node = mn->sockets.rb_node;
	struct mrc_sock *msk, *found = NULL;

	lockdep_assert_held(&mn->sockets_lock);
	while (node) {
		msk = rb_entry(node, struct mrc_sock, net_node);
		if (msk->net_seq >= seq) {
			found = msk;
			node = node->rb_left;
		} else {
			node = node->rb_right;
		}
	}
	return found;
}

/* The socket listed after @msk, or NULL; under sockets_lock. */
struct mrc_sock *mrc_pernet_sock_next(struct mrc_sock *msk)
{
	struct rb_node *node = rb_next(&msk->net_node);

	return node ? rb_entry(node, struct mrc_sock, net_node) : NULL;
}

/*
 * Where a read of /proc/net/mrc stopped: seq_file starts each read again
 * at a position, which is found without a walk from the first socket when
 * it is where the last read left off.
 */
struct mrc_seq_state {
	struct seq_net_private	p;	/* first, for seq_file_net() */
	loff_t			pos;	/* of the socket at @seq; 0: none */
	u64			seq;
};

static void *mrc_seq_at(struct mrc_seq_state *st, struct mrc_sock *msk,
			loff_t pos)
{
	if (msk) {
		st->pos = pos;
		st->seq = msk->net_seq;
	}
	return msk;
}

static void *mrc_seq_start(struct seq_file *seq, loff_t *pos)
	__acquires(&mn->sockets_lock)
{
	struct mrc_net *mn = mrc_pernet(seq_file_net(seq));
	struct mrc_seq_state *st = seq->private;
	struct mrc_sock *msk;
	loff_t n;

	spin_lock_bh(&mn->sockets_lock);
	if (!*pos)
		return SEQ_START_TOKEN;
	/* Gone since, it is followed by the next one. */
	if (*pos == st->pos)
		return mrc_seq_at(st, mrc_pernet_sock_from(mn, st->seq), *pos);
	msk = mrc_pernet_sock_from(mn, 0);
	for (n = 1; msk && n < *pos; n++)
		msk = mrc_pernet_sock_next(msk);
	return mrc_seq_at(st, msk, *pos);
}

static void *mrc_seq_next(struct seq_file *seq, void *v, loff_t *pos)
{
	struct mrc_net *mn = mrc_pernet(seq_file_net(seq));
	struct mrc_seq_state *st = seq->private;
	struct mrc_sock *msk;

	++*pos;
	if (v == SEQ_START_TOKEN)
		msk = mrc_pernet_sock_from(mn, 0);
	else
		msk = mrc_pernet_sock_next(v);
	if (!msk) {
		/* The end, where a read again finds who came since. */
		st->pos = *pos;
		st->seq = v == SEQ_START_TOKEN ? 0 :
			  ((struct mrc_sock *)v)->net_seq + 1;
		return NULL;
	}
	return mrc_seq_at(st, msk, *pos);
}

static void mrc_seq_stop(struct seq_file *seq, void *v)
	__releases(&mn->sockets_lock)
{
	struct mrc_net *mn = mrc_pernet(seq_file_net(seq));

	spin_unlock_bh(&mn->sockets_lock);
}

static const char *mrc_sock_type_name(const struct sock *sk)
{
	return sk->sk_type == SOCK_STREAM ? "STREAM" : "SEQPACKET";
}

static int mrc_seq_show(struct seq_file *seq, void *v)
{
	struct mrc_sock *msk;

	if (v == SEQ_START_TOKEN) {
		seq_puts(seq, "inode      type      uid   port\n");
		return 0;
	}

	msk = v;
	seq_printf(seq, "%-10lu %-9s %-5u %u\n", sock_i_ino(&msk->sk),
		   mrc_sock_type_name(&msk->sk),
		   from_kuid_munged(seq_user_ns(seq), sock_i_uid(&msk->sk)),
		   READ_ONCE(msk->port));
	return 0;
}

static const struct seq_operations mrc_seq_ops = {
	.start	= mrc_seq_start,
	.next	= mrc_seq_next,
	.stop	= mrc_seq_stop,
	.show	= mrc_seq_show,
};

static int __net_init mrc_net_init(struct net *net)
{
	struct mrc_net *mn = mrc_pernet(net);
	int i, err;

	mn->net = net;
	mn->sockets = RB_ROOT;
	spin_lock_init(&mn->sockets_lock);
	hash_init(mn->ports);
	spin_lock_init(&mn->ports_lock);
	hash_init(mn->conns);
	hash_init(mn->conns_by_peer);
	spin_lock_init(&mn->conns_lock);
	mrc_sysctl_net_defaults(mn);
	/* Quietly: the peer decides how often these limits are hit. */
	ratelimit_state_init(&mn->rst_limit, HZ, mn->sysctl.rst_rate);
	ratelimit_set_flags(&mn->rst_limit, RATELIMIT_MSG_ON_RELEASE);
	for (i = 0; i < MRC_RST_SOURCES; i++) {
		ratelimit_state_init(&mn->rst_src_limit[i], HZ,
				     mn->sysctl.rst_rate_source);
		ratelimit_set_flags(&mn->rst_src_limit[i],
				    RATELIMIT_MSG_ON_RELEASE);
	}
	err = mrc_mib_net_init(mn);
	if (err)
		return err;
	err = mrc_sysctl_net_init(mn);
	if (err)
		goto err_mib;
	if (!proc_create_net("mrc", 0444, net->proc_net, &mrc_seq_ops,
			     sizeof(struct mrc_seq_state))) {
		err = -ENOMEM;
		goto err_sysctl;
	}
	mrc_plane_net_init(mn);
	return 0;

err_sysctl:
	mrc_sysctl_net_exit(mn);
err_mib:
	mrc_mib_net_exit(mn);
	return err;
}

static void __net_exit mrc_net_exit(struct net *net)
{
	struct mrc_net *mn = mrc_pernet(net);

	mrc_plane_net_exit(mn);
	remove_proc_entry("mrc", net->proc_net);
	/* Sockets hold a reference on their namespace. */
	WARN_ON_ONCE(!RB_EMPTY_ROOT(&mn->sockets));
	mrc_sysctl_net_exit(mn);
	mrc_mib_net_exit(mn);
}

static struct pernet_operations mrc_net_ops = {
	.init	= mrc_net_init,
	.exit	= mrc_net_exit,
	.id	= &mrc_net_id,
	.size	= sizeof(struct mrc_net),
};

int mrc_pernet_init(void)
{
	return register_pernet_subsys(&mrc_net_ops);
}

void mrc_pernet_exit(void)
{
	unregister_pernet_subsys(&mrc_net_ops);
}
