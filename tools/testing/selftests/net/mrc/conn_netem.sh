#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# MRC connections over four planes that lose, reorder, duplicate and
# corrupt packets (netem on one plane or on all of them, both directions):
# streams and messages still arrive exactly once, in order, with the same
# SHA-256 at both ends and, for SOCK_SEQPACKET, every message's size kept.
# And the end of data never overtakes data: connections of three packets
# and a FIN, one plane 1 ms behind the others so that the FIN often comes
# first, each read by a server that never sleeps (non-blocking calls in a
# loop), get every byte before the end.  IPv4 and IPv6.

. "$(dirname "$0")/mrc_lib.sh"

mrc_require_root

mrc_need_mrcctl
mrc_need_bin mrc_xfer mrc_churn
mrc_need_cmd tc
XFER=$MRC_BIN/mrc_xfer
mrc_module_loaded || modprobe mrc || exit "$KSFT_FAIL"
mrc_need_mod sch_netem

mrc_plan 32

# Every transfer: 4 MiB, as a stream and as messages of these sizes.
SIZE=4M
SIZE_BYTES=$((4 << 20))
MSGS=1,1399,1400,1401,9000,65536
# Connections whose end races the reader, per socket type and family: in
# a run before the race was fixed, each of the four cases lost it within
# 3,600 connections.
EOF_CONNS=5000
[ "${MRC_DEBUG_KERNEL:-0}" = 1 ] && EOF_CONNS=1000

suffix=$(printf '%04x' $RANDOM)
tmp=$(mktemp -d)
port=6000

cleanup()
{
	mrc_kill_jobs
	mrc_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT

# Hosts $A and $B joined by veth1..veth4, pair K with 10.0.K.1 and
# 10.0.K.2 or fd00:K::1 and fd00:K::2, plane K of each host on vethK.
setup_family()
{
	fam=$1
	A=mrcn-$suffix-a$fam
	B=mrcn-$suffix-b$fam
	name=IPv$fam
	mrc_ns_add "$A" "$B" && mrc_link_hosts "$A" "$B" "$fam" 1 4 &&
		mrc_add_planes "$A" "$B" "$fam" 1 4
}

# netem PLANES [NETEM-ARG...]: netem with these arguments on both ends of
# each plane of the list, or none without arguments.
netem()
{
	local planes=$1 k cmds=()

	shift
	for k in $planes; do
		if [ "$#" = 0 ]; then
			cmds+=("qdisc del dev veth$k root")
		else
			cmds+=("qdisc replace dev veth$k root netem $*")
		fi
	done
	printf '%s\n' "${cmds[@]}" | tc -n "$A" -batch - &&
		printf '%s\n' "${cmds[@]}" | tc -n "$B" -batch -
}

# conn_line FILE TYPE: the first connection line of FILE as "BYTES MSGS
# SHA256", without MSGS for a stream (reads and writes need not match).
conn_line()
{
	local tag b bytes m msgs s hash

	while read -r tag _ b bytes m msgs s hash; do
		[ "$tag $b $m $s" = "conn bytes msgs sha256" ] || continue
		if [ "$2" = stream ]; then
			echo "$bytes $hash"
		else
			echo "$bytes $msgs $hash"
		fi
		return 0
	done < "$1"
}

# transfer TYPE: one connection from $A to $B over plane 1's address,
# $SIZE bytes; for seqpacket in messages of $MSGS sizes, which the server
# checks.  Both ends must agree on bytes, messages and SHA-256.
transfer()
{
	local type=$1 peer srv rc src check=() c s

	peer=$(mrc_addr "$fam" 1 2)

	[ "$type" = seqpacket ] && check=(-r "$MSGS" -s "$SIZE")
	port=$((port + 1))
	rm -f "$tmp/s.out" "$tmp/s.err"
	ip netns exec "$B" "$XFER" -l -p "$port" -t "$type" "${check[@]}" \
		> "$tmp/s.out" 2> "$tmp/s.err" &
	srv=$!
	mrc_wait_for 30 mrc_server_ready "$tmp/s.out" "$srv"
	if ! mrc_said_ready "$tmp/s.out"; then
		kill "$srv" 2> /dev/null
		wait "$srv"
		mrc_fail "server did not start:"
		mrc_show "$tmp/s.err"
		return 1
	fi
	ip netns exec "$A" "$XFER" -c "$peer" -p "$port" -t "$type" -s "$SIZE" \
		-m "$MSGS" -S "$port" > "$tmp/c.out" 2> "$tmp/c.err"
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
	c=$(conn_line "$tmp/c.out" "$type")
	s=$(conn_line "$tmp/s.out" "$type")
	mrc_expect "received (bytes, messages, sha256)" "$s" "$c" &&
		mrc_expect "bytes sent" "${c%% *}" "$SIZE_BYTES"
}

# netem_stats NS: packets that NS's netem qdiscs sent and dropped, in
# $sent and $dropped.
netem_stats()
{
	local out line netem=0 re='Sent [0-9]+ bytes ([0-9]+) pkt \(dropped ([0-9]+)'

	sent=0
	dropped=0
	out=$(tc -n "$1" -s qdisc show) || return 1
	while read -r line; do
		case "$line" in
		"qdisc netem "*) netem=1 ;;
		"qdisc "*) netem=0 ;;
		esac
		if [ "$netem" = 1 ] && [[ "$line" =~ $re ]]; then
			sent=$((sent + BASH_REMATCH[1]))
			dropped=$((dropped + BASH_REMATCH[2]))
		fi
	done <<< "$out"
}

