// SPDX-License-Identifier: GPL-2.0
/*
 * Print what MRC_INFO, MRC_PLANE_INFO and MRC_EV_INFO tell of the AF_MRC
 * sockets of a running process, taken with pidfd_getfd() (which needs the
 * right to ptrace it):
 *
 *   mrc_sockinfo PID
 *
 * For each socket, one line of each:
 *   conn ID peer ID state N planes N evs N retired N mss N srtt_us N
 *	rto_us N tx_packets N tx_bytes N retransmits N
 *   plane ID up 0|1 peer ADDR evs N active N cwnd N srtt_us N
 *	tx_packets N retirements N restores N
 *   ev PLANE PORT active|retired losses N tx_packets N srtt_us N
 * Exits 1 on a failing call, 2 when the process has no AF_MRC socket.
 */

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include <linux/mrc.h>

#ifndef __NR_pidfd_open
#define __NR_pidfd_open		434
#endif
#ifndef __NR_pidfd_getfd
#define __NR_pidfd_getfd	438
#endif

#define MAX_PLANES	16
#define MAX_EVS		256

static int array(int fd, int opt, struct mrc_info_array *head,
		 unsigned int size, unsigned int room)
{
	socklen_t len = sizeof(*head) + size * room;

	head->mria_size_head = sizeof(*head);
	head->mria_size_user = size;
	if (getsockopt(fd, SOL_MRC, opt, head, &len)) {
		perror("getsockopt");
		return -1;
	}
	return (len - sizeof(*head)) / size;
}

static int show(int fd)
{
	struct {
		struct mrc_info_array head;
		struct mrc_plane_info e[MAX_PLANES];
	} planes;
	struct {
		struct mrc_info_array head;
		struct mrc_ev_info e[MAX_EVS];
	} evs;
	char addr[INET6_ADDRSTRLEN];
	struct mrc_info info;
	socklen_t len = sizeof(info);
	int i, n;

	if (getsockopt(fd, SOL_MRC, MRC_INFO, &info, &len)) {
		perror("getsockopt MRC_INFO");
		return -1;
	}
	printf("conn %u peer %u state %u planes %u evs %u retired %u",
	       info.mrci_conn_id, info.mrci_peer_conn_id, info.mrci_state,
	       info.mrci_nr_planes, info.mrci_nr_evs,
	       info.mrci_nr_evs_retired);
	printf(" mss %u srtt_us %u rto_us %u", info.mrci_mss,
	       info.mrci_srtt_us, info.mrci_rto_us);
	printf(" tx_packets %llu tx_bytes %llu retransmits %llu\n",
	       (unsigned long long)info.mrci_tx_packets,
	       (unsigned long long)info.mrci_tx_bytes,
	       (unsigned long long)info.mrci_retransmits);

	n = array(fd, MRC_PLANE_INFO, &planes.head, sizeof(planes.e[0]),
		  MAX_PLANES);
	if (n < 0)
		return -1;
	for (i = 0; i < n; i++) {
		const struct mrc_plane_info *p = &planes.e[i];

		inet_ntop(p->mrcpi_peer_family, &p->mrcpi_peer_addr6, addr,
			  sizeof(addr));
		printf("plane %u up %u peer %s evs %u active %u",
		       p->mrcpi_id, p->mrcpi_up, addr, p->mrcpi_evs,
		       p->mrcpi_evs_active);
		printf(" cwnd %u srtt_us %u tx_packets %llu",
		       p->mrcpi_cwnd, p->mrcpi_srtt_us,
		       (unsigned long long)p->mrcpi_tx_packets);
		printf(" retirements %llu restores %llu\n",
		       (unsigned long long)p->mrcpi_retirements,
		       (unsigned long long)p->mrcpi_restores);
	}

	n = array(fd, MRC_EV_INFO, &evs.head, sizeof(evs.e[0]), MAX_EVS);
	if (n < 0)
		return -1;
	for (i = 0; i < n; i++)
		printf("ev %u %u %s losses %u tx_packets %llu srtt_us %u\n",
		       evs.e[i].mrcei_plane, evs.e[i].mrcei_port,
		       evs.e[i].mrcei_state == MRC_EV_STATE_RETIRED ?
		       "retired" : "active", evs.e[i].mrcei_losses,
		       (unsigned long long)evs.e[i].mrcei_tx_packets,
		       evs.e[i].mrcei_srtt_us);
	return 0;
}

int main(int argc, char **argv)
{
	int pidfd, fd, domain, found = 0, rc = 0;
	socklen_t len;
	char path[64];
	struct dirent *d;
	DIR *dir;

	if (argc != 2) {
		fprintf(stderr, "usage: %s PID\n", argv[0]);
		return 1;
	}
	pidfd = syscall(__NR_pidfd_open, atoi(argv[1]), 0);
	if (pidfd < 0) {
		perror("pidfd_open");
		return 1;
	}
	snprintf(path, sizeof(path), "/proc/%s/fd", argv[1]);
	dir = opendir(path);
	if (!dir) {
		perror(path);
		return 1;
	}
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		fd = syscall(__NR_pidfd_getfd, pidfd, atoi(d->d_name), 0);
		if (fd < 0)
			continue;	/* closed meanwhile */
		len = sizeof(domain);
		if (!getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) &&
		    domain == AF_MRC) {
			found = 1;
			if (show(fd))
				rc = 1;
		}
		close(fd);
	}
	closedir(dir);
	fflush(stdout);
	return rc ? 1 : found ? 0 : 2;
}
