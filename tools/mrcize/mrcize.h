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
#define MRCIZE_ENV_TCP_PORTS	"MRCIZE_TCP_PORTS"
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

struct mrcize_ports {
	unsigned int nr;
	struct mrcize_port_range range[MRCIZE_MAX_PORTS];
};

/*
 * Which sockets go over MRC: empty lists of ports and addresses mean every
 * port, every address; a port of @tcp_ports always stays on TCP.
 */
struct mrcize_policy {
	struct mrcize_ports ports;
	struct mrcize_ports tcp_ports;
	unsigned int nr_addrs;
	struct mrcize_prefix addrs[MRCIZE_MAX_ADDRS];
};

/* The lists of a policy, as the options and the environment give them. */
struct mrcize_policy_text {
	const char *ports;
	const char *addrs;
	const char *tcp_ports;
};

/*
 * Fill @p from the lists (NULL or "" for none); false, with @bad pointing
 * at the item not understood, for a malformed list.
 */
bool mrcize_policy_parse(struct mrcize_policy *p,
			 const struct mrcize_policy_text *text,
			 const char **bad);

/*
 * Whether @port (host order) is one of the policy's (true without a list)
 * and not one of its TCP ports.
 */
bool mrcize_port_listed(const struct mrcize_policy *p, unsigned int port);

/* Whether @port is one of the ports that stay on TCP. */
bool mrcize_port_tcp(const struct mrcize_policy *p, unsigned int port);

/*
 * Whether @addr (IPv4-mapped for IPv4) is in one of the policy's
 * prefixes; true without a list.
 */
bool mrcize_addr_listed(const struct mrcize_policy *p,
			const struct in6_addr *addr);

#endif /* MRCIZE_H */
