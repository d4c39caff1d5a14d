#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# MRC connections between two hosts (network namespaces) joined by 1, 2, 4
# and 8 planes (veth pairs), over IPv4 and over IPv6: data arrives whole
# (the same SHA-256 on both ends) in streams of 0 B to 64 MiB and in
# messages of 0 B to 16 MiB that keep their boundaries, over 64
# connections at once and from three clients to one server; and it is
# sprayed: every plane carries its share of the packets, and one plane
# sees at least as many UDP source ports as there are EVs per plane.

. "$(dirname "$0")/mrc_lib.sh"

mrc_require_root

mrc_need_mrcctl
mrc_need_bin mrc_xfer
mrc_need_cmd jq tcpdump
XFER=$MRC_BIN/mrc_xfer
mrc_module_loaded || modprobe mrc || exit "$KSFT_FAIL"

mrc_plan 34

# EVs per plane by default (mrcctl config show).
EVS=32

suffix=$(printf '%04x' $RANDOM)
tmp=$(mktemp -d)
port=5000
# Extra arguments of the server and the client, connections and the plane
# dialled: set for one transfer at a time.
sx=
cx=
conns=1
dial=1

cleanup()
{
	mrc_kill_jobs
	mrc_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT

# Topology: hosts $A and $B, veth1..veth8 on each, pair K joining vethK of
# both, with mrc_addr's addresses.  Plane K of each host is vethK with id
# K; planes are added as the cases need them.
setup_family()
{
	fam=$1
	A=mrcc-$suffix-a$fam
	B=mrcc-$suffix-b$fam
	name=IPv$fam
	mrc_ns_add "$A" "$B" && mrc_link_hosts "$A" "$B" "$fam" 1 8
}

# add_planes FIRST LAST: planes FIRST to LAST on both hosts, all up.
add_planes()
{
	mrc_add_planes "$A" "$B" "$fam" "$1" "$2"
}

# server_start NAME ARG...: mrc_xfer -l on $B and the next port, output in
# $tmp/NAME.out and .err; its pid in $srv.
server_start()
{
	local out=$tmp/$1

	shift
	port=$((port + 1))
	rm -f "$out.out" "$out.err"
	ip netns exec "$B" "$XFER" -l -p "$port" "$@" > "$out.out" 2> "$out.err" &
	srv=$!
	mrc_wait_for 30 mrc_server_ready "$out.out" "$srv"
	if ! mrc_said_ready "$out.out"; then
		kill "$srv" 2> /dev/null
		wait "$srv"
		mrc_fail "server did not start:"
		mrc_show "$out.err"
		return 1
	fi
}

# server_end NAME: wait for the server; false if it failed.
server_end()
{
	local rc

	wait "$srv"
	rc=$?
	[ "$rc" = 0 ] && return 0
	mrc_fail "server exited $rc:"
	mrc_show "$tmp/$1.err"
	return 1
}

# same TYPE CONNS BYTES SERVER CLIENT...: the server's and the clients'
# lines tell of CONNS connections of BYTES bytes each, with the same
# SHA-256 (and number of messages for seqpacket) on both ends.
same()
{
	local type=$1 conns=$2 size=$3 srv_out=$4 tag n b bytes m msgs s hash
	local key sent=0 got=0 file
	local -A count=()

	shift 4
	for file in "$@"; do
		while read -r tag n b bytes m msgs s hash; do
			[ "$tag $b $m $s" = "conn bytes msgs sha256" ] || continue
			if [ "$bytes" != "$size" ]; then
				mrc_fail "client conn $n sent $bytes bytes, not $size"
				return 1
			fi
			key=$bytes/$hash
			[ "$type" = seqpacket ] && key=$bytes/$msgs/$hash
			count[$key]=$((${count[$key]:-0} + 1))
			sent=$((sent + 1))
		done < "$file"
	done
	while read -r tag n b bytes m msgs s hash; do
		[ "$tag $b $m $s" = "conn bytes msgs sha256" ] || continue
		key=$bytes/$hash
		[ "$type" = seqpacket ] && key=$bytes/$msgs/$hash
		if [ "${count[$key]:-0}" = 0 ]; then
			mrc_fail "server conn $n: $bytes bytes, $msgs messages, sha256 $hash: no client sent that; clients:"
			for file in "$@"; do
				mrc_show "$file"
			done
			return 1
		fi
		count[$key]=$((count[$key] - 1))
		got=$((got + 1))
	done < "$srv_out"
	[ "$sent" = "$conns" ] && [ "$got" = "$conns" ] ||
		mrc_fail "$sent connections sent, $got received, expected $conns"
}

# bytes SIZE: SIZE (with a K or M suffix) in bytes, in $nbytes.
bytes()
{
	case "$1" in
	*K) nbytes=$((${1%K} << 10)) ;;
	*M) nbytes=$((${1%M} << 20)) ;;
	*) nbytes=$1 ;;
	esac
}

