#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# An unmodified MPI job over MRC: Open MPI's mpirun under "mrcize run",
# four ranks (mrc_mpi_job.py, mpi4py), one on each of four hosts (network
# namespaces) joined by a switch on four planes, 1 and 2 IPv4, 3 and 4
# IPv6.  mpirun runs in the first host and starts rank 0 there; the others
# through its remote shell agent, which enters their namespace.  Open MPI's
# TCP transport (BTL, the data) is dialled over plane 1's IPv4 addresses,
# its control connections (OOB) over plane 3's IPv6 addresses; under
# mrcize all of them are MRC connections, sprayed over the four planes.
#
# - the job starts, one rank in each host, and after its first round
#   (MPI_Allreduce, MPI_Alltoall, MPI_Bcast, every element checked) waits;
# - meanwhile every host lists MRC connections to the data ports of the
#   three others, and no TCP connection to them; the control connections
#   were dialled over IPv6; every plane of every host sent packets;
# - plane 1 fails (its device goes down in every host): the job completes
#   its rounds with correct results on all four ranks, planes 2 to 4
#   carrying on;
# - the same job without mrcize, over TCP, works until plane 1 fails, and
#   then does not complete in twice the time the MRC job took.

. "$(dirname "$0")/mrc_lib.sh"

mrc_require_root

mrc_need_mrcctl
mrc_need_mrcize
mrc_need_cmd jq ss
# Debian's mpi4py is built for Open MPI, and for its python3.
PYTHON=/usr/bin/python3
MPIRUN=$(command -v mpirun.openmpi || command -v orterun)
if [ -z "$MPIRUN" ] || ! "$PYTHON" -c 'import mpi4py' 2> /dev/null; then
	echo "# SKIP: needs Open MPI and mpi4py (openmpi-bin, python3-mpi4py)"
	exit "$KSFT_SKIP"
fi
mrc_module_loaded || modprobe mrc || exit "$KSFT_FAIL"

mrc_plan 4

suffix=$(printf '%04x' $RANDOM)
SW=mpi-$suffix-sw
HOSTS=(mpi-"$suffix"-h1 mpi-"$suffix"-h2 mpi-"$suffix"-h3 mpi-"$suffix"-h4)
tmp=$(mktemp -d)
# Each round: every collective at each of these sizes (bytes); ROUNDS
# rounds, the plane failing before round PAUSE.  The data ports of the
# ranks (Open MPI's BTL) are PORT_MIN to PORT_MAX.  The packets each plane
# of each host must send before the failure, and after it on the planes
# left.  The seconds the job over MRC has after the failure; the job over
# TCP has twice what that one took (10 s if it did not end), at least
# MIN_WAIT.
SIZES=4,1000,65536,1048576
ROUNDS=3
PAUSE=2
PORT_MIN=7200
PORT_MAX=7299
STARTED=100
BOUND=60
MIN_WAIT=10
took=10

cleanup()
{
	local ns

	for ns in "${HOSTS[@]}"; do
		stop_all "$ns"
	done
	mrc_kill_jobs
	mrc_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT

# stop_all NS: kill what runs in NS (the daemons of mpirun detach).
stop_all()
{
	local pids

	pids=$(ip netns pids "$1" 2> /dev/null)
	# shellcheck disable=SC2086 # a list of pids
	[ -z "$pids" ] || kill -9 $pids 2> /dev/null
}

setup()
{
	mrc_ns_add "$SW" "${HOSTS[@]}" &&
		mrc_switch_hosts "$SW" 4 1 2 "${HOSTS[@]}" &&
		mrc_switch_hosts "$SW" 6 3 4 "${HOSTS[@]}" &&
		mrc_switch_planes 4 1 2 "${HOSTS[@]}" &&
		mrc_switch_planes 6 3 4 "${HOSTS[@]}" || return 1
	# mpirun's remote shell: "agent HOST COMMAND" runs COMMAND, one
	# string for a shell as ssh would, in the namespace HOST.
	cat > "$tmp/agent" <<- EOF
		#!/bin/sh
		case "\$1" in
		${HOSTS[1]}|${HOSTS[2]}|${HOSTS[3]}) ;;
		*) echo "agent: unknown host \$1" >&2; exit 255 ;;
		esac
		ns=\$1
		shift
		exec ip netns exec "\$ns" sh -c "\$*"
	EOF
	chmod +x "$tmp/agent"
}

