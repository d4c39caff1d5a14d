/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrcize: run unmodified programs with their TCP sockets turned into MRC
 * sockets.  What the command (mrcize.c) and the preloaded library
 * (libmrcize.c) share: the environment they talk through and the policy.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */
#ifndef MRCIZE_H
#define MRCIZE_H

#include <stdbool.h>
#include <netinet/in.h>

/* The environment that "mrcize run" sets for the library. */
#define MRCIZE_ENV_PORTS	"MRCIZE_PORTS"
#define MRCIZE_ENV_ADDRS	"MRCIZE_ADDRS"
#define MRCIZE_ENV_DEBUG	"MRCIZE_DEBUG"

#define MRCIZE_MAX_PORTS	64
#define MRCIZE_MAX_ADDRS	32

struct mrcize_port_range {
	unsigned short first;
	unsigned short last;
};

/* An address prefix; IPv4 ones are kept IPv4-mapped. */
struct mrcize_prefix {
	struct in6_addr addr;
	unsigned int len;
};

/* Which sockets go over MRC; empty lists mean every port, every address. */
struct mrcize_policy {
	unsigned int nr_ports;
	unsigned int nr_addrs;
	struct mrcize_port_range ports[MRCIZE_MAX_PORTS];
	struct mrcize_prefix addrs[MRCIZE_MAX_ADDRS];
};

/*
 * Fill @p from the lists (NULL or "" for none); false, with @bad pointing
 * at the item not understood, for a malformed list.
 */
bool mrcize_policy_parse(struct mrcize_policy *p, const char *ports,
			 const char *addrs, const char **bad);

/* Whether @port (host order) is one of the policy's; true without a list. */
bool mrcize_port_listed(const struct mrcize_policy *p, unsigned int port);

/*
 * Whether @addr (IPv4-mapped for IPv4) is in one of the policy's
 * prefixes; true without a list.
 */
bool mrcize_addr_listed(const struct mrcize_policy *p,
			const struct in6_addr *addr);

#endif /* MRCIZE_H */
