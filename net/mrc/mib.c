// SPDX-License-Identifier: GPL-2.0
/*
 * MRC: the namespace's counters and each plane's, by name, for
 * /proc/net/mrc_snmp and netlink.  The file has the layout of
 * /proc/net/netstat: a line of names, then a line of values, each
 * prefixed "MrcExt:".
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#include <linux/percpu.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <net/genetlink.h>
#include <net/ip.h>

#include "mrc.h"

static const struct snmp_mib mrc_mib_names[] = {
	SNMP_MIB_ITEM("InPkts", MRC_MIB_IN_PKTS),
	SNMP_MIB_ITEM("InPlaneDown", MRC_MIB_IN_PLANE_DOWN),
	SNMP_MIB_ITEM("InNoCsum", MRC_MIB_IN_NO_CSUM),
	SNMP_MIB_ITEM("InMalformed", MRC_MIB_IN_MALFORMED),
	SNMP_MIB_ITEM("InNoConn", MRC_MIB_IN_NO_CONN),
	SNMP_MIB_ITEM("InNotPeer", MRC_MIB_IN_NOT_PEER),
	SNMP_MIB_ITEM("InHalfOpen", MRC_MIB_IN_HALF_OPEN),
	SNMP_MIB_ITEM("InDuplicates", MRC_MIB_IN_DUPLICATES),
	SNMP_MIB_ITEM("InOutOfWindow", MRC_MIB_IN_OUT_OF_WINDOW),
	SNMP_MIB_ITEM("InFiltered", MRC_MIB_IN_FILTERED),
	SNMP_MIB_ITEM("InMemDrops", MRC_MIB_IN_MEM_DROPS),
	SNMP_MIB_ITEM("InClosedDrops", MRC_MIB_IN_CLOSED_DROPS),
	SNMP_MIB_ITEM("InTrimmed", MRC_MIB_IN_TRIMMED),
	SNMP_MIB_ITEM("InCE", MRC_MIB_IN_CE),
	SNMP_MIB_ITEM("ActiveOpens", MRC_MIB_ACTIVE_OPENS),
	SNMP_MIB_ITEM("PassiveOpens", MRC_MIB_PASSIVE_OPENS),
	SNMP_MIB_ITEM("SynDropped", MRC_MIB_SYN_DROPPED),
	SNMP_MIB_ITEM("SynRetrans", MRC_MIB_SYN_RETRANS),
	SNMP_MIB_ITEM("Established", MRC_MIB_ESTABLISHED),
	SNMP_MIB_ITEM("ConnectTimeouts", MRC_MIB_CONNECT_TIMEOUTS),
	SNMP_MIB_ITEM("ConnectRefused", MRC_MIB_CONNECT_REFUSED),
	SNMP_MIB_ITEM("HalfOpenTimeouts", MRC_MIB_HALF_OPEN_TIMEOUTS),
	SNMP_MIB_ITEM("PeerTimeouts", MRC_MIB_PEER_TIMEOUTS),
	SNMP_MIB_ITEM("OrphansReset", MRC_MIB_ORPHANS_RESET),
	SNMP_MIB_ITEM("RstSent", MRC_MIB_RST_SENT),
	SNMP_MIB_ITEM("RstRcvd", MRC_MIB_RST_RCVD),
	SNMP_MIB_ITEM("RstIgnored", MRC_MIB_RST_IGNORED),
	SNMP_MIB_ITEM("RstStraySent", MRC_MIB_RST_STRAY_SENT),
	SNMP_MIB_ITEM("RstStrayLimited", MRC_MIB_RST_STRAY_LIMITED),
	SNMP_MIB_ITEM("DataSent", MRC_MIB_DATA_SENT),
	SNMP_MIB_ITEM("Retrans", MRC_MIB_RETRANS),
	SNMP_MIB_ITEM("LossGap", MRC_MIB_LOSS_GAP),
	SNMP_MIB_ITEM("LossOtherEv", MRC_MIB_LOSS_OTHER_EV),
	SNMP_MIB_ITEM("LossTimeout", MRC_MIB_LOSS_TIMEOUT),
	SNMP_MIB_ITEM("LossTrim", MRC_MIB_LOSS_TRIM),
	SNMP_MIB_ITEM("LossPlaneDown", MRC_MIB_LOSS_PLANE_DOWN),
	SNMP_MIB_ITEM("LossElsewhere", MRC_MIB_LOSS_ELSEWHERE),
	SNMP_MIB_ITEM("LossSilence", MRC_MIB_LOSS_SILENCE),
	SNMP_MIB_ITEM("LossNoRoom", MRC_MIB_LOSS_NO_ROOM),
	SNMP_MIB_ITEM("SpuriousSilences", MRC_MIB_SPURIOUS_SILENCES),
	SNMP_MIB_ITEM("SpuriousResends", MRC_MIB_SPURIOUS_RESENDS),
	SNMP_MIB_ITEM("PlaneSilent", MRC_MIB_PLANE_SILENT),
	SNMP_MIB_ITEM("PlaneDoubts", MRC_MIB_PLANE_DOUBTS),
	SNMP_MIB_ITEM("Timeouts", MRC_MIB_TIMEOUTS),
	SNMP_MIB_ITEM("AcksSent", MRC_MIB_ACKS_SENT),
	SNMP_MIB_ITEM("NacksSent", MRC_MIB_NACKS_SENT),
	SNMP_MIB_ITEM("NacksRcvd", MRC_MIB_NACKS_RCVD),
	SNMP_MIB_ITEM("EceRcvd", MRC_MIB_ECE_RCVD),
	SNMP_MIB_ITEM("ProbesSent", MRC_MIB_PROBES_SENT),
	SNMP_MIB_ITEM("WndProbes", MRC_MIB_WND_PROBES),
	SNMP_MIB_ITEM("KeepaliveProbes", MRC_MIB_KEEPALIVE_PROBES),
	SNMP_MIB_ITEM("KeepaliveTimeouts", MRC_MIB_KEEPALIVE_TIMEOUTS),
	SNMP_MIB_ITEM("EvRetired", MRC_MIB_EV_RETIRED),
	SNMP_MIB_ITEM("EvRestored", MRC_MIB_EV_RESTORED),
	SNMP_MIB_ITEM("PlaneLeft", MRC_MIB_PLANE_LEFT),
	SNMP_MIB_ITEM("PlaneJoined", MRC_MIB_PLANE_JOINED),
	SNMP_MIB_ITEM("ValidationRefused", MRC_MIB_VALIDATION_REFUSED),
	SNMP_MIB_ITEM("OutNoRoute", MRC_MIB_OUT_NO_ROUTE),
	SNMP_MIB_ITEM("OutNoMem", MRC_MIB_OUT_NO_MEM),
	SNMP_MIB_ITEM("MemoryPressures", MRC_MIB_MEMORY_PRESSURES),
};

static_assert(ARRAY_SIZE(mrc_mib_names) == __MRC_MIB_MAX);

static const struct snmp_mib mrc_plane_mib_names[] = {
	SNMP_MIB_ITEM("OutPkts", MRC_PLANE_MIB_OUT_PKTS),
	SNMP_MIB_ITEM("OutBytes", MRC_PLANE_MIB_OUT_BYTES),
	SNMP_MIB_ITEM("InPkts", MRC_PLANE_MIB_IN_PKTS),
	SNMP_MIB_ITEM("InBytes", MRC_PLANE_MIB_IN_BYTES),
	SNMP_MIB_ITEM("InDrops", MRC_PLANE_MIB_IN_DROPS),
};

static_assert(ARRAY_SIZE(mrc_plane_mib_names) == __MRC_PLANE_MIB_MAX);

/* The sum over CPUs; a reader may see one CPU's count a little late. */
static u64 mrc_mib_sum(const void __percpu *mib, unsigned int field)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(((const unsigned long *)
				  per_cpu_ptr(mib, cpu))[field]);
	return sum;
}

