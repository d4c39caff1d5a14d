// SPDX-License-Identifier: GPL-2.0
/*
 * A minimal MRC server and client: the server sends back what it reads,
 * the client sends one line and prints the answer.
 *
 *   mrc_echo -l PORT             serve on every plane, one client at a time
 *   mrc_echo ADDR PORT TEXT      ADDR: the server's address on any plane
 *
 * The same as over TCP but for the family and the address structure: a
 * server binds to the wildcard, a client names the server by one address
 * of one of its planes (IPv4 or IPv6); the connection then uses every
 * plane the two hosts share.  Built with the uapi headers of the sources
 * (make in this directory), or those installed by make install.
 */

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/mrc.h>

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void serve(unsigned short port)
{
	struct sockaddr_mrc addr = {
		.smrc_family = AF_MRC,
		.smrc_port = htons(port),
		/* smrc_addr_family 0: the wildcard, every plane. */
	};
	char buf[4096];
	int lfd, fd;
	ssize_t n;

	lfd = socket(AF_MRC, SOCK_STREAM, 0);
	if (lfd < 0)
		die("socket");
	if (bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		die("bind");
	if (listen(lfd, 16) < 0)
		die("listen");
	printf("ready %u\n", port);
	fflush(stdout);

	for (;;) {
		fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			die("accept");
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			if (write(fd, buf, n) != n)
				break;
		close(fd);
	}
}

static void ask(const char *host, unsigned short port, const char *text)
{
	struct sockaddr_mrc addr = {
		.smrc_family = AF_MRC,
		.smrc_port = htons(port),
	};
	size_t len = strlen(text), got = 0;
	char buf[4096];
	ssize_t n;
	int fd;

	if (inet_pton(AF_INET, host, &addr.smrc_addr4) == 1) {
		addr.smrc_addr_family = AF_INET;
	} else if (inet_pton(AF_INET6, host, addr.smrc_addr6) == 1) {
		addr.smrc_addr_family = AF_INET6;
	} else {
		fprintf(stderr, "mrc_echo: %s is no IPv4 or IPv6 address\n", host);
		exit(2);
	}
	if (len > sizeof(buf)) {
		fprintf(stderr, "mrc_echo: at most %zu bytes of text\n", sizeof(buf));
		exit(2);
	}

	fd = socket(AF_MRC, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket");
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		die("connect");
	if (write(fd, text, len) != (ssize_t)len)
		die("write");
	while (got < len && (n = read(fd, buf + got, len - got)) > 0)
		got += n;
	if (got < len) {
		fprintf(stderr, "mrc_echo: the server closed early\n");
		exit(1);
	}
	printf("%.*s\n", (int)got, buf);
	close(fd);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "-l"))
		serve(atoi(argv[2]));
	else if (argc == 4)
		ask(argv[1], atoi(argv[2]), argv[3]);
	else
		fprintf(stderr, "usage: mrc_echo -l PORT | mrc_echo ADDR PORT TEXT\n");
	return argc == 4 ? 0 : 2;
}
