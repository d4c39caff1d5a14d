// SPDX-License-Identifier: GPL-2.0
/*
 * A trimming switch, for the MRC selftests: a tc program that cuts the
 * payload off some MRC DATA packets, keeps their 28-byte MRC header and
 * flags it TRIMMED, as a congested switch that trims instead of dropping
 * would.  IPv4 and IPv6, UDP to port MRC_TRIM_PORT (4793 by default).
 *
 * Which packets: one in MRC_TRIM_EVERY (16 by default), chosen from a hash
 * of the PSN, so that the choice is deterministic and not tied to the way
 * a connection sprays consecutive PSNs over its planes.  A resend has a
 * PSN of its own and is trimmed again only by chance.
 *
 * Attach it at ingress of the receiver's device:
 *
 *   tc qdisc add dev DEV clsact
 *   tc filter add dev DEV ingress bpf direct-action obj mrc_trim.bpf.o sec tc
 *
 * There it sees every checksum state: the UDP checksum is computed anew
 * over the shortened datagram, which is right for a receiver that checks
 * it, and ignored by one that trusts CHECKSUM_PARTIAL (veth).  At egress
 * a CHECKSUM_PARTIAL packet holds only the pseudo-header sum in its UDP
 * checksum field, which this program would overwrite.
 *
 * Built with clang -target bpf against the uapi headers alone: the few
 * helpers it calls are declared here from their BPF_FUNC_* numbers.
 */

#include <stddef.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/pkt_cls.h>
#include <linux/udp.h>

#ifndef MRC_TRIM_PORT
#define MRC_TRIM_PORT	4793
#endif
#ifndef MRC_TRIM_EVERY
#define MRC_TRIM_EVERY	16
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define be16(x)		__builtin_bswap16(x)
#define be32(x)		__builtin_bswap32(x)
#else
#define be16(x)		(x)
#define be32(x)		(x)
#endif

/*
 * The kernel's compiler_attributes.h macros, which checkpatch asks for,
 * outside the kernel; spelt __attribute so that it does not ask here too.
 */
#define __section(s)	__attribute((__section__(s)))
#define __used		__attribute((__used__))

#define MRC_HDR_LEN	28	/* struct mrc_hdr */
#define MRC_DATA	0x13	/* version 1, type DATA */
#define MRC_F_TRIMMED	0x08
#define MRC_PSN_OFF	12	/* of the PSN in the MRC header */

static long (*skb_load_bytes)(const struct __sk_buff *skb, __u32 off,
			      void *to, __u32 len) =
	(void *)BPF_FUNC_skb_load_bytes;
static long (*skb_store_bytes)(struct __sk_buff *skb, __u32 off,
			       const void *from, __u32 len, __u64 flags) =
	(void *)BPF_FUNC_skb_store_bytes;
static long (*l3_csum_replace)(struct __sk_buff *skb, __u32 off, __u64 from,
			       __u64 to, __u64 size) =
	(void *)BPF_FUNC_l3_csum_replace;
static long (*skb_change_tail)(struct __sk_buff *skb, __u32 len,
			       __u64 flags) =
	(void *)BPF_FUNC_skb_change_tail;
static __s64 (*csum_diff)(__be32 *from, __u32 from_size, __be32 *to,
			  __u32 to_size, __wsum seed) =
	(void *)BPF_FUNC_csum_diff;

/* The UDP datagram after trimming: its header and the MRC header. */
struct trimmed {
	struct udphdr	udp;
	__u8		mrc[MRC_HDR_LEN];
};

/* Pseudo-headers (RFC 768, RFC 8200), with the trimmed datagram behind. */
struct csum4 {
	__be32		saddr;
	__be32		daddr;
	__u8		zero;
	__u8		proto;
	__be16		len;
	struct trimmed	dgram;
};

struct csum6 {
	struct in6_addr	saddr;
	struct in6_addr	daddr;
	__be32		len;
	__u8		zero[3];
	__u8		proto;
	struct trimmed	dgram;
};

static __u16 fold(__s64 sum)
{
	__u32 s = sum;

	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	s = ~s & 0xffff;
	return s ? s : 0xffff;
}

/*
 * Whether the UDP datagram at @l4 of @len bytes is an MRC DATA packet to
 * trim; its first bytes land in @dgram.
 */
static int to_trim(struct __sk_buff *skb, __u32 l4, __u32 len,
		   struct trimmed *dgram)
{
	__u32 psn;