u64 mrc_mib_read(const struct mrc_net *mn, enum mrc_mib_field field)
{
	return mrc_mib_sum(mn->mib, field);
}

/* What config-get calls rx-dropped: packets no connection took. */
u64 mrc_mib_rx_dropped(const struct mrc_net *mn)
{
	static const u8 fields[] = {
		MRC_MIB_IN_PLANE_DOWN, MRC_MIB_IN_NO_CSUM, MRC_MIB_IN_MALFORMED,
		MRC_MIB_IN_NO_CONN, MRC_MIB_IN_NOT_PEER, MRC_MIB_IN_HALF_OPEN,
	};
	unsigned int i;
	u64 sum = 0;

	for (i = 0; i < ARRAY_SIZE(fields); i++)
		sum += mrc_mib_read(mn, fields[i]);
	return sum;
}

static int mrc_mib_put(struct sk_buff *skb, int attr, const char *name,
		       u64 value)
{
	struct nlattr *nest = nla_nest_start(skb, attr);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_string(skb, MRC_COUNTER_ATTR_NAME, name) ||
	    nla_put_u64_64bit(skb, MRC_COUNTER_ATTR_VALUE, value,
			      MRC_COUNTER_ATTR_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int mrc_mib_put_all(struct sk_buff *skb, int attr,
			   const void __percpu *mib,
			   const struct snmp_mib *names, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (mrc_mib_put(skb, attr, names[i].name,
				mrc_mib_sum(mib, names[i].entry)))
			return -EMSGSIZE;
	return 0;
}

/* Every counter of @mn as MRC_STATS_ATTR_COUNTER nests. */
int mrc_mib_fill(struct sk_buff *skb, const struct mrc_net *mn)
{
	return mrc_mib_put_all(skb, MRC_STATS_ATTR_COUNTER, mn->mib,
			       mrc_mib_names, ARRAY_SIZE(mrc_mib_names));
}

/* Every counter of @plane as MRC_PLANE_ATTR_COUNTER nests. */
int mrc_plane_mib_fill(struct sk_buff *skb, const struct mrc_plane *plane)
{
	return mrc_mib_put_all(skb, MRC_PLANE_ATTR_COUNTER, plane->mib,
			       mrc_plane_mib_names,
			       ARRAY_SIZE(mrc_plane_mib_names));
}

static int mrc_mib_seq_show(struct seq_file *seq, void *v)
{
	/* A single_open_net() file: the namespace is the private data. */
	const struct mrc_net *mn = mrc_pernet(seq->private);
	unsigned int i;

	seq_puts(seq, "MrcExt:");
	for (i = 0; i < ARRAY_SIZE(mrc_mib_names); i++)
		seq_printf(seq, " %s", mrc_mib_names[i].name);
	seq_puts(seq, "\nMrcExt:");
	for (i = 0; i < ARRAY_SIZE(mrc_mib_names); i++)
		seq_printf(seq, " %llu",
			   mrc_mib_read(mn, mrc_mib_names[i].entry));
	seq_putc(seq, '\n');
	return 0;
}

int mrc_mib_net_init(struct mrc_net *mn)
{
	mn->mib = alloc_percpu(struct mrc_mib);
	if (!mn->mib)
		return -ENOMEM;
	if (!proc_create_net_single("mrc_snmp", 0444, mn->net->proc_net,
				    mrc_mib_seq_show, NULL)) {
		free_percpu(mn->mib);
		mn->mib = NULL;
		return -ENOMEM;
	}
	return 0;
}

void mrc_mib_net_exit(struct mrc_net *mn)
{
	remove_proc_entry("mrc_snmp", mn->net->proc_net);
	free_percpu(mn->mib);
}
