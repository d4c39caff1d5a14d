#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Windows past 1,024 packets: a connection's rings, and so the packets it
# keeps in flight, follow the socket buffers.  Over one plane with a round
# trip of $RTT_MS ms (netem), a stream between two hosts:
# - with the default buffers (rings of 1,024), at most 1,024 packets are in
#   flight at any time (and half of that at least once: the window was
#   seen);
# - with buffers of $BUF_MIB MiB at both ends (SO_SNDBUF and SO_RCVBUF
#   before connect() and listen()), more than 1,024 are, at some time
#   (and once they were, the client stops sending);
# - with the large buffers at the sender only, the receiver's first window
#   still bounds the sender's ring: at most 1,024 again;
# - with the large buffers at both ends and a bottleneck of $RATE_MBIT
#   Mbit/s with $QUEUE_MS ms of queue (tbf), slow start overflows the
#   queue, which drops packets of every EV across a window of thousands:
#   the sender finds those losses by the SACK blocks (the first of each
#   ACK tells the run of the packet it answers, so every packet the peer
#   holds is told, however many holes lie below), not by timeouts that
#   took the silence of untold packets for a dead path and cut the window
#   to its floor; and it retires no more than a few EVs, where it retired
#   each EV a drop hit (34 to 54 in a run of 10 s at 200 ms).  The
#   client stops sending once the drops are over (no resend for 2 s), and
#   the counters take in what its send buffer still held.
# A client that stops sends no more after the write under way, and what
# it sent must arrive all the same.  Every stream arrives whole, with the
# same SHA-256.  IPv4 and IPv6.

. "$(dirname "$0")/mrc_lib.sh"

mrc_require_root

mrc_need_mrcctl
mrc_need_bin mrc_xfer
mrc_need_cmd tc
XFER=$MRC_BIN/mrc_xfer
mrc_module_loaded || modprobe mrc || exit "$KSFT_FAIL"
mrc_need_mod sch_netem

mrc_plan 8

# The path's round trip, half of it each way.  At the rate this guest
# moves data through netem (100 Mbit/s or more), it holds 1,700 packets or
# more, and a window of 1,024 leaves some of it empty.
RTT_MS=200
BUF_MIB=16
RING_MIN=1024
# Enough for a window of 1,024 to be full for a few round trips, and
# enough for a larger one to grow past it (slow start, 6 round trips).
SIZE=16M
SIZE_LARGE=48M
# The bottleneck of the last case: a queue of a tenth of the round trip,
# short enough for slow start to overflow it.
RATE_MBIT=100
QUEUE_MS=20
# How long the sender of the last case must resend nothing for its losses
# to be over: ten round trips, and twice the 1 s that bounds the backoff
# of a timeout.
QUIET_MS=2000

suffix=$(printf '%04x' $RANDOM)
tmp=$(mktemp -d)
port=6000
rmem_max=$(sysctl -n net.core.rmem_max)
wmem_max=$(sysctl -n net.core.wmem_max)
backlog=$(sysctl -n net.core.netdev_max_backlog)

cleanup()
{
	mrc_kill_jobs
	mrc_cleanup
	sysctl -qw net.core.rmem_max="$rmem_max" net.core.wmem_max="$wmem_max" \
		net.core.netdev_max_backlog="$backlog"
	rm -rf "$tmp"
}
trap cleanup EXIT

# SO_SNDBUF and SO_RCVBUF of $BUF_MIB MiB take limits this high.  The
# receiving CPU's backlog takes a burst of a window past 1,024 (netem lets
# a window's worth go at once, and a drop there cuts the window before it
# grows past the rings of the default buffers).
sysctl -qw net.core.rmem_max=$((BUF_MIB << 20)) \
	net.core.wmem_max=$((BUF_MIB << 20)) \
	net.core.netdev_max_backlog=16384 ||
	mrc_fail "cannot raise net.core.rmem_max, wmem_max and netdev_max_backlog"

