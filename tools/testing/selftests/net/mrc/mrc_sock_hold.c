// SPDX-License-Identifier: GPL-2.0
/*
 * Open an AF_MRC socket, say "ready" and hold the socket until standard
 * input closes: lets shell tests keep a socket open while they look around.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include <linux/mrc.h>

int main(int argc, char **argv)
{
	int type = SOCK_SEQPACKET;
	char buf[64];
	int fd;

	if (argc > 1 && !strcmp(argv[1], "stream"))
		type = SOCK_STREAM;

	fd = socket(AF_MRC, type, 0);
	if (fd < 0) {
		fprintf(stderr, "socket(AF_MRC): %s\n", strerror(errno));
		return 1;
	}
	printf("ready\n");
	fflush(stdout);

	while (read(STDIN_FILENO, buf, sizeof(buf)) > 0)
		;
	close(fd);
	return 0;
}
