// SPDX-License-Identifier: GPL-2.0
/*
 * AF_MRC socket creation: the types and protocols the family accepts, the
 * errors for the rest, and the socket's entry in /proc/net/mrc and
 * /proc/net/protocols.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <arpa/inet.h>

#include <linux/mrc.h>

#include "kselftest_harness.h"

/* Sockets of the MRC protocol in this namespace, from /proc/net/protocols. */
static int mrc_proto_sockets(void)
{
	char line[512], name[64];
	int sockets = -1, size;
	FILE *f;

	f = fopen("/proc/net/protocols", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %d %d", name, &size, &sockets) == 3 &&
		    !strcmp(name, "MRC"))
			break;
		sockets = -1;
	}
	fclose(f);
	return sockets;
}

/* Whether /proc/net/mrc lists a socket with this inode and type. */
static int mrc_proc_lists(ino_t ino, const char *type)
{
	char line[512], t[32];
	unsigned long i;
	int found = 0;
	FILE *f;

	f = fopen("/proc/net/mrc", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lu %31s", &i, t) == 2 && i == ino &&
		    !strcmp(t, type))
			found = 1;
	fclose(f);
	return found;
}

FIXTURE(mrc_socket) {
	int fd;
};

FIXTURE_VARIANT(mrc_socket) {
	int type;
	const char *name;
};

FIXTURE_VARIANT_ADD(mrc_socket, stream) {
	.type = SOCK_STREAM,
	.name = "STREAM",
};

FIXTURE_VARIANT_ADD(mrc_socket, seqpacket) {
	.type = SOCK_SEQPACKET,
	.name = "SEQPACKET",
};

FIXTURE_SETUP(mrc_socket)
{
	self->fd = socket(AF_MRC, variant->type, 0);
	ASSERT_LE(0, self->fd) TH_LOG("socket: %s", strerror(errno));
}

FIXTURE_TEARDOWN(mrc_socket)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(mrc_socket, options)
{
	socklen_t len = sizeof(int);
	int val;

	ASSERT_EQ(0, getsockopt(self->fd, SOL_SOCKET, SO_DOMAIN, &val, &len));
	EXPECT_EQ(AF_MRC, val);
	ASSERT_EQ(0, getsockopt(self->fd, SOL_SOCKET, SO_TYPE, &val, &len));
	EXPECT_EQ(variant->type, val);
	ASSERT_EQ(0, getsockopt(self->fd, SOL_SOCKET, SO_PROTOCOL, &val, &len));
	EXPECT_EQ(MRCPROTO_MRC, val);
	ASSERT_EQ(0, getsockopt(self->fd, SOL_SOCKET, SO_ERROR, &val, &len));
	EXPECT_EQ(0, val);
}

TEST_F(mrc_socket, proc_entry)
{
	struct stat st;
	int before;

	ASSERT_EQ(0, fstat(self->fd, &st));
	EXPECT_EQ(1, mrc_proc_lists(st.st_ino, variant->name));

	before = mrc_proto_sockets();
	ASSERT_LE(1, before);

	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(0, mrc_proc_lists(st.st_ino, variant->name));
	EXPECT_EQ(before - 1, mrc_proto_sockets());
}

TEST_F(mrc_socket, unknown_level_option)
{
	int val = 1;

	/* No MRC-level options yet: the core says so for us. */
	EXPECT_EQ(-1, setsockopt(self->fd, 283, 1, &val, sizeof(val)));
	EXPECT_EQ(EOPNOTSUPP, errno);
}

TEST(explicit_protocol)
{
	int fd = socket(AF_MRC, SOCK_SEQPACKET, MRCPROTO_MRC);

	ASSERT_LE(0, fd);
	close(fd);
}

TEST(unsupported_types)
{
	static const int types[] = { SOCK_DGRAM, SOCK_RAW, SOCK_RDM, SOCK_DCCP,
				     SOCK_PACKET };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		errno = 0;
		EXPECT_EQ(-1, socket(AF_MRC, types[i], 0));
		EXPECT_EQ(ESOCKTNOSUPPORT, errno) TH_LOG("type %d", types[i]);
	}
}

TEST(unsupported_protocols)
{
	static const int protocols[] = { 6, 17, 132, 262, -1 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(protocols); i++) {
		errno = 0;
		EXPECT_EQ(-1, socket(AF_MRC, SOCK_STREAM, protocols[i]));
		EXPECT_EQ(EPROTONOSUPPORT, errno)
			TH_LOG("protocol %d", protocols[i]);
	}
}