# Hosts $A and $B on veth1, plane 1 of each, a round trip of $RTT_MS ms.
# The sender's window starts at 512 packets (net.mrc.init_cwnd; a burst
# of more may overflow the receiving CPU's backlog of 1,000) and
# answers losses only (net.mrc.target_delay_us 0): slow start then runs
# until the ring stops it, whatever the jitter of this host's round trips
# (with the delay's exit, runs in the whole suite left the window at
# 195-296 packets), and the rings are what is tested.
setup_family()
{
	local half=$((RTT_MS / 2))

	fam=$1
	A=mrcw-$suffix-a$fam
	B=mrcw-$suffix-b$fam
	name=IPv$fam
	mrc_ns_add "$A" "$B" && mrc_link_hosts "$A" "$B" "$fam" 1 1 &&
		mrc_add_planes "$A" "$B" "$fam" 1 1 &&
		ip netns exec "$A" sysctl -qw net.mrc.target_delay_us=0 \
			net.mrc.init_cwnd=$((RING_MIN / 2)) &&
		tc -n "$A" qdisc add dev veth1 root netem delay "${half}ms" \
			limit 100000 &&
		tc -n "$B" qdisc add dev veth1 root netem delay "${half}ms" \
			limit 100000 &&
		in_order "$A" && in_order "$B"
}

# in_order NS: what NS's veth1 receives is taken in by one CPU.  Packets
# that netem lets go on both vCPUs otherwise wait in two CPUs' backlogs,
# and those of one may pass those of the other by tens of milliseconds in
# this guest: a reordering that the sender takes for losses, whose cuts
# kept the window below 1,024 in one run of four.
in_order()
{
	ip netns exec "$1" sh -c 'echo 1 > /sys/class/net/veth1/queues/rx-0/rps_cpus'
}