# start_job NAME [mrcize run ...]: the job in the background, mpirun in
# host 1 (rank 0 there: "localhost"), prefixed by the arguments; its
# output in $tmp/NAME/out and err, its pid in $job.  One slot a host, so
# one rank a host; the BTL "self" for a rank's messages to itself, none
# through shared memory.  The daemons stay attached to their agent, so
# that what they say on standard error comes back to mpirun's.  No
# topology in shared memory (rtc_hwloc_vmhole none): the daemons mapped it
# into the biggest hole of their address space, next to the stack, and
# now and then crashed there (SIGSEGV in hwloc_shmem_topology_write).
start_job()
{
	local dir=$tmp/$1

	shift
	mkdir -p "$dir" || return 1
	ip netns exec "${HOSTS[0]}" "$@" "$MPIRUN" --allow-run-as-root \
		-np 4 --host "localhost,${HOSTS[1]},${HOSTS[2]},${HOSTS[3]}" \
		--mca plm_rsh_agent "$tmp/agent" --mca plm_rsh_no_tree_spawn 1 \
		--leave-session-attached --mca rtc_hwloc_vmhole none \
		--mca orte_tmpdir_base "$dir" \
		--mca pml ob1 --mca btl tcp,self \
		--mca btl_tcp_if_include veth1 --mca oob_tcp_if_include veth3 \
		--mca btl_tcp_port_min_v4 "$PORT_MIN" \
		--mca btl_tcp_port_range_v4 $((PORT_MAX - PORT_MIN + 1)) \
		--mca btl_tcp_port_min_v6 "$PORT_MIN" \
		--mca btl_tcp_port_range_v6 $((PORT_MAX - PORT_MIN + 1)) \
		"$PYTHON" "$MRC_DIR/mrc_mpi_job.py" "$SIZES" "$ROUNDS" "$dir" \
		"$PAUSE" > "$dir/out" 2> "$dir/err" &
	job=$!
}

job_done()
{
	! kill -0 "$job" 2> /dev/null
}

# all_paused DIR: the four ranks wait for the mark, or the job is gone.
all_paused()
{
	[ "$(find "$1" -name 'paused.*' | wc -l)" = 4 ] || job_done
}

# stop_job: mpirun first, which ends its daemons and ranks, then what is
# left in the hosts.
stop_job()
{
	local ns

	kill "$job" 2> /dev/null
	mrc_wait_for 10 job_done
	{
		for ns in "${HOSTS[@]}"; do
			stop_all "$ns"
		done
		wait "$job"
	} 2> /dev/null
}

# set_plane1 STATE: veth1 of every host up or down.
set_plane1()
{
	local ns

	for ns in "${HOSTS[@]}"; do
		ip -n "$ns" link set veth1 "$1" || return 1
	done
}

# wait_paused NAME: until the four ranks of the job wait for the mark.
wait_paused()
{
	local dir=$tmp/$1

	mrc_wait_for 90 all_paused "$dir"
	[ "$(find "$dir" -name 'paused.*' | wc -l)" = 4 ] && return 0
	mrc_fail "the ranks of $1 did not all reach round $PAUSE:"
	show_job "$1"
	show_hosts
	return 1
}