TEST(flags_honoured)
{
	int fd = socket(AF_MRC, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	ASSERT_LE(0, fd);
	EXPECT_NE(0, fcntl(fd, F_GETFL) & O_NONBLOCK);
	EXPECT_NE(0, fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
}

TEST(many_sockets)
{
	int fds[256], before, i;

	before = mrc_proto_sockets();
	ASSERT_LE(0, before);
	for (i = 0; i < 256; i++) {
		fds[i] = socket(AF_MRC, i % 2 ? SOCK_STREAM : SOCK_SEQPACKET, 0);
		ASSERT_LE(0, fds[i]);
	}
	EXPECT_EQ(before + 256, mrc_proto_sockets());
	for (i = 0; i < 256; i++)
		close(fds[i]);
	EXPECT_EQ(before, mrc_proto_sockets());
}

static struct sockaddr_mrc mrc_any(unsigned short port)
{
	struct sockaddr_mrc addr = {
		.smrc_family = AF_MRC,
		.smrc_port = htons(port),
	};

	return addr;
}

static unsigned short bound_port(int fd)
{
	struct sockaddr_mrc addr;
	socklen_t len = sizeof(addr);

	memset(&addr, 0xff, sizeof(addr));
	if (getsockname(fd, (struct sockaddr *)&addr, &len) ||
	    len != sizeof(addr) || addr.smrc_family != AF_MRC)
		return 0;
	return ntohs(addr.smrc_port);
}

TEST_F(mrc_socket, bind_ephemeral)
{
	struct sockaddr_mrc addr = mrc_any(0);
	unsigned short port;
	struct stat st;
	char want[64];
	char line[256];
	int found = 0;
	FILE *f;

	EXPECT_EQ(0, bound_port(self->fd));
	ASSERT_EQ(0, bind(self->fd, (struct sockaddr *)&addr, sizeof(addr)));
	port = bound_port(self->fd);
	EXPECT_LE(32768, port);
	EXPECT_GE(60999, port);

	/* /proc/net/mrc shows the port. */
	ASSERT_EQ(0, fstat(self->fd, &st));
	snprintf(want, sizeof(want), "%lu", (unsigned long)st.st_ino);
	f = fopen("/proc/net/mrc", "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long ino;
		unsigned int uid, p;
		char type[32];

		if (sscanf(line, "%lu %31s %u %u", &ino, type, &uid, &p) == 4 &&
		    ino == st.st_ino && p == port)
			found = 1;
	}
	fclose(f);
	EXPECT_EQ(1, found) TH_LOG("inode %s with port %u", want, port);
}

TEST_F(mrc_socket, bind_twice)
{
	struct sockaddr_mrc addr = mrc_any(0);

	ASSERT_EQ(0, bind(self->fd, (struct sockaddr *)&addr, sizeof(addr)));
	EXPECT_EQ(-1, bind(self->fd, (struct sockaddr *)&addr, sizeof(addr)));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(mrc_socket, bind_in_use)
{
	struct sockaddr_mrc addr = mrc_any(5555);
	int other;

	ASSERT_EQ(0, bind(self->fd, (struct sockaddr *)&addr, sizeof(addr)));
	EXPECT_EQ(5555, bound_port(self->fd));

	/* The port is taken for both socket types. */
	other = socket(AF_MRC, SOCK_STREAM, 0);
	ASSERT_LE(0, other);
	EXPECT_EQ(-1, bind(other, (struct sockaddr *)&addr, sizeof(addr)));
	EXPECT_EQ(EADDRINUSE, errno);
	close(other);

	other = socket(AF_MRC, SOCK_SEQPACKET, 0);
	ASSERT_LE(0, other);
	EXPECT_EQ(-1, bind(other, (struct sockaddr *)&addr, sizeof(addr)));
	EXPECT_EQ(EADDRINUSE, errno);

	/* Closing frees it. */
	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(0, bind(other, (struct sockaddr *)&addr, sizeof(addr)));
	close(other);
}

TEST_F(mrc_socket, bind_bad_addresses)
{
	struct sockaddr_mrc addr = mrc_any(0);

	EXPECT_EQ(-1, bind(self->fd, (struct sockaddr *)&addr, sizeof(addr) - 1));
	EXPECT_EQ(EINVAL, errno);

	addr.smrc_family = AF_INET;
	EXPECT_EQ(-1, bind(self->fd, (struct sockaddr *)&addr, sizeof(addr)));
	EXPECT_EQ(EAFNOSUPPORT, errno);

	addr = mrc_any(0);
	addr.smrc_addr_family = 99;
	EXPECT_EQ(-1, bind(self->fd, (struct sockaddr *)&addr, sizeof(addr)));
	EXPECT_EQ(EAFNOSUPPORT, errno);

	addr = mrc_any(0);
	addr.__smrc_pad = 1;
	EXPECT_EQ(-1, bind(self->fd, (struct sockaddr *)&addr, sizeof(addr)));
	EXPECT_EQ(EINVAL, errno);

	/* 192.0.2.1 (TEST-NET-1) is no plane's address. */
	addr = mrc_any(0);
	addr.smrc_addr_family = AF_INET;
	addr.smrc_addr4 = htonl(0xc0000201);
	EXPECT_EQ(-1, bind(self->fd, (struct sockaddr *)&addr, sizeof(addr)));
	EXPECT_EQ(EADDRNOTAVAIL, errno);

	/* Nothing was bound by the failures. */
	EXPECT_EQ(0, bound_port(self->fd));
}

TEST_F(mrc_socket, no_peer_yet)
{
	struct sockaddr_mrc addr;
	socklen_t len = sizeof(addr);

	EXPECT_EQ(-1, getpeername(self->fd, (struct sockaddr *)&addr, &len));
	EXPECT_EQ(ENOTCONN, errno);
}

TEST_HARNESS_MAIN