# impaired PLANES NETEM-ARGS TYPE: a transfer while netem has PLANES; netem
# must have seen the data, and dropped some of it at 10% loss.  The
# qdiscs serve both socket types, set up for the stream (or the first
# case that could) and removed after the seqpacket or a failure; each
# case counts what they sent and dropped during its own transfer, from
# the totals in $netem_sent and $netem_dropped.
impaired()
{
	local planes=$1 args=$2 rc sent dropped

	if [ -z "$netem_on" ]; then
		# shellcheck disable=SC2086 # $args is a list of arguments
		netem "$planes" $args || return 1
		netem_on=1
		netem_sent=0
		netem_dropped=0
	fi
	transfer "$3"
	rc=$?
	if netem_stats "$A"; then
		sent=$((sent - netem_sent))
		dropped=$((dropped - netem_dropped))
		netem_sent=$((netem_sent + sent))
		netem_dropped=$((netem_dropped + dropped))
		mrc_info "netem ($args) on $A: $sent packets sent, $dropped dropped"
		[ "$sent" -ge 100 ] || mrc_fail "netem saw $sent packets" || rc=1
		[ "$args" != "loss 10%" ] || [ "$dropped" -gt 0 ] ||
			mrc_fail "netem dropped nothing" || rc=1
	else
		rc=1
	fi
	# After a failure, the next case counts from fresh qdiscs.
	if [ "$3" = seqpacket ] || [ "$rc" != 0 ]; then
		netem "$planes" || rc=1
		netem_on=
	fi
	return "$rc"
}

# check DESCRIPTION PLANES NETEM-ARGS: one case per socket type.
check()
{
	local type

	netem_on=
	for type in stream seqpacket; do
		mrc_check "$name, $1, $type" impaired "$2" "$3" "$type"
	done
}

# eof TYPE: $EOF_CONNS connections of 3,000 bytes (messages of 1,000) while
# plane 2 is 1 ms behind, read without sleeping to their end.
eof()
{
	local rc=0

	netem 2 delay 1ms || return 1
	"$MRC_BIN/mrc_churn" eof -c "$A" -s "$B" -a "$(mrc_addr "$fam" 1 2)" \
		-t "$1" -n "$EOF_CONNS" > "$tmp/eof.out" 2> "$tmp/eof.err" || rc=1
	mrc_show "$tmp/eof.out"
	[ "$rc" = 0 ] || mrc_fail "mrc_churn eof:" || mrc_show "$tmp/eof.err"
	netem 2 || rc=1
	return "$rc"
}

family()
{
	setup_family "$1" || mrc_fail "cannot build the $1 topology"
	check "1% loss on plane 1" 1 "loss 1%"
	check "1% loss on all planes" "1 2 3 4" "loss 1%"
	check "10% loss on plane 1" 1 "loss 10%"
	check "10% loss on all planes" "1 2 3 4" "loss 10%"
	check "25% reordered, 1 ms delay, all planes" "1 2 3 4" \
		"delay 1ms reorder 25% 50%"
	check "5% duplicated on all planes" "1 2 3 4" "duplicate 5%"
	check "1% corrupted on all planes" "1 2 3 4" "corrupt 1%"
	for type in stream seqpacket; do
		mrc_check "$name, the end races a reader that never sleeps, $type" \
			eof "$type"
	done
	mrc_cleanup
}

family 4
family 6

mrc_finish
