#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Path MTU.  Host A reaches host B on plane 1 through router R, whose
# routes on to B and back to A carry a smaller MTU (R answers bigger
# packets with ICMP "fragmentation needed" or "packet too big"), and
# directly on plane 2, whose device MTU falls in the middle of a transfer;
# every link has an MTU of 9000.  Either way the data arrives intact, the
# connection cuts packets that fit (its MSS falls), packets cut before go
# out in fragments rather than being dropped for their size, and a
# message costs the send buffer what its smaller packets cost (64 KiB
# messages still go).  IPv4 and IPv6.

. "$(dirname "$0")/mrc_lib.sh"

mrc_require_root

mrc_need_mrcctl
mrc_need_bin mrc_xfer
mrc_need_bin mrc_conn_hold
mrc_need_cmd jq
XFER=$MRC_BIN/mrc_xfer
HOLD=$MRC_BIN/mrc_conn_hold
mrc_module_loaded || modprobe mrc || exit "$KSFT_FAIL"

mrc_plan 8

# The smaller MTU, on R's routes and on plane 2: IPv6's minimum.
MTU=1280
SIZE=16M
SIZE_BYTES=$((16 << 20))

suffix=$(printf '%04x' $RANDOM)
tmp=$(mktemp -d)
port=7000

cleanup()
{
	mrc_kill_jobs
	mrc_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT

# Plane 1: A veth1 (pair 1, host .1) to R r1 (pair 1, .254), R r2 (pair
# 11, .254) to B veth1 (pair 11, .2); R routes both ways with "mtu lock
# $MTU".  Plane 2: A veth2 to B veth2 (pair 2).  Devices at MTU 9000.
setup_family()
{
	local len=24 opt='' metric='' a1 b1 r1 r2 net_a net_b

	fam=$1
	A=mrcp-$suffix-a$fam
	R=mrcp-$suffix-r$fam
	B=mrcp-$suffix-b$fam
	name=IPv$fam
	# IPv6 replaces the connected route only with its metric.
	[ "$fam" = 4 ] || len=64 opt=nodad metric='metric 256'
	a1=$(mrc_addr "$fam" 1 1)
	r1=$(mrc_addr "$fam" 1 254)
	r2=$(mrc_addr "$fam" 11 254)
	b1=$(mrc_addr "$fam" 11 2)
	peer1=$b1
	peer2=$(mrc_addr "$fam" 2 2)
	if [ "$fam" = 4 ]; then
		net_a=10.0.1.0/24 net_b=10.0.11.0/24
	else
		net_a=fd00:1::/64 net_b=fd00:11::/64
	fi
	mrc_ns_add "$A" "$R" "$B" &&
		ip netns exec "$R" sysctl -qw net.ipv4.ip_forward=1 \
			net.ipv6.conf.all.forwarding=1 > /dev/null &&
		ip link add veth1 netns "$A" type veth peer name r1 netns "$R" &&
		ip link add veth1 netns "$B" type veth peer name r2 netns "$R" &&
		ip -n "$A" -batch - <<-EOF &&
		link set veth1 mtu 9000 up
		addr add $a1/$len dev veth1 $opt
		route add $net_b via $r1 dev veth1
		EOF
		ip -n "$R" -batch - <<-EOF &&
		link set r1 mtu 9000 up
		link set r2 mtu 9000 up
		addr add $r1/$len dev r1 $opt
		addr add $r2/$len dev r2 $opt
		route replace $net_a dev r1 $metric mtu lock $MTU
		route replace $net_b dev r2 $metric mtu lock $MTU
		EOF
		ip -n "$B" -batch - <<-EOF &&
		link set veth1 mtu 9000 up
		addr add $b1/$len dev veth1 $opt
		route add $net_a via $r2 dev veth1
		EOF
		mrc_link_hosts "$A" "$B" "$fam" 2 2 &&
		ip -n "$A" link set veth2 mtu 9000 &&
		ip -n "$B" link set veth2 mtu 9000 || return 1
	"$MRCCTL" -n "$A" plane add dev veth1 id 1 addr "$a1" &&
		"$MRCCTL" -n "$B" plane add dev veth1 id 1 addr "$b1" &&
		mrc_add_planes "$A" "$B" "$fam" 2 2 &&
		mrc_wait_for 10 mrc_planes_up "$A" 2 &&
		mrc_wait_for 10 mrc_planes_up "$B" 2
}

# frag_fails NS: packets NS did not send for their size (too big with DF
# set, or over IPv6) since it was made: FragFails of IPv4 or IPv6.
frag_fails()
{
	if [ "$fam" = 4 ]; then
		ip netns exec "$1" awk '$1 == "Ip:" {
				if (!n) { for (i = 2; i <= NF; i++)
						col[$i] = i; n = 1 }
				else print $col["FragFails"] }' /proc/net/snmp
	else
		ip netns exec "$1" awk '$1 == "Ip6FragFails" { print $2 }' \
			/proc/net/snmp6
	fi
}

# room MTU: the payload of an MRC packet in an IP packet of MTU bytes.
room()
{
	local ip=20

	[ "$fam" = 4 ] || ip=40
	echo $(($1 - ip - 8 - 28))
}

