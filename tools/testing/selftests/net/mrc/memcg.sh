#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What a connection allocates is charged to the memory cgroup of its
# socket, in softirq too.  A client in a cgroup of its own opens one
# connection, then 1 + $N, over one plane, then over four; from the slab
# the cgroup was charged, the cost of a connection.  The state of the
# planes a connection shares comes in softirq, when the SYN_ACK names
# them, 248 bytes by id up to the highest: four planes' (ids 1 to 4, 1240
# bytes in a 2 KiB kmalloc) cost more than one's (id 1, 496 in 512) by
# 1.5 KiB.  Its send ring and its table of EVs come when it first sends,
# from sendmsg(): connections over four planes with a byte each in flight
# (their planes drop all they send) cost 12 KiB more than idle ones at
# least (the ring's 8 KiB; 32 EVs of 64 bytes a plane, 8192 bytes in an 8
# KiB kmalloc).  Once their byte was acknowledged and they sat idle for a
# second, they give both back: less than 4 KiB more than idle ones on
# average (the table stays with a connection while an EV is retired).  Not
# charged, all cost the same, the socket and its file.

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

mrc_plan 7

HOLD=$MRC_BIN/mrc_conn_hold
nr_planes=0
N=256
# What four planes must cost more than one, per idle connection: most of
# the plane state's 1.5 KiB more.
PLANES_MIN=1024
# What a connection over four planes costs more while it sends: most of
# the send ring's and the EV table's 16 KiB.
SENDING_MIN=12288
# What it may cost more once idle again, having given both back: half
# the EV table, as one that kept its table (an EV of it retired still,
# after a loss or a stall of the emulator) keeps 8 KiB, the ring given
# back.
IDLE_MAX=4096
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

# charged CONNS [SIZE [HELD]]: the slab charged to a new cgroup whose one
# process holds CONNS connections from $A to $B, having sent SIZE bytes
# (default none) on each, in flight still if HELD is 1: $A's planes drop
# all once the handshakes are through; in $charged.
charged()
{
	local n=$1 size=${2:-0} held=${3:-0} cg srv cli go=

	charged=
	port=$((port + 1))
	cg=$CG/mrc-memcg-$suffix-$port
	mkdir "$cg" || return 1
	cgroups+=("$cg")
	rm -f "$tmp/s.out" "$tmp/c.out"
	ip netns exec "$B" "$HOLD" -l -p "$port" -n "$n" -s "$size" \
		> "$tmp/s.out" 2> "$tmp/s.err" &
	srv=$!
	mrc_wait_said "$tmp/s.out" ready "$srv" || return 1
	[ "$held" = 1 ] && go=-g
	(echo "$BASHPID" > "$cg/cgroup.procs" &&
		exec ip netns exec "$A" "$HOLD" -c "$peer" -p "$port" -n "$n" \
			-s "$size" $go) \
		> "$tmp/c.out" 2> "$tmp/c.err" &
	cli=$!
	if [ "$held" = 1 ]; then
		mrc_wait_said "$tmp/c.out" connected "$cli" &&
			drop_all add || return 1
		kill -USR1 "$cli"
	fi
	mrc_wait_said "$tmp/c.out" sent "$cli" || return 1
	# The cgroup's statistics are flushed every 2 s; idle rings go after
	# 1 s.
	sleep 4
	charged=$(slab "$cg")
	kill "$cli" "$srv" 2> /dev/null
	wait "$cli" "$srv" 2> /dev/null
	[ "$held" = 1 ] && drop_all del
	[ -n "$charged" ]
}

# drop_all add|del: $A's planes in the current per_conn drop all they
# send, or no longer.
drop_all()
{
	local dev

	for dev in $(seq -f 'veth%g' 1 "$nr_planes"); do
		if [ "$1" = add ]; then
			tc -n "$A" qdisc add dev "$dev" root netem loss 100% ||
				return 1
		else
			tc -n "$A" qdisc del dev "$dev" root
		fi
	done
}