	if (len <= sizeof(*dgram))
		return 0;
	if (skb_load_bytes(skb, l4, dgram, sizeof(*dgram)))
		return 0;
	if (dgram->udp.dest != be16(MRC_TRIM_PORT) ||
	    be16(dgram->udp.len) != len ||
	    dgram->mrc[0] != MRC_DATA || dgram->mrc[1] & MRC_F_TRIMMED)
		return 0;
	__builtin_memcpy(&psn, &dgram->mrc[MRC_PSN_OFF], sizeof(psn));
	psn = be32(psn) * 2654435761u;
	return (psn >> 16) % MRC_TRIM_EVERY == 0;
}

/*
 * Cut the datagram at @l4 after the MRC header, flag it and give it
 * @dgram's new length; the caller fixes the IP header and the checksum.
 */
static int trim(struct __sk_buff *skb, __u32 l4, struct trimmed *dgram)
{
	__u32 off = l4 + offsetof(struct trimmed, udp.len);

	if (skb_change_tail(skb, l4 + sizeof(*dgram), 0))
		return -1;
	dgram->udp.len = be16(sizeof(*dgram));
	dgram->udp.check = 0;
	dgram->mrc[1] |= MRC_F_TRIMMED;
	return skb_store_bytes(skb, off, &dgram->udp.len, 2, 0) ||
	       skb_store_bytes(skb, l4 + offsetof(struct trimmed, mrc[1]),
			       &dgram->mrc[1], 1, 0) ? -1 : 0;
}

static int trim4(struct __sk_buff *skb)
{
	__u32 l3 = ETH_HLEN, l4 = ETH_HLEN + sizeof(struct iphdr);
	struct csum4 c = {};
	struct iphdr ip;
	__be16 tot_len;
	__u16 check;

	if (skb_load_bytes(skb, l3, &ip, sizeof(ip)))
		return TC_ACT_OK;
	/* Neither options nor fragments. */
	if (ip.ihl != 5 || ip.protocol != IPPROTO_UDP ||
	    ip.frag_off & be16(0x3fff))
		return TC_ACT_OK;
	if (!to_trim(skb, l4, be16(ip.tot_len) - sizeof(ip),
		     &c.dgram))
		return TC_ACT_OK;
	if (trim(skb, l4, &c.dgram))
		return TC_ACT_SHOT;

	tot_len = be16(sizeof(ip) + sizeof(c.dgram));
	if (l3_csum_replace(skb, l3 + offsetof(struct iphdr, check),
			    ip.tot_len, tot_len, sizeof(tot_len)) ||
	    skb_store_bytes(skb, l3 + offsetof(struct iphdr, tot_len),
			    &tot_len, sizeof(tot_len), 0))
		return TC_ACT_SHOT;

	c.saddr = ip.saddr;
	c.daddr = ip.daddr;
	c.proto = IPPROTO_UDP;
	c.len = c.dgram.udp.len;
	check = fold(csum_diff(0, 0, (__be32 *)&c, sizeof(c), 0));
	if (skb_store_bytes(skb, l4 + offsetof(struct udphdr, check), &check,
			    sizeof(check), 0))
		return TC_ACT_SHOT;
	return TC_ACT_OK;
}

static int trim6(struct __sk_buff *skb)
{
	__u32 l3 = ETH_HLEN, l4 = ETH_HLEN + sizeof(struct ipv6hdr);
	struct csum6 c = {};
	struct ipv6hdr ip6;
	__be16 plen;
	__u16 check;

	if (skb_load_bytes(skb, l3, &ip6, sizeof(ip6)))
		return TC_ACT_OK;
	/* UDP right behind the fixed header only. */
	if (ip6.nexthdr != IPPROTO_UDP)
		return TC_ACT_OK;
	if (!to_trim(skb, l4, be16(ip6.payload_len), &c.dgram))
		return TC_ACT_OK;
	if (trim(skb, l4, &c.dgram))
		return TC_ACT_SHOT;

	plen = c.dgram.udp.len;
	if (skb_store_bytes(skb, l3 + offsetof(struct ipv6hdr, payload_len),
			    &plen, sizeof(plen), 0))
		return TC_ACT_SHOT;

	c.saddr = ip6.saddr;
	c.daddr = ip6.daddr;
	c.len = be32(sizeof(c.dgram));
	c.proto = IPPROTO_UDP;
	check = fold(csum_diff(0, 0, (__be32 *)&c, sizeof(c), 0));
	if (skb_store_bytes(skb, l4 + offsetof(struct udphdr, check), &check,
			    sizeof(check), 0))
		return TC_ACT_SHOT;
	return TC_ACT_OK;
}

__section("tc") __used
int mrc_trim(struct __sk_buff *skb)
{
	switch (skb->protocol) {
	case be16(ETH_P_IP):
		return trim4(skb);
	case be16(ETH_P_IPV6):
		return trim6(skb);
	}
	return TC_ACT_OK;
}

__section("license") __used
char _license[] = "GPL";