# show_hosts: the processes and MRC sockets of each host.
show_hosts()
{
	local h pids

	for h in 0 1 2 3; do
		pids=$(ip netns pids "${HOSTS[h]}" | tr '\n' ',')
		[ -z "$pids" ] ||
			ps -o pid=,args= -p "${pids%,}" | cut -c1-100 |
			sed "s/^/#   host $((h + 1)): /"
		"$MRCCTL" -n "${HOSTS[h]}" sock show | grep -v '^ ' |
			sed "s/^/#   host $((h + 1)): /"
	done
}

# show_job NAME: what the ranks said, and the start of mpirun's errors.
show_job()
{
	local dir=$tmp/$1 r

	for r in 0 1 2 3; do
		[ ! -e "$dir/rank.$r" ] || mrc_show "$dir/rank.$r"
	done
	head -20 "$dir/err" > "$dir/err.head"
	mrc_show "$dir/err.head"
}

# ranks_placed NAME: rank R of the job runs in host R + 1.
ranks_placed()
{
	local r want got

	for r in 0 1 2 3; do
		want=$(ip netns exec "${HOSTS[r]}" readlink /proc/self/ns/net)
		got=$(sed -n "s/^rank $r of 4 netns //p" "$tmp/$1/rank.$r" 2> /dev/null)
		mrc_expect "network namespace of rank $r" "$got" "$want" || return 1
	done
}

# ranks_ok NAME: the four ranks said ok.
ranks_ok()
{
	local r

	for r in 0 1 2 3; do
		grep -qs "^rank $r ok $ROUNDS rounds" "$tmp/$1/rank.$r" ||
			mrc_fail "rank $r of $1 did not end well" || return 1
	done
}

# dev_tx: the packets sent by veth1-4 of each host, TX[H * 4 + K] for
# host H (0-3) and plane K (0-3).
dev_tx()
{
	local h name tx

	TX=()
	for h in 0 1 2 3; do
		while read -r name _ _ _ _ _ _ _ _ _ tx _; do
			[[ "$name" == veth[1-4]: ]] &&
				TX[h * 4 + ${name:4:1} - 1]=$tx
		done < <(ip netns exec "${HOSTS[h]}" cat /proc/net/dev)
	done
	[ "${#TX[@]}" = 16 ]
}

# planes_sent WHAT FIRST: every host sent $STARTED packets on each plane
# from FIRST to 4 since TX0.
planes_sent()
{
	local h k n rc=0 line

	for h in 0 1 2 3; do
		line=
		for k in 0 1 2 3; do
			n=$((TX[h * 4 + k] - TX0[h * 4 + k]))
			line="$line $n"
			[ $((k + 1)) -lt "$2" ] || [ "$n" -ge "$STARTED" ] || rc=1
		done
		mrc_info "host $((h + 1)) sent on planes 1-4 $1:$line"
	done
	[ "$rc" = 0 ] || mrc_fail "a plane sent fewer than $STARTED packets $1"
}

# data_peers NS: the hosts (last byte of their plane 1 address) that NS
# has established MRC connections with on the data ports, either way.
data_peers()
{
	"$MRCCTL" -n "$1" conn show | awk -v min="$PORT_MIN" -v max="$PORT_MAX" '
		$1 == "conn" && / state established / {
			for (i = 1; i < NF; i++) {
				if ($i == "port")
					port = $(i + 1)
				if ($i == "peer" && $(i + 1) ~ /:/)
					peer = $(i + 1)
			}
			n = split(peer, a, ":")
			if ((port >= min && port <= max) ||
			    (a[n] >= min && a[n] <= max)) {
				split(a[1], b, ".")
				print b[4]
			}
		}' | sort -u | tr '\n' ' '
}

############################################################################

# The job under mrcize runs its first round and waits.
mrc_job_start()
{
	dev_tx || return 1
	TX0=("${TX[@]}")
	start_job mrc "$MRCIZE" run || return 1
	wait_paused mrc || return 1
	show_job mrc
	ranks_placed mrc
}