# per_conn PLANES [SIZE [HELD]]: the slab a connection over PLANES planes
# that sent SIZE bytes, held in flight if HELD is 1, charged its client's
# cgroup, in $per[PLANES] (idle), $sent[PLANES] or $sending[PLANES].
per=()
sent=()
sending=()
per_conn()
{
	local planes=$1 size=${2:-0} held=${3:-0} one many

	mrc_kill_jobs
	mrc_cleanup
	mrc_ns_add "$A" "$B" &&
		mrc_link_hosts "$A" "$B" 4 1 "$planes" &&
		mrc_add_planes "$A" "$B" 4 1 "$planes" || return 1
	peer=$(mrc_addr 4 1 2)
	nr_planes=$planes
	echo +memory > "$CG/cgroup.subtree_control" || return 1
	charged 1 "$size" "$held" || return 1
	one=$charged
	charged $((N + 1)) "$size" "$held" || return 1
	many=$charged
	if [ "$size" = 0 ]; then
		per[planes]=$(((many - one) / N))
	elif [ "$held" = 1 ]; then
		sending[planes]=$(((many - one) / N))
	else
		sent[planes]=$(((many - one) / N))
	fi
	mrc_info "$planes plane(s), $size bytes sent (held: $held):" \
		"$one bytes of slab" \
		"for 1 connection, $many for $((N + 1)):" \
		"$(((many - one) / N)) a connection"
}

one_plane()
{
	per_conn 1 || return 1
	# The socket alone, 1.5 KiB, is charged however it was made.
	[ "${per[1]}" -ge 1024 ] ||
		mrc_fail "a connection charged ${per[1]} bytes: is the cgroup's slab counted?"
}

# more WHAT A B MIN: B is at least MIN more than A, which WHAT explains.
more()
{
	local more

	[ -n "$2" ] && [ -n "$3" ] || mrc_fail "no figures to compare" ||
		return 1
	more=$(($3 - $2))
	mrc_info "$1: $more bytes more a connection"
	[ "$more" -ge "$4" ] ||
		mrc_fail "$1 charged $more bytes more, not $4"
}

four_planes_more()
{
	more "the state of four planes, allocated in softirq" "${per[1]}" \
		"${per[4]}" "$PLANES_MIN"
}

ring_and_evs_when_sending()
{
	more "the send ring and the EVs of four planes, drawn when a connection first sends" \
		"${per[4]}" "${sending[4]}" "$SENDING_MIN"
}

given_back_when_idle()
{
	local more

	[ -n "${per[4]}" ] && [ -n "${sent[4]}" ] ||
		mrc_fail "no figures to compare" || return 1
	more=$((sent[4] - per[4]))
	mrc_info "a connection idle again: $more bytes more than one that never sent;" \
		"EVs retired in $A: $(mrc_counter "$A" EvRetired)"
	[ "$more" -lt "$IDLE_MAX" ] ||
		mrc_fail "$more bytes more a connection: were the send ring and the EVs given back?"
}

mrc_check "1 plane: $N idle client connections charge their cgroup" one_plane
mrc_check "4 planes: $N idle client connections charge their cgroup" \
	per_conn 4
mrc_check "4 planes charge at least $PLANES_MIN bytes an idle connection more than 1: their state" \
	four_planes_more
mrc_check "4 planes: $N client connections with a byte in flight charge their cgroup" \
	per_conn 4 1 1
mrc_check "4 planes: a connection with a byte in flight charges at least $SENDING_MIN bytes more than an idle one: its send ring and EVs" \
	ring_and_evs_when_sending
mrc_check "4 planes: $N client connections that sent a byte, then sat idle, charge their cgroup" \
	per_conn 4 1
mrc_check "4 planes: a connection idle again charges less than $IDLE_MAX bytes more than one that never sent" \
	given_back_when_idle
mrc_finish