# transfer TYPE SIZE MSGSIZES: $conns (default 1) connections from $A to
# $B's address on plane $dial (default 1), each sending SIZE bytes in
# messages of MSGSIZES; the server takes extra arguments from $sx and the
# client from $cx.  Both ends must agree.
transfer()
{
	local type=$1 size=$2 msgs=$3 n=$conns rc
	local peer

	peer=$(mrc_addr "$fam" "$dial" 2)

	# shellcheck disable=SC2086 # $sx and $cx are lists of arguments
	server_start s -t "$type" -n "$n" $sx || return 1
	# shellcheck disable=SC2086
	ip netns exec "$A" "$XFER" -c "$peer" -p "$port" -t "$type" -n "$n" \
		-s "$size" -m "$msgs" -S "$port" $cx > "$tmp/c.out" 2> "$tmp/c.err"
	rc=$?
	if [ "$rc" != 0 ]; then
		mrc_fail "client to $peer port $port exited $rc:"
		mrc_show "$tmp/c.err"
		kill "$srv" 2> /dev/null
	fi
	server_end s || return 1
	[ "$rc" = 0 ] || return 1
	bytes "$size"
	same "$type" "$n" "$nbytes" "$tmp/s.out" "$tmp/c.out"
}

############################################################################

planes_1()
{
	add_planes 1 1 && transfer stream 2M 64K
}

planes_2()
{
	add_planes 2 2 && transfer stream 2M 64K
}

# tx_packets: the packets sent by veth1..veth4 of $A, one line each.
tx_packets()
{
	ip -n "$A" -s -j link show | jq -r '[.[] | select(.ifname |
		test("^veth[1-4]$"))] | sort_by(.ifname) | .[].stats64.tx.packets'
}

capturing()
{
	[ -e "$tmp/cap.err" ] && [[ "$(< "$tmp/cap.err")" == *"listening on"* ]]
}

gone()
{
	! kill -0 "$1" 2> /dev/null
}

# Four planes, with the packets counted per plane and the first $CAPTURE
# that plane 1 carries from $A to $B captured, for the two spraying cases
# that follow.  tcpdump stops by itself once it has them all: stopped
# earlier, it would lose what its ring still holds.
CAPTURE=300
planes_4()
{
	local rc=0 cap

	add_planes 3 4 || return 1
	rm -f "$tmp/cap.pcap" "$tmp/cap.err"
	ip netns exec "$B" tcpdump -i veth1 -nn -U -Z root -s 96 --immediate-mode \
		-c "$CAPTURE" -w "$tmp/cap.pcap" \
		"udp dst port 4793 and src host $(mrc_addr "$fam" 1 1)" 2> "$tmp/cap.err" &
	cap=$!
	mrc_wait_for 20 capturing || mrc_fail "tcpdump: $(< "$tmp/cap.err")" || rc=1
	mapfile -t tx_before < <(tx_packets)
	transfer stream 8M 64K || rc=1
	mapfile -t tx_after < <(tx_packets)
	mrc_wait_for 20 gone "$cap" || kill -INT "$cap" 2> /dev/null
	wait "$cap"
	return "$rc"
}

spray_planes()
{
	local i d total=0 deltas=()

	[ "${#tx_before[@]}" = 4 ] && [ "${#tx_after[@]}" = 4 ] ||
		mrc_fail "counters: '${tx_before[*]}' '${tx_after[*]}'" || return 1
	for i in 0 1 2 3; do
		deltas+=($((tx_after[i] - tx_before[i])))
		total=$((total + deltas[i]))
	done
	mrc_info "packets sent on planes 1-4: ${deltas[*]}"
	[ "$total" -ge 400 ] || mrc_fail "only $total packets" || return 1
	for d in "${deltas[@]}"; do
		# d / (total / 4) within [0.75, 1.25]
		[ $((400 * d)) -ge $((75 * total)) ] &&
			[ $((400 * d)) -le $((125 * total)) ] ||
			mrc_fail "uneven: ${deltas[*]} of $total" || return 1
	done
}

