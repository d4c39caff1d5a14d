// SPDX-License-Identifier: GPL-2.0
/*
 * Open an AF_MRC socket, optionally bind it, say "ready PORT" and hold the
 * socket until standard input closes: lets shell tests keep a socket open
 * while they look around.
 *
 *   mrc_sock_hold [stream|seqpacket] [bind ADDRESS|any PORT]
 *
 * A failing call prints "CALL: strerror" on stderr and exits 1.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include <linux/mrc.h>

static int parse_addr(const char *text, struct sockaddr_mrc *addr)
{
	if (!strcmp(text, "any"))
		return 0;
	if (inet_pton(AF_INET, text, &addr->smrc_addr4) == 1) {
		addr->smrc_addr_family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, text, addr->smrc_addr6) == 1) {
		addr->smrc_addr_family = AF_INET6;
		return 0;
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct sockaddr_mrc addr = { .smrc_family = AF_MRC };
	socklen_t len = sizeof(addr);
	int type = SOCK_SEQPACKET;
	char buf[64];
	int fd;

	if (argc > 1 && !strcmp(argv[1], "stream"))
		type = SOCK_STREAM;

	fd = socket(AF_MRC, type, 0);
	if (fd < 0) {
		fprintf(stderr, "socket: %s\n", strerror(errno));
		return 1;
	}

	if (argc > 4 && !strcmp(argv[2], "bind")) {
		if (parse_addr(argv[3], &addr)) {
			fprintf(stderr, "bad address %s\n", argv[3]);
			return 2;
		}
		addr.smrc_port = htons(atoi(argv[4]));
		if (bind(fd, (struct sockaddr *)&addr, sizeof(addr))) {
			fprintf(stderr, "bind: %s\n", strerror(errno));
			return 1;
		}
	}
	if (getsockname(fd, (struct sockaddr *)&addr, &len)) {
		fprintf(stderr, "getsockname: %s\n", strerror(errno));
		return 1;
	}
	printf("ready %u\n", ntohs(addr.smrc_port));
	fflush(stdout);

	while (read(STDIN_FILENO, buf, sizeof(buf)) > 0)
		;
	close(fd);
	return 0;
}