# sample: a look at $A's connections (mrcctl -s conn show, as text: jq
# after it took 0.3 s a sample under QEMU without acceleration).  The most
# packets in flight on one of them (the sum over its planes) raises
# $peak; the packets that the transfer's own (to $port) resent are in
# $retx, and when that last grew, in microseconds, in $retx_at.
sample()
{
	local w i n=-1 mine=0 got=

	while read -r -a w; do
		case ${w[0]} in
		conn)
			[ "$n" -le "$peak" ] || peak=$n
			n=0
			mine=0
			for ((i = 1; i < ${#w[@]}; i++)); do
				[[ ${w[i]} == *":$port" ]] && mine=1
			done
			;;
		tx)
			# The connection's counters, on the line after it.
			for ((i = 1; i + 1 < ${#w[@]}; i++)); do
				[ "$mine" = 1 ] && [ "${w[i]}" = retx ] &&
					got=${w[i + 1]}
			done
			;;
		plane)
			for ((i = 2; i + 1 < ${#w[@]}; i++)); do
				[ "${w[i]}" = inflight ] && n=$((n + w[i + 1]))
			done
			;;
		esac
	done < <("$MRCCTL" -n "$A" -s conn show 2> /dev/null)
	[ "$n" -le "$peak" ] || peak=$n
	if [ -n "$got" ] && [ "$got" != "$retx" ]; then
		retx=$got
		retx_at=${EPOCHREALTIME/[.,]/}
	fi
}

# transfer CLIENT_BUF SERVER_BUF SIZE [ENOUGH]: a stream of SIZE from $A
# to $B, the sockets' buffers set to these (0: the defaults), in flight
# sampled all along; the most in $peak.  With ENOUGH, a command run after
# each sample: once it succeeds, the client stops sending after the write
# under way (mrc_xfer's SIGUSR1), the rest of the stream proving nothing
# more.  Both ends must agree on bytes and SHA-256.
transfer()
{
	local cbuf=() sbuf=() srv cli rc src c s stopped=

	[ "$1" = 0 ] || cbuf=(-b "$1")
	[ "$2" = 0 ] || sbuf=(-b "$2")
	port=$((port + 1))
	rm -f "$tmp/s.out"
	ip netns exec "$B" "$XFER" -l -p "$port" "${sbuf[@]}" \
		> "$tmp/s.out" 2> "$tmp/s.err" &
	srv=$!
	mrc_wait_for 30 mrc_server_ready "$tmp/s.out" "$srv"
	if ! mrc_said_ready "$tmp/s.out"; then
		kill "$srv" 2> /dev/null
		wait "$srv"
		mrc_fail "server did not start: $(cat "$tmp/s.err")"
		return 1
	fi
	ip netns exec "$A" "$XFER" -c "$(mrc_addr "$fam" 1 2)" -p "$port" \
		-s "$3" -S "$port" "${cbuf[@]}" \
		> "$tmp/c.out" 2> "$tmp/c.err" &
	cli=$!
	# Until the server read the end: a client whose stream fits in its
	# send buffer closes at once, and its connection sends on.
	peak=0
	retx=0
	retx_at=${EPOCHREALTIME/[.,]/}
	while kill -0 "$srv" 2> /dev/null; do
		sample
		if [ -n "$4" ] && [ -z "$stopped" ] && "$4"; then
			# Not waited for yet, the client keeps its pid.
			kill -USR1 "$cli" 2> /dev/null
			stopped=1
		fi
		sleep 0.2
	done
	wait "$cli"
	rc=$?
	[ "$rc" = 0 ] || kill "$srv" 2> /dev/null
	wait "$srv"
	src=$?
	mrc_info "$name: buffers $1 and $2: at most $peak packets in flight"
	if [ "$rc" != 0 ] || [ "$src" != 0 ]; then
		mrc_fail "client exited $rc, server $src:"
		mrc_show "$tmp/c.err"
		mrc_show "$tmp/s.err"
		return 1
	fi
	c=$(awk '$1 == "conn" { print $4, $8 }' "$tmp/c.out")
	s=$(awk '$1 == "conn" { print $4, $8 }' "$tmp/s.out")
	[ -z "$stopped" ] ||
		mrc_info "$name: stopped by $4 after ${c%% *} bytes of $3"
	mrc_expect "received (bytes, sha256)" "$s" "$c" && [ -n "$c" ]
}

# bounded: the window was seen full, $RING_MIN packets or nearly, and
# never more.
bounded()
{
	[ "$peak" -le "$RING_MIN" ] ||
		mrc_fail "$peak packets in flight, more than $RING_MIN" || return 1
	[ "$peak" -ge $((RING_MIN / 2)) ] ||
		mrc_fail "at most $peak packets in flight: the transfer was not seen"
}

# default_window: rings of $RING_MIN, never more in flight.
default_window()
{
	transfer 0 0 "$SIZE" && bounded
}

# past_ring: more than $RING_MIN packets were seen in flight.
past_ring()
{
	[ "$peak" -gt "$RING_MIN" ]
}

# large_window: large buffers at both ends, more than $RING_MIN in flight
# (the stream stops once they were).
large_window()
{
	mrc_stats_delta "$A" "$tmp" > /dev/null || return 1
	transfer $((BUF_MIB << 20)) $((BUF_MIB << 20)) "$SIZE_LARGE" past_ring ||
		return 1
	[ "$peak" -gt "$RING_MIN" ] && return 0
	mrc_stats_delta "$A" "$tmp" > "$tmp/stats"
	mrc_fail "at most $peak packets in flight, not more than $RING_MIN;" \
		"$(grep -E '^(LossGap|LossOtherEv|LossTimeout|LossSilence) ' "$tmp/stats" |
		tr -s ' \n' '  ')"
}

# receiver_bounds: the receiver's default buffer bounds the window.
receiver_bounds()
{
	transfer $((BUF_MIB << 20)) 0 "$SIZE" && bounded
}

# losses_over: the queue overflowed (the tbf dropped packets), the sender
# resent packets, and none for $QUIET_MS ms.  Slow start's overflow and
# its recovery are over: the window, cut to half the pipe and its queue
# or less, grows by a packet a round trip from there (no target delay),
# hundreds of round trips from overflowing the queue again, and the rest
# of a stream sized for any machine's pace only waits for it.
losses_over()
{
	local line tbf=0 re='\(dropped ([0-9]+)'

	[ "$retx" -gt 0 ] &&
		[ $((${EPOCHREALTIME/[.,]/} - retx_at)) -ge $((QUIET_MS * 1000)) ] ||
		return 1
	while read -r line; do
		case $line in
		"qdisc tbf "*) tbf=1 ;;
		"qdisc "*) tbf=0 ;;
		esac
		[ "$tbf" = 1 ] && [[ $line =~ $re ]] &&
			[ "${BASH_REMATCH[1]}" -gt 0 ] && return 0
	done < <(tc -s -n "$A" qdisc show dev veth1)
	return 1
}

# overflow: large buffers at both ends through a short queue at
# $RATE_MBIT Mbit/s; losses found by gaps, hardly any by timeouts, and
# hardly any EV retired: counted from the start to the end of the stream,
# which stops once losses_over, and then still sends what the send
# buffer holds.
overflow()
{
	local gap timeout silence retired half=$((RTT_MS / 2)) rc=0

	tc -n "$A" qdisc replace dev veth1 root handle 1: netem \
		delay "${half}ms" limit 100000 &&
		tc -n "$A" qdisc add dev veth1 parent 1:1 handle 10: tbf \
			rate "${RATE_MBIT}mbit" burst 32k latency "${QUEUE_MS}ms" ||
		mrc_fail "cannot add tbf" || return 1
	mrc_stats_delta "$A" "$tmp" > /dev/null || return 1
	transfer $((BUF_MIB << 20)) $((BUF_MIB << 20)) "$SIZE_LARGE" \
		losses_over || rc=1
	mrc_stats_delta "$A" "$tmp" > "$tmp/stats" || return 1
	# Outrun by a later packet of its own EV, or of another of the plane.
	gap=$(($(mrc_stat LossGap "$tmp/stats") + $(mrc_stat LossOtherEv "$tmp/stats")))
	timeout=$(mrc_stat LossTimeout "$tmp/stats")
	silence=$(mrc_stat LossSilence "$tmp/stats")
	retired=$(mrc_stat EvRetired "$tmp/stats")
	mrc_info "$name: $gap losses found by gaps, $timeout by timeouts" \
		"($silence in a silence of every path), $retired EVs retired;" \
		"the queue: $(tc -s -n "$A" qdisc show \
		dev veth1 | awk '/^qdisc tbf/ { getline; print }')"
	[ "$gap" -gt 0 ] ||
		mrc_fail "no loss: the queue did not overflow" || rc=1
	# A timeout now and then may cost a few.  Those of a stall of this
	# guest, every path silent at once, are LossSilence's: a pause of
	# the guest's vCPUs for half a second under this transfer had 70 to
	# 250 packets time out together, and their answers came right after.
	[ $((10 * timeout)) -le "$gap" ] ||
		mrc_fail "$timeout losses found by timeouts, $gap by gaps" || rc=1
	[ "$retired" -lt 8 ] ||
		mrc_fail "$retired EVs retired for a queue's drops" || rc=1
	return "$rc"
}

for fam in 4 6; do
	if ! setup_family "$fam"; then
		for _ in 1 2 3 4; do
			mrc_result fail "IPv$fam: setup"
		done
		continue
	fi
	mrc_check "$name: default buffers: at most $RING_MIN packets in flight, same SHA-256" \
		default_window
	mrc_check "$name: $BUF_MIB MiB buffers: more than $RING_MIN packets in flight, same SHA-256" \
		large_window
	mrc_check "$name: $BUF_MIB MiB at the sender only: at most $RING_MIN in flight, same SHA-256" \
		receiver_bounds
	mrc_check "$name: $BUF_MIB MiB buffers, a queue of $QUEUE_MS ms overflowed: losses found by SACK, not timeouts" \
		overflow
	mrc_cleanup
done

mrc_finish