spray_ports()
{
	local src n=0
	local -A ports=()

	[ -s "$tmp/cap.pcap" ] || mrc_fail "nothing captured: $(< "$tmp/cap.err")" ||
		return 1
	while read -r _ _ src _; do
		ports[${src##*.}]=1
		n=$((n + 1))
	done < <(tcpdump -r "$tmp/cap.pcap" -nn 2> /dev/null)
	mrc_info "plane 1: $n packets from ${#ports[@]} UDP source ports"
	if [ "$n" != "$CAPTURE" ]; then
		mrc_fail "$n packets captured, not $CAPTURE:"
		mrc_show "$tmp/cap.err"
		return 1
	fi
	[ "${#ports[@]}" -ge "$EVS" ] ||
		mrc_fail "${#ports[@]} source ports, fewer than $EVS"
}

stream_0()
{
	transfer stream 0 64K
}

stream_1()
{
	transfer stream 1 64K
}

# Non-blocking, with poll(), on both ends.
stream_1m()
{
	sx=-P cx=-P transfer stream 1M 64K
}

stream_64m()
{
	sx="-T 400" cx="-T 400" transfer stream 64M 256K
}

seq_empty()
{
	sx="-r 0" transfer seqpacket 0 0
}

seq_boundaries()
{
	local sizes=1,1399,1400,1401,1500,9000

	sx="-r $sizes -v" transfer seqpacket 14701 "$sizes" || return 1
	mrc_expect "message sizes" "$(grep sizes "$tmp/s.out")" "conn 0 sizes ${sizes}"
}

seq_16m()
{
	sx="-r 16M -T 300" cx="-T 300" transfer seqpacket 16M 16M
}

# 64 connections at once: one client process per connection, a server
# that polls them all.
conns_64()
{
	conns=64 sx=-P transfer stream 128K 32K
}

# Three client processes, each dialling the server on another plane.
three_clients()
{
	local k rc=0 pids=()

	server_start s -n 3 || return 1
	for k in 1 2 3; do
		ip netns exec "$A" "$XFER" -c "$(mrc_addr "$fam" "$k" 2)" -p "$port" -s 1M \
			-S "$k" > "$tmp/c$k.out" 2> "$tmp/c$k.err" &
		pids+=($!)
	done
	for k in 1 2 3; do
		wait "${pids[k - 1]}" && continue
		rc=1
		mrc_fail "client $k:"
		mrc_show "$tmp/c$k.err"
	done
	[ "$rc" = 0 ] || kill "$srv" 2> /dev/null
	server_end s && [ "$rc" = 0 ] &&
		same stream 3 $((1 << 20)) "$tmp/s.out" "$tmp/c1.out" "$tmp/c2.out" "$tmp/c3.out"
}

planes_8()
{
	add_planes 5 8 && dial=8 transfer stream 2M 64K
}

# Nothing sent over 8 planes: the FIN is the first packet and draws the
# connection's 256 EVs, 16 KiB, with a FIN's allocation that must not
# fail (a kmalloc past 8 KiB, order 2, that must not fail is a warning).
planes_8_empty()
{
	dial=8 transfer stream 0 64K
}

# The native example of Documentation/man/mrc.7, tools/examples/mrc_echo.
example()
{
	local echo out pid

	echo=$(cd "$MRC_DIR" && pwd -P)/../../../../examples/mrc_echo
	[ -x "$echo" ] || mrc_fail "$echo not built (make examples)" || return 1
	port=$((port + 1))
	rm -f "$tmp/echo.out"
	ip netns exec "$B" "$echo" -l "$port" > "$tmp/echo.out" 2>&1 &
	pid=$!
	mrc_wait_for 30 mrc_server_ready "$tmp/echo.out" "$pid"
	mrc_said_ready "$tmp/echo.out" || mrc_fail "$(cat "$tmp/echo.out")" ||
		return 1
	out=$(ip netns exec "$A" "$echo" "$(mrc_addr "$fam" 2 2)" "$port" \
		"over $name" 2>&1)
	kill "$pid"
	wait "$pid" 2> /dev/null
	mrc_expect "the echo" "$out" "over $name"
}

family()
{
	tx_before=()
	tx_after=()
	if ! setup_family "$1"; then
		mrc_fail "cannot build the $1 topology"
	fi
	mrc_check "$name, 1 plane: 2 MiB stream, same SHA-256 at both ends" planes_1
	mrc_check "$name, 2 planes: 2 MiB stream" planes_2
	mrc_check "$name, 4 planes: 8 MiB stream" planes_4
	mrc_check "$name, 4 planes: each plane sent within 25% of an even share" spray_planes
	mrc_check "$name, 4 planes: at least $EVS UDP source ports on plane 1" spray_ports
	mrc_check "$name, stream of 0 B" stream_0
	mrc_check "$name, stream of 1 B" stream_1
	mrc_check "$name, stream of 1 MiB, non-blocking with poll() at both ends" stream_1m
	mrc_check "$name, stream of 64 MiB" stream_64m
	mrc_check "$name, seqpacket: a 0 B message" seq_empty
	mrc_check "$name, seqpacket: 1, 1399, 1400, 1401, 1500, 9000 B messages keep their boundaries" \
		seq_boundaries
	mrc_check "$name, seqpacket: a 16 MiB message" seq_16m
	mrc_check "$name, 64 connections at once" conns_64
	mrc_check "$name, one server, three client processes on three planes" three_clients
	mrc_check "$name, 8 planes: 2 MiB stream, dialled on plane 8" planes_8
	mrc_check "$name, 8 planes: stream of 0 B, dialled on plane 8" \
		planes_8_empty
	mrc_check "$name, the example mrc_echo, dialled on plane 2" example
	mrc_cleanup
}

family 4
family 6

mrc_finish
