#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What a connection allocates is charged to the memory cgroup of its
# socket, in softirq too: the state of the planes a connection shares and
# its table of EVs come when the SYN_ACK names the planes.  A client in a
# cgroup of its own opens one connection, then 1 + $N, over one plane,
# then over four; from the slab the cgroup was charged, the cost of a
# connection.  Four planes cost more than one by their EV table (32 EVs
# of 40 bytes a plane: 5120 bytes in an 8 KiB kmalloc against 1280 in a
# 2 KiB one) and their plane state: about 7 KiB.  Not charged, the two
# cost the same, the socket and its file.

. "$(dirname "$0")/mrc_lib.sh"

mrc_require_root

mrc_need_mrcctl
mrc_need_bin mrc_conn_hold
mrc_module_loaded || modprobe mrc || exit "$KSFT_FAIL"

CG=/sys/fs/cgroup
if ! grep -qw memory "$CG/cgroup.controllers" 2> /dev/null; then
	echo "# SKIP: no memory controller in $CG"
	exit "$KSFT_SKIP"
fi

mrc_plan 3

HOLD=$MRC_BIN/mrc_conn_hold
N=256
# What four planes must cost more than one, per connection: most of the
# EV table's 6 KiB more.
MORE_MIN=4096
suffix=$(printf '%04x' $RANDOM)
A=mrcm-$suffix-a
B=mrcm-$suffix-b
port=7500
tmp=$(mktemp -d)
cgroups=()

cleanup()
{
	local cg

	mrc_kill_jobs
	mrc_cleanup
	for cg in "${cgroups[@]}"; do
		rmdir "$cg" 2> /dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

# slab CGROUP: the bytes of slab objects charged to CGROUP.
slab()
{
	awk '$1 == "slab" { print $2 }' "$1/memory.stat"
}

# charged CONNS: the slab charged to a new cgroup whose one process holds
# CONNS connections from $A to $B; in $charged.
charged()
{
	local n=$1 cg srv cli

	charged=
	port=$((port + 1))
	cg=$CG/mrc-memcg-$suffix-$port
	mkdir "$cg" || return 1
	cgroups+=("$cg")
	rm -f "$tmp/s.out" "$tmp/c.out"
	ip netns exec "$B" "$HOLD" -l -p "$port" -n "$n" > "$tmp/s.out" \
		2> "$tmp/s.err" &
	srv=$!
	mrc_wait_said "$tmp/s.out" ready "$srv" || return 1
	(echo "$BASHPID" > "$cg/cgroup.procs" &&
		exec ip netns exec "$A" "$HOLD" -c "$peer" -p "$port" -n "$n") \
		> "$tmp/c.out" 2> "$tmp/c.err" &
	cli=$!
	mrc_wait_said "$tmp/c.out" sent "$cli" || return 1
	# The cgroup's statistics are flushed every 2 s.
	sleep 3
	charged=$(slab "$cg")
	kill "$cli" "$srv" 2> /dev/null
	wait "$cli" "$srv" 2> /dev/null
	[ -n "$charged" ]
}

# per_conn PLANES: the slab a connection over PLANES planes charged its
# client's cgroup, in $per[PLANES].
per=()
per_conn()
{
	local planes=$1 one many

	mrc_kill_jobs
	mrc_cleanup
	mrc_ns_add "$A" "$B" &&
		mrc_link_hosts "$A" "$B" 4 1 "$planes" &&
		mrc_add_planes "$A" "$B" 4 1 "$planes" || return 1
	peer=$(mrc_addr 4 1 2)
	echo +memory > "$CG/cgroup.subtree_control" || return 1
	charged 1 || return 1
	one=$charged
	charged $((N + 1)) || return 1
	many=$charged
	per[planes]=$(((many - one) / N))
	mrc_info "$planes plane(s): $one bytes of slab for 1 connection," \
		"$many for $((N + 1)): ${per[planes]} a connection"
}

one_plane()
{
	per_conn 1 || return 1
	# The socket alone, 1.5 KiB, is charged however it was made.
	[ "${per[1]}" -ge 1024 ] ||
		mrc_fail "a connection charged ${per[1]} bytes: is the cgroup's slab counted?"
}

four_planes_more()
{
	local more

	[ -n "${per[1]}" ] && [ -n "${per[4]}" ] ||
		mrc_fail "no figures to compare" || return 1
	more=$((per[4] - per[1]))
	mrc_info "four planes charge $more bytes more a connection than one"
	[ "$more" -ge "$MORE_MIN" ] ||
		mrc_fail "the state of four planes charged $more bytes more than one's," \
			"not $MORE_MIN: allocated in softirq without the socket's cgroup?"
}

mrc_check "1 plane: $N client connections charge their cgroup" one_plane
mrc_check "4 planes: $N client connections charge their cgroup" per_conn 4
mrc_check "4 planes charge at least $MORE_MIN bytes a connection more than 1: plane state and EVs" \
	four_planes_more
mrc_finish