# Every host has MRC connections on the data ports with the three others,
# and TCP none; the control connections went to plane 3's IPv6 address of
# host 1; every plane of every host carried packets.
mrc_job_conns()
{
	local h want got rc=0

	for h in 0 1 2 3; do
		want=$(printf '%s\n' 1 2 3 4 | grep -vx $((h + 1)) | tr '\n' ' ')
		got=$(data_peers "${HOSTS[h]}")
		mrc_expect "host $((h + 1)): MRC data connections with hosts" \
			"$got" "$want" || rc=1
		if ip netns exec "${HOSTS[h]}" ss -tnH state established |
		   grep -qE ":(7[2][0-9][0-9])\b"; then
			mrc_fail "host $((h + 1)) has TCP connections on the data ports"
			rc=1
		fi
	done
	for h in 1 2 3; do
		"$MRCCTL" -n "${HOSTS[h]}" conn show | grep "state established" |
			grep -q " peer \[fd00:3::1\]:" ||
			mrc_fail "host $((h + 1)): no MRC connection to [fd00:3::1]" ||
			rc=1
	done
	"$MRCCTL" -n "${HOSTS[1]}" conn show | sed 's/^/#   host 2: /'
	dev_tx && planes_sent "before the failure" 1 || rc=1
	return "$rc"
}

# Plane 1 fails; the job completes with correct results.
mrc_job_failover()
{
	local rc=0 start=$SECONDS

	TX0=("${TX[@]}")
	set_plane1 down || return 1
	touch "$tmp/mrc/mark"
	if mrc_wait_for "$BOUND" job_done; then
		wait "$job" || mrc_fail "mpirun exited $?" || rc=1
		took=$((SECONDS - start))
		mrc_info "the job ended $took s after the failure"
	else
		mrc_fail "the job did not end within $BOUND s of the failure"
		rc=1
	fi
	stop_job
	show_job mrc
	[ "$rc" = 0 ] && ranks_ok mrc || rc=1
	dev_tx && planes_sent "after the failure" 2 || rc=1
	set_plane1 up
	return "$rc"
}

# The same job over TCP: it runs its first round, with TCP connections on
# the data ports and no MRC connection; once plane 1 fails it does not
# complete in twice the time the job over MRC took.
tcp_job_control()
{
	local rc=0 h limit=$((2 * took))

	start_job tcp || return 1
	wait_paused tcp || return 1
	for h in 0 1 2 3; do
		[ -z "$(data_peers "${HOSTS[h]}")" ] ||
			mrc_fail "host $((h + 1)) has MRC connections" || rc=1
	done
	ip netns exec "${HOSTS[0]}" ss -tnH state established |
		grep -qE ":(7[2][0-9][0-9])\b" ||
		mrc_fail "host 1 has no TCP connection on the data ports" || rc=1
	ranks_placed tcp || rc=1
	set_plane1 down || return 1
	touch "$tmp/tcp/mark"
	[ "$limit" -ge "$MIN_WAIT" ] || limit=$MIN_WAIT
	if mrc_wait_for "$limit" job_done; then
		mrc_fail "the job over TCP ended despite the failure"
		show_job tcp
		rc=1
	else
		mrc_info "over TCP, the job had not ended $limit s after the failure"
	fi
	stop_job
	! ranks_ok tcp > /dev/null || mrc_fail "the ranks over TCP said ok" || rc=1
	set_plane1 up
	return "$rc"
}

# check DESCRIPTION COMMAND...: mrc_check, and how long the case took.
if ! setup; then
	echo "# FAIL: cannot set the hosts up"
	exit "$KSFT_FAIL"
fi

mrc_check "MPI job under mrcize: a rank in each of 4 hosts, round 1 checked" \
	mrc_job_start
mrc_check "data connections are MRC on every host, control dialled over IPv6, every plane used" \
	mrc_job_conns
mrc_check "plane 1 fails: the job completes, results checked on all 4 ranks" \
	mrc_job_failover
mrc_check "control: over TCP, the job runs until plane 1 fails, then stalls" \
	tcp_job_control

mrc_finish