# server_start NAME COMMAND...: COMMAND on B in the background, output in
# $tmp/NAME.out and .err, its pid in $srv; false if it never said ready.
server_start()
{
	local out=$tmp/$1

	shift
	rm -f "$out.out" "$out.err"
	ip netns exec "$B" "$@" > "$out.out" 2> "$out.err" &
	srv=$!
	mrc_wait_for 10 mrc_server_ready "$out.out" "$srv"
	if ! mrc_said_ready "$out.out" && kill -0 "$srv" 2> /dev/null; then
		# Seen once: ready only after 30 s.  Where it waits before.
		mrc_info "not ready after 10 s, in $(cat "/proc/$srv/wchan" 2> /dev/null):"
		cat "/proc/$srv/stack" > "$out.stack" 2> /dev/null &&
			mrc_show "$out.stack"
		mrc_wait_for 20 mrc_server_ready "$out.out" "$srv"
	fi
	mrc_said_ready "$out.out" && return 0
	# Where a server that never said ready waits, for the next one to see.
	if kill -0 "$srv" 2> /dev/null; then
		mrc_info "still running after 30 s, in $(cat "/proc/$srv/wchan" 2> /dev/null):"
		cat "/proc/$srv/stack" > "$out.stack" 2> /dev/null &&
			mrc_show "$out.stack"
		# Where its output goes, and what the file holds.
		mrc_info "its stdout: $(readlink "/proc/$srv/fd/1"), $(stat -c %s "$out.out" 2> /dev/null) bytes: $(od -c "$out.out" 2> /dev/null | head -n 3)"
		mrc_info "$(df -h "$tmp" | tail -n 1)"
	fi
	kill "$srv" 2> /dev/null
	wait "$srv"
	mrc_fail "server did not start:"
	mrc_show "$out.err"
	return 1
}

# transfer PEER TYPE [COMMAND...]: $SIZE bytes from A to B dialled at
# PEER, as a stream or as 64 KiB messages, and COMMAND once the client
# started.  Both ends must agree on bytes and SHA-256, and neither host
# may have dropped a packet for its size.
transfer()
{
	local peer=$1 type=$2 srv cli rc src c s fails_a fails_b msgs=()

	shift 2
	[ "$type" = stream ] || msgs=(-m 64K)
	port=$((port + 1))
	fails_a=$(frag_fails "$A")
	fails_b=$(frag_fails "$B")
	rm -f "$tmp/s.out" "$tmp/s.err"
	server_start s "$XFER" -l -p "$port" -t "$type" || return 1
	ip netns exec "$A" "$XFER" -c "$peer" -p "$port" -t "$type" -s "$SIZE" \
		"${msgs[@]}" -S "$port" > "$tmp/c.out" 2> "$tmp/c.err" &
	cli=$!
	[ "$#" = 0 ] || "$@" || mrc_fail "$*"
	wait "$cli"
	rc=$?
	[ "$rc" = 0 ] || kill "$srv" 2> /dev/null
	wait "$srv"
	src=$?
	if [ "$rc" != 0 ] || [ "$src" != 0 ]; then
		mrc_fail "client exited $rc, server $src:"
		mrc_show "$tmp/c.err"
		mrc_show "$tmp/s.err"
		return 1
	fi
	c=$(awk '$1 == "conn" { print $4, $8 }' "$tmp/c.out")
	s=$(awk '$1 == "conn" { print $4, $8 }' "$tmp/s.out")
	mrc_expect "received (bytes, sha256)" "$s" "$c" &&
		mrc_expect "bytes sent" "${c%% *}" "$SIZE_BYTES" &&
		mrc_expect "packets $A dropped for their size" \
			$(($(frag_fails "$A") - fails_a)) 0 &&
		mrc_expect "packets $B dropped for their size" \
			$(($(frag_fails "$B") - fails_b)) 0
}

# held_mss PEER MAX: a connection dialled from A at PEER moves 4 MiB to B
# and stays open; its MSS at A is then at most MAX.
held_mss()
{
	local srv cli mss rc=0

	port=$((port + 1))
	server_start hs "$HOLD" -l -p "$port" -s 4M || return 1
	rm -f "$tmp/hc.out" "$tmp/hc.err"
	ip netns exec "$A" "$HOLD" -c "$1" -p "$port" -s 4M > "$tmp/hc.out" \
		2> "$tmp/hc.err" &
	cli=$!
	if mrc_wait_for 120 grep -q "^received" "$tmp/hs.out"; then
		mss=$("$MRCCTL" -n "$A" -j conn show | jq -r '.[0].mss')
		mrc_info "MSS at $A: $mss"
		[[ "$mss" =~ ^[0-9]+$ ]] && [ "$mss" -le "$2" ] ||
			mrc_fail "MSS $mss, more than $2" || rc=1
	else
		mrc_fail "4 MiB not through:"
		mrc_show "$tmp/hc.err"
		mrc_show "$tmp/hs.err"
		rc=1
	fi
	kill "$cli" "$srv" 2> /dev/null
	wait "$cli" "$srv"
	return "$rc"
}

# lower_plane2: plane 2's device MTU falls to $MTU at both ends, a second
# into a transfer.
lower_plane2()
{
	sleep 1
	ip -n "$A" link set veth2 mtu "$MTU" &&
		ip -n "$B" link set veth2 mtu "$MTU"
}

family()
{
	setup_family "$1" || mrc_fail "cannot build the $1 topology"
	mrc_check "$name, a route of MTU $MTU on plane 1: the MSS falls to fit" \
		held_mss "$peer2" "$(room "$MTU")"
	mrc_check "$name, a route of MTU $MTU on plane 1: $SIZE stream intact, nothing dropped for its size" \
		transfer "$peer1" stream
	mrc_check "$name, a route of MTU $MTU on plane 1: $SIZE in 64 KiB messages, intact" \
		transfer "$peer1" seqpacket
	mrc_check "$name, plane 2's MTU falls to $MTU mid-transfer: $SIZE stream intact, nothing dropped for its size" \
		transfer "$peer2" stream lower_plane2
	mrc_cleanup
}

family 4
family 6

mrc_finish
