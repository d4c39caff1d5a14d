#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# MRC under congestion, with 32 MiB streams that must arrive whole (the
# same SHA-256 at both ends):
#
# - ECN: plane 1 of four goes through a slow RED qdisc that marks CE; the
#   sender hears of the marks (ce_marks), keeps plane 1's congestion window
#   the smallest (median over the transfer) and gives plane 1 a smaller
#   share of the packets than each other plane.
# - Trimming: a tc program (mrc_trim.bpf.o) cuts the payload off one DATA
#   packet in 16 arriving on plane 2, as a trimming switch would; the
#   receiver answers with NACKs, the sender resends at once, and takes
#   the trims for congestion, not for broken paths: plane 2's congestion
#   window is the smallest, and it retires no more EVs than another plane.
#   IPv4 on plane 2 of four, IPv6 on plane 2 of two.  The sender computes
#   no checksum on that plane (tx checksumming off), so the receiver checks
#   every one, the trimmed ones included.
# - A long link: one plane with 10 ms of delay and a rate limit (half of
#   what the plane carries here without one, in Mbit/s, at most 100,
#   over a buffer of four bandwidth-delay products and at least
#   16 KiB) runs at 80% of the limit or more, and its slow start ends
#   before the buffer overflows by more than half of it.
# - A short queue: the long link's plane without its delay, a tbf at the
#   same rate over a buffer of 100 ms, and twice a stream that lasts about
#   7 s at that rate, the tbf's backlog sampled five times a second from
#   2 s on (as a time: bytes * 8 / rate).  With net.mrc.target_delay_us 0
#   on the sender (loss- and ECN-driven only) the median queue is four
#   times the target of the second round or more: the stream fills the
#   buffer, and the measure tells a full queue from a short one.  With
#   4000 us the median queue is at most twice that, and the stream still
#   runs at 80% of the rate or more (a window cut to nothing keeps no
#   queue either).  The sysctl is set back to its default, 2000, after each.
# - Mixed delays: two planes, one plain veth (tens of microseconds) and one
#   with a 5 ms round trip: the slow plane still carries its share of the
#   packets, and the connection is not held back by it: at least half the
#   rate of the plain plane alone, with no gap in delivery longer than
#   250 ms (the receiver's longest stall).
# - A slow link: two IPv6 planes whose DATA waits in a deep queue at
#   512 kbit/s while acknowledgments and probes pass first, as control
#   traffic does in many networks.  A full packet takes 23 ms to go out,
#   longer than the timeout the handshake's round trip suggests, so the
#   first copies of the first packets arrive after they were resent: the
#   sender learns the round trip from them, resends at most 10% of what
#   it sends, and the stream runs at half the rate of the two planes or
#   more (it used to resend nearly every packet, forever).
# - A slow peer: two IPv4 planes whose acknowledgments take 1.5 s to come
#   back (netem on the receiver's side), a round trip longer than the
#   1 s that bounds the backoff: the sender measures it and waits for it,
#   resending at most 10% of what it sends (with its timeout held under
#   1 s, it resent every packet and retired every EV), and no plane
#   retires an EV: the plane the handshake did not cross starts from the
#   handshake's round trip, not from 20 ms.
#
# The per-plane figures come from "mrcctl -j -s conn show" on the sender,
# polled during each transfer (the connection is gone once it is over),
# and for the slow peer until its last acknowledgments can have come.

. "$(dirname "$0")/mrc_lib.sh"

mrc_require_root

mrc_need_mrcctl
mrc_need_bin mrc_xfer
mrc_need_cmd jq tc ethtool
XFER=$MRC_BIN/mrc_xfer
TRIM=$MRC_BIN/mrc_trim.bpf.o
if [ ! -e "$TRIM" ]; then
	echo "# SKIP: mrc_trim.bpf.o not built (or set MRC_BIN)"
	exit "$KSFT_SKIP"
fi
mrc_module_loaded || modprobe mrc || exit "$KSFT_FAIL"
mrc_need_mod sch_tbf sch_red sch_netem sch_ingress cls_bpf

mrc_plan 33

# Bytes per transfer, and for the measure of a plane without a limit.
SIZE=$((32 << 20))
BASE_SIZE=$((8 << 20))
# Plane 1's rate in the ECN case, in Mbit/s: a fraction of what each
# plane carries here even under QEMU without acceleration.
ECN_RATE=5
# EV retirements plane 2 may have beyond the most of another plane's
# while it is trimmed (see trim_retirements).
TRIM_RETIRE_SLACK=8
# The long link: one-way delay, and the floor on the rate reached.  The
# delay makes the bandwidth-delay product about the initial window
# (32 packets) where this machine's plane is slow: with 5 ms at 18 Mbit/s
# the first window alone filled half the buffer, and slow start, which
# ends on 8 samples of a queue in a row, overflowed it by 30 packets.
DELAY_MS=10
FLOOR_PCT=80
# Mixed delays: the slow plane's one-way delay; the floors on its share of
# the packets and on the rate, against the plain plane alone; the longest
# stall allowed.
MIXED_DELAY_US=2500
MIXED_SHARE_PCT=2
MIXED_RATE_PCT=50
MIXED_STALL_MS=250
# The slow link: its rate and queue (4.5 s deep), the stream's size, the
# most that may be resent and the floor on the rate, in percent.
SLOW_RATE_KBIT=512
SLOW_LIMIT=200
SLOW_SIZE=$((2 << 20))
SLOW_RESENT_PCT=10
SLOW_RATE_PCT=50
# The slow peer: how long its acknowledgments take, the stream's size and
# the most that may be resent, in percent.
LAZY_DELAY_MS=1500
LAZY_SIZE=$((1 << 20))
LAZY_RESENT_PCT=10
# The short queue: the target of the second round and the default, in us;
# the buffer, in ms at the rate; how long a stream lasts at the rate and
# how long it runs before the backlog is sampled, in seconds; the floor on
# the first round's median queue and the ceiling on the second's, in
# targets; the floor on the second round's rate, in percent.
QUEUE_TARGET_US=4000
QUEUE_DEFAULT_US=2000
QUEUE_BUFFER_MS=100
QUEUE_SECONDS=7
QUEUE_SKIP_S=2
QUEUE_FULL_X=4
QUEUE_SHORT_X=2
QUEUE_RATE_PCT=80

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

# hosts A B FAMILY COUNT: hosts A and B joined by veth1..vethCOUNT, pair K
# with 10.0.K.1 and 10.0.K.2 or fd00:K::1 and fd00:K::2, and plane K of
# each host on vethK.
hosts()
{
	mrc_ns_add "$1" "$2" && mrc_link_hosts "$1" "$2" "$3" 1 "$4" &&
		mrc_add_planes "$1" "$2" "$3" 1 "$4"
}

# poll_conn NS PORT FILE: until killed, add to FILE each connection list of
# NS (mrcctl -j -s) that holds a connection to PORT, ten times a second.
poll_conn()
{
	local out

	while :; do
		out=$("$MRCCTL" -n "$1" -j -s conn show 2> /dev/null)
		if [[ "$out" == *"\"peer_port\":$2"[,\}]* ]]; then
			printf '%s\n' "$out" >> "$3"
		fi
		sleep 0.1
	done
}

# conn_line FILE: "BYTES SHA256" of the first connection line in FILE.
conn_line()
{
	local tag b bytes m s hash

	while read -r tag _ b bytes m _ s hash _; do
		if [ "$tag $b $m $s" = "conn bytes msgs sha256" ]; then
			echo "$bytes $hash"
			return
		fi
	done < "$1"
}

# xfer NAME SIZE PEER [SECONDS]: a stream of SIZE bytes from $A to PEER, on
# a port of its own, timed until the client is done in $elapsed_ns and
# until the server has it all in $done_ns, that fails after SECONDS
# (default 120).  The sender's connection as mrcctl showed
# it during the transfer, its planes sorted by id: every sample, one a
# line, in $tmp/NAME.samples, and the last in $tmp/NAME.json.  Both ends
# must see the same bytes.  With $linger set, mrcctl is still polled for
# that many seconds after the server has it all: the acknowledgments of a
# slow peer come back that long after.
xfer()
{
	local name=$1 size=$2 peer=$3 limit=${4:-120} t0 t1 rc src poller c s

	port=$((port + 1))
	rm -f "$tmp/$name".*
	ip netns exec "$B" "$XFER" -l -p "$port" -g -T "$limit" > "$tmp/$name.s" \
		2> "$tmp/$name.serr" &
	srv=$!
	mrc_wait_for 30 mrc_server_ready "$tmp/$name.s" "$srv"
	if ! mrc_said_ready "$tmp/$name.s"; then
		kill "$srv" 2> /dev/null
		wait "$srv"
		mrc_fail "server did not start:"
		mrc_show "$tmp/$name.serr"
		return 1
	fi
	poll_conn "$A" "$port" "$tmp/$name.all" &
	poller=$!
	t0=$(date +%s%N)
	ip netns exec "$A" "$XFER" -c "$peer" -p "$port" -s "$size" -S "$port" \
		-T "$limit" > "$tmp/$name.c" 2> "$tmp/$name.cerr"
	rc=$?
	t1=$(date +%s%N)
	elapsed_ns=$((t1 - t0))
	[ "$rc" = 0 ] || kill "$srv" 2> /dev/null
	wait "$srv"
	src=$?
	# Until the server read the end: a transfer that fits in the send
	# buffer is still under way when the client exits.
	done_ns=$(($(date +%s%N) - t0))
	[ -z "${linger:-}" ] || sleep "$linger"
	kill "$poller" 2> /dev/null
	wait "$poller" 2> /dev/null
	if [ -e "$tmp/$name.all" ]; then
		jq -c --argjson p "$port" \
			'.[] | select(.peer_port == $p) | .planes |= sort_by(.id)' \
			"$tmp/$name.all" > "$tmp/$name.samples"
		tail -n 1 "$tmp/$name.samples" > "$tmp/$name.json"
	fi
	if [ "$rc" != 0 ] || [ "$src" != 0 ]; then
		mrc_fail "client exited $rc, server $src:"
		mrc_show "$tmp/$name.cerr"
		mrc_show "$tmp/$name.serr"
		return 1
	fi
	mrc_info "$name: $size bytes in $((elapsed_ns / 1000000)) ms"
	c=$(conn_line "$tmp/$name.c")
	s=$(conn_line "$tmp/$name.s")
	mrc_expect "received (bytes, sha256)" "$s" "$c" &&
		mrc_expect "bytes sent" "${c%% *}" "$size"
}

# The figures of each plane that figures shows.
FIGURES="tx_packets retransmits retirements ce_marks nacks cwnd srtt_us"

# summary NAME: the figures of transfer NAME, in $tmp/NAME.fields, made
# once by one jq (a jq for each figure took 0.3 s under QEMU without
# acceleration, 3 s a transfer's figures): "connection" and the packets
# sent, resent and the timeouts of the last sample; each of $FIGURES and
# its value on each plane in the last sample, in plane order; "samples"
# and how many there were; and "median_cwnd" and each plane's median
# congestion window over them.
summary()
{
	[ -s "$tmp/$1.fields" ] && return 0
	jq -s -r --arg f "$FIGURES" '
		last as $l |
		"connection \($l.tx_packets) \($l.retransmits) \($l.timeouts)",
		(($f | split(" ") | .[]) as $k |
			"\($k) \([$l.planes[] | .[$k] | tostring] | join(" "))"),
		"samples \(length)",
		"median_cwnd \([[.[].planes | map(.cwnd)] | transpose[] | sort |
			.[length / 2 | floor] | tostring] | join(" "))"' \
		"$tmp/$1.samples" > "$tmp/$1.fields" && return 0
	rm -f "$tmp/$1.fields"
	mrc_fail "jq could not read the samples of $1"
}

# figure NAME KEY: the values of line KEY of the figures of transfer NAME
# (see summary), in the array $stats.
figure()
{
	local w

	stats=()
	[ -s "$tmp/$1.json" ] && [ -s "$tmp/$1.samples" ] ||
		mrc_fail "mrcctl never showed the connection" || return 1
	summary "$1" || return 1
	while read -r -a w; do
		if [ "${w[0]}" = "$2" ]; then
			stats=("${w[@]:1}")
			return 0
		fi
	done < "$tmp/$1.fields"
	mrc_fail "no $2 in the figures of $1"
}

# plane_stats NAME FIELD: FIELD (one of $FIGURES) of each plane of
# transfer NAME's connection, in plane order, in the array $stats.
plane_stats()
{
	figure "$1" "$2"
}

# cwnd_medians NAME: the median congestion window of each plane over the
# samples of transfer NAME, in plane order, in the array $stats; how many
# samples in $samples.
cwnd_medians()
{
	figure "$1" samples || return 1
	samples=${stats[0]}
	figure "$1" median_cwnd
}

# figures NAME: the figures of transfer NAME's connection, by plane.
figures()
{
	local w n

	[ -s "$tmp/$1.json" ] && [ -s "$tmp/$1.samples" ] && summary "$1" ||
		return 0
	while read -r -a w; do
		case ${w[0]} in
		connection)
			mrc_info "  connection: ${w[1]} packets sent, ${w[2]} resent, ${w[3]} timeouts"
			;;
		samples)
			n=${w[1]}
			;;
		median_cwnd)
			mrc_info "  median cwnd over $n samples: ${w[*]:1}"
			;;
		*)
			mrc_info "  ${w[0]}: ${w[*]:1}"
			;;
		esac
	done < "$tmp/$1.fields"
}

# cwnd_smallest NAME K: plane K's median congestion window over transfer
# NAME is smaller than every other plane's.
cwnd_smallest()
{
	local i samples

	cwnd_medians "$1" || return 1
	mrc_info "median cwnd per plane over $samples samples: ${stats[*]}"
	for i in "${!stats[@]}"; do
		[ "$i" = $(($2 - 1)) ] || [ "${stats[$2 - 1]}" -lt "${stats[i]}" ] ||
			mrc_fail "plane $2: ${stats[$2 - 1]}, plane $((i + 1)): ${stats[i]}" ||
			return 1
	done
}

# csum_errors NS: UDP and UDPv6 checksum errors that NS counted.
csum_errors()
{
	ip netns exec "$1" awk '
		$1 == "Udp:" && $2 != "InDatagrams" { n += $8 }
		$1 == "Udp6InCsumErrors" { n += $2 }
		END { print n + 0 }' /proc/net/snmp /proc/net/snmp6
}

############################################################################
# ECN on plane 1 of four

ecn_transfer()
{
	tc -n "$A" qdisc add dev veth1 root handle 1: tbf rate "${ECN_RATE}mbit" \
		burst 16k latency 100ms &&
		tc -n "$A" qdisc add dev veth1 parent 1:1 handle 10: red \
			limit 200000 min 6000 max 18000 avpkt 1500 burst 7 \
			bandwidth "${ECN_RATE}mbit" probability 0.5 ecn ||
		return 1
	xfer ecn "$SIZE" 10.0.1.2
}

ecn_marks()
{
	local marked

	marked=$(tc -n "$A" -s qdisc show dev veth1 | awk '$1 == "marked" { print $2 }')
	plane_stats ecn ce_marks || return 1
	mrc_info "RED marked ${marked:-?} packets; CE marks heard per plane: ${stats[*]}"
	[ "${marked:-0}" -gt 0 ] || mrc_fail "RED marked nothing: $(tc -n "$A" -s qdisc show dev veth1)" ||
		return 1
	[ "${stats[0]}" -gt 0 ] || mrc_fail "no CE mark heard on plane 1"
}

ecn_share()
{
	local k total=0 pct=()

	plane_stats ecn tx_packets || return 1
	for k in 0 1 2 3; do
		total=$((total + stats[k]))
	done
	[ "$total" -gt 0 ] || mrc_fail "no packets sent" || return 1
	for k in 0 1 2 3; do
		pct+=("$((100 * stats[k] / total))%")
	done
	mrc_info "packets sent on planes 1-4: ${stats[*]} (${pct[*]})"
	figures ecn
	for k in 1 2 3; do
		[ "${stats[0]}" -lt "${stats[k]}" ] ||
			mrc_fail "plane 1 sent ${stats[0]}, plane $((k + 1)) ${stats[k]}" ||
			return 1
	done
}

############################################################################
# Trimming on plane 2

trim_on()
{
	# The sender leaves checksums to the device; with that off, the
	# kernel computes them and the receiver checks them.
	ip netns exec "$A" ethtool -K veth2 tx off > /dev/null &&
		tc -n "$B" qdisc add dev veth2 clsact &&
		tc -n "$B" filter add dev veth2 ingress bpf direct-action \
			obj "$TRIM" sec tc
}

trim_transfer()
{
	local peer=$1

	csum_before=$(csum_errors "$B")
	trim_on || return 1
	xfer trim "$SIZE" "$peer"
}

# A NACK names a trimmed packet, which is resent at once, on another plane
# when one has room (resends are counted on the plane they go out on): the
# resends add up to at least half the NACKs (a packet found lost by a gap
# before its NACK came is resent once for both).
trim_nacks()
{
	local nacks retx k total=0

	plane_stats trim nacks || return 1
	nacks=("${stats[@]}")
	plane_stats trim retransmits || return 1
	retx=("${stats[@]}")
	for k in "${!retx[@]}"; do
		total=$((total + retx[k]))
	done
	mrc_info "NACKs per plane: ${nacks[*]}; resends: ${retx[*]}"
	[ "${nacks[1]}" -gt 0 ] || mrc_fail "no NACK on plane 2" || return 1
	[ "$((2 * total))" -ge "${nacks[1]}" ] ||
		mrc_fail "$total resends for ${nacks[1]} NACKs"
}

# A trim is congestion, not a broken path: it retires no EV, and a plane
# whose packets come back NACKed is not silent.  Losses by gap or timeout
# retire EVs on every plane now and then under QEMU (a host that stalls
# for a few ms); $TRIM_RETIRE_SLACK more on plane 2 than on the others is
# that noise, not the EV per NACK (hundreds) or the whole plane found
# silent (32 at once) of a trim taken for a failure.
trim_retirements()
{
	local k max=0 nacks

	plane_stats trim nacks || return 1
	nacks=${stats[1]}
	plane_stats trim retirements || return 1
	mrc_info "EV retirements per plane: ${stats[*]}, with $nacks NACKs on plane 2"
	figures trim
	for k in "${!stats[@]}"; do
		[ "$k" = 1 ] || [ "${stats[k]}" -le "$max" ] || max=${stats[k]}
	done
	[ "${stats[1]}" -le "$((max + TRIM_RETIRE_SLACK))" ] ||
		mrc_fail "plane 2 retired ${stats[1]} EVs, the others at most $max" ||
		return 1
	[ "${stats[1]}" -lt "$nacks" ] ||
		mrc_fail "plane 2 retired ${stats[1]} EVs for $nacks NACKs"
}

trim_csum()
{
	local errors

	errors=$(($(csum_errors "$B") - csum_before))
	mrc_info "UDP checksum errors at the receiver: $errors"
	[ "$errors" = 0 ] || mrc_fail "$errors checksum errors"
}

############################################################################
# A long link: one plane, 10 ms of delay and a rate limit

# mbit BYTES NS: the rate of BYTES in NS nanoseconds, in Mbit/s with one
# decimal.
mbit()
{
	awk -v b="$1" -v ns="$2" 'BEGIN { printf "%.1f", b * 8000 / ns }'
}

long_base()
{
	xfer base "$BASE_SIZE" 10.0.1.2 || return 1
	base=$(mbit "$BASE_SIZE" "$elapsed_ns")
	# Half of that, between 2 and 100 Mbit/s.
	rate=$(awk -v b="$base" 'BEGIN {
		r = int(b / 2)
		print (r < 2) ? 2 : (r > 100) ? 100 : r }')
	mrc_info "one plane without a limit: $base Mbit/s; the long link gets $rate Mbit/s"
}

long_transfer()
{
	local bdp limit

	[ -n "$rate" ] || mrc_fail "no rate measured" || return 1
	bdp=$((rate * DELAY_MS * 1000 / 8))
	limit=$((4 * bdp))
	[ "$limit" -ge 16384 ] || limit=16384
	long_limit=$limit
	mrc_info "$DELAY_MS ms one way, $rate Mbit/s, a buffer of $limit bytes (BDP $bdp)"
	tc -n "$A" qdisc add dev veth1 root handle 1: netem delay "${DELAY_MS}ms" \
		limit 100000 &&
		tc -n "$A" qdisc add dev veth1 parent 1:1 handle 10: tbf \
			rate "${rate}mbit" burst 32k limit "$limit" || return 1
	# Twice the time the rate allows, and some: slower fails anyway.
	xfer long "$SIZE" 10.0.1.2 $((SIZE * 8 * 2 / (rate * 1000000) + 30)) &&
		long_done=1
}

long_rate()
{
	local got srtt

	if [ -z "$long_done" ]; then
		figures long
		mrc_fail "the transfer failed: no rate to tell"
		return 1
	fi
	got=$(mbit "$SIZE" "$elapsed_ns")
	plane_stats long srtt_us && srtt=${stats[0]}
	echo "# long link: $got Mbit/s of $rate ($((elapsed_ns / 1000000)) ms for $SIZE bytes, srtt ${srtt:-?} us)"
	figures long
	tc -n "$A" -s qdisc show dev veth1 > "$tmp/long.qdisc"
	mrc_show "$tmp/long.qdisc"
	awk -v g="$got" -v r="$rate" -v f="$FLOOR_PCT" 'BEGIN { exit !(g * 100 >= r * f) }' ||
		mrc_fail "below $FLOOR_PCT% of $rate Mbit/s"
}

############################################################################
# long_overflow: the long transfer's slow start ended on the queue it
# built, before the buffer overflowed by more than half of it (in
# packets of 1500 bytes): waiting for a round's end, it doubled once more
# and the tbf dropped 112 to 236 packets of a buffer of 120.
long_overflow()
{
	local drops

	[ -n "$long_done" ] || mrc_fail "the transfer failed" || return 1
	drops=$(tc -n "$A" -s -j qdisc show dev veth1 |
		jq '.[] | select(.kind == "tbf") | .drops')
	[ -n "$drops" ] || mrc_fail "no tbf on the long link" || return 1
	mrc_info "the tbf dropped $drops packets, its buffer holds $((long_limit / 1500))"
	[ "$drops" -le $((long_limit / 1500 / 2)) ] && return 0
	# When the losses came: the sender's window and resends, sampled ten
	# times a second, from the start.
	[ -s "$tmp/long.samples" ] && mrc_info "cwnd/resent by 100 ms:" \
		"$(jq -r '.planes[0] | "\(.cwnd)/\(.retransmits)"' \
			"$tmp/long.samples" | head -n 100 | tr '\n' ' ')"
	mrc_fail "$drops packets dropped, more than half the buffer"
}

# A short queue: net.mrc.target_delay_us on the long link's plane

# target_delay US: net.mrc.target_delay_us of the sender, $A.
target_delay()
{
	ip netns exec "$A" sysctl -qw "net.mrc.target_delay_us=$1" ||
		mrc_fail "cannot set net.mrc.target_delay_us to $1"
}

# backlog_cmds DONE: from QUEUE_SKIP_S seconds on, until a line of DONE
# starts with "conn" (the server has read the whole stream), the command
# that shows the qdiscs of veth1, for tc -batch, five times a second.
backlog_cmds()
{
	sleep "$QUEUE_SKIP_S"
	until mrc_said "$1" conn; do
		echo "qdisc show dev veth1"
		sleep 0.2
	done
}

# queue_round US: with net.mrc.target_delay_us at US on the sender (the
# default again after), a stream of QUEUE_SECONDS at $rate through a tbf
# of its own over a buffer of QUEUE_BUFFER_MS, transfer targetUS, its
# backlog sampled in $tmp/targetUS-backlog; the time until the server had
# it all in ${queue_ns[US]}.
queue_round()
{
	local name=target$1 poller rc

	[ -n "$rate" ] || mrc_fail "no rate measured" || return 1
	queue_size=$((rate * QUEUE_SECONDS * 125000))
	tc -n "$A" qdisc del dev veth1 root 2> /dev/null
	tc -n "$A" qdisc add dev veth1 root handle 1: tbf rate "${rate}mbit" \
		burst 32k limit $((rate * QUEUE_BUFFER_MS * 125)) &&
		target_delay "$1" || return 1
	rm -f "$tmp/$name".* "$tmp/$name-backlog"
	# One tc for all the samples (each a JSON array): under QEMU without
	# acceleration, a program started five times a second samples less.
	backlog_cmds "$tmp/$name.s" |
		tc -n "$A" -s -j -batch - > "$tmp/$name-backlog" &
	poller=$!
	xfer "$name" "$queue_size" 10.0.1.2 $((2 * QUEUE_SECONDS + 30))
	rc=$?
	# Once the server is done, tc reads the end of its commands and
	# writes what it holds; a failed transfer leaves nothing to wait for.
	[ "$rc" = 0 ] || kill "$poller" 2> /dev/null
	wait "$poller" 2> /dev/null
	target_delay "$QUEUE_DEFAULT_US" || return 1
	[ "$rc" = 0 ] && queue_ns[$1]=$done_ns
}

# queue_median US: the median backlog of round US, as the time it takes to
# go out at $rate, in microseconds, in $queue; the round's figures shown.
queue_median()
{
	local name=target$1 n bytes drops

	[ -n "${queue_ns[$1]}" ] || mrc_fail "the transfer failed" || return 1
	[ -s "$tmp/$name-backlog" ] || mrc_fail "no backlog sampled" || return 1
	read -r n bytes drops < <(jq -s -r '[.[][] | select(.kind == "tbf")] |
		(map(.backlog) | sort) as $b |
		"\($b | length) \($b[$b | length / 2 | floor]) \(last.drops)"' \
		"$tmp/$name-backlog")
	queue=$((bytes * 8 / rate))
	echo "# target $1 us: median queue $queue us ($bytes bytes, $n samples)," \
		"$(mbit "$queue_size" "${queue_ns[$1]}") Mbit/s of $rate, $drops drops"
	figures "$name"
}

queue_full()
{
	queue_median 0 || return 1
	[ "$queue" -ge $((QUEUE_FULL_X * QUEUE_TARGET_US)) ] ||
		mrc_fail "a median queue of $queue us with no target: the buffer never filled"
}

queue_short()
{
	queue_median "$QUEUE_TARGET_US" || return 1
	[ "$queue" -le $((QUEUE_SHORT_X * QUEUE_TARGET_US)) ] ||
		mrc_fail "a median queue of $queue us, over $QUEUE_SHORT_X times the target"
}

queue_rate()
{
	local got

	[ -n "${queue_ns[$QUEUE_TARGET_US]}" ] || mrc_fail "the transfer failed" ||
		return 1
	got=$(mbit "$queue_size" "${queue_ns[$QUEUE_TARGET_US]}")
	awk -v g="$got" -v r="$rate" -v f="$QUEUE_RATE_PCT" 'BEGIN { exit !(g * 100 >= r * f) }' ||
		mrc_fail "$got Mbit/s, below $QUEUE_RATE_PCT% of $rate Mbit/s"
}

############################################################################
# Mixed delays: plane 1 plain, plane 2 with a 5 ms round trip

# plane_down NS K: plane K of NS is not up.
plane_down()
{
	"$MRCCTL" -n "$1" plane show |
		awk -v k="$2" '$1 == k && $4 != "up" { f = 1 } END { exit !f }'
}

mixed_base()
{
	ip -n "$A" link set veth2 down || return 1
	mrc_wait_for 10 plane_down "$A" 2 || mrc_fail "plane 2 still up" ||
		return 1
	xfer mixed_base "$BASE_SIZE" 10.0.1.2 || return 1
	base=$(mbit "$BASE_SIZE" "$elapsed_ns")
	mrc_info "plane 1 alone: $base Mbit/s"
	ip -n "$A" link set veth2 up &&
		mrc_wait_for 10 mrc_planes_up "$A" 2 &&
		mrc_wait_for 10 mrc_planes_up "$B" 2 ||
		mrc_fail "plane 2 did not come back"
}

mixed_transfer()
{
	tc -n "$A" qdisc add dev veth2 root netem delay "${MIXED_DELAY_US}us" \
		limit 100000 &&
		tc -n "$B" qdisc add dev veth2 root netem \
			delay "${MIXED_DELAY_US}us" limit 100000 || return 1
	xfer mixed "$SIZE" 10.0.1.2 && mixed_done=1
}

mixed_share()
{
	local total

	[ -n "$mixed_done" ] || mrc_fail "the transfer failed" || return 1
	figures mixed
	plane_stats mixed tx_packets || return 1
	total=$((stats[0] + stats[1]))
	[ $((stats[1] * 100)) -ge $((total * MIXED_SHARE_PCT)) ] ||
		mrc_fail "the slow plane sent ${stats[1]} of $total packets"
}

mixed_rate()
{
	local got stall

	[ -n "$mixed_done" ] && [ -n "$base" ] ||
		mrc_fail "no transfer to compare" || return 1
	got=$(mbit "$SIZE" "$elapsed_ns")
	stall=$(awk '$1 == "conn" && $9 == "stall_ms" { print $10; exit }' \
		"$tmp/mixed.s")
	echo "# mixed delays: $got Mbit/s (plane 1 alone: $base), longest stall ${stall:-?} ms"
	awk -v g="$got" -v b="$base" -v f="$MIXED_RATE_PCT" \
		'BEGIN { exit !(g * 100 >= b * f) }' ||
		mrc_fail "below $MIXED_RATE_PCT% of plane 1 alone" || return 1
	[ -n "$stall" ] || mrc_fail "the receiver told no stall" || return 1
	awk -v s="$stall" -v m="$MIXED_STALL_MS" 'BEGIN { exit !(s <= m) }' ||
		mrc_fail "a stall of $stall ms"
}

############################################################################
# A slow link: DATA in a deep queue at 512 kbit/s, the rest first

# slow_plane K: on $A's vethK, MRC DATA (version 1, type 3: the first byte
# after the IPv6 and UDP headers is 0x13) goes through netem at the slow
# rate; everything else, in the first band, goes first.
slow_plane()
{
	local dev=veth$1

	tc -n "$A" qdisc add dev "$dev" root handle 1: prio bands 2 \
		priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 &&
		tc -n "$A" qdisc add dev "$dev" parent 1:2 handle 20: netem \
			rate "${SLOW_RATE_KBIT}kbit" limit "$SLOW_LIMIT" &&
		tc -n "$A" filter add dev "$dev" parent 1: protocol ipv6 prio 1 \
			u32 match u8 0x13 0xff at 48 flowid 1:2
}

slow_transfer()
{
	slow_plane 1 && slow_plane 2 || return 1
	# The rate allows it in 17 s; resending everything took minutes.
	xfer slow "$SLOW_SIZE" fd00:1::2 90 && slow_done=1
}

# resent_and_rtt NAME DONE PCT MIN_US: transfer NAME (done if DONE is set)
# resent at most PCT% of the packets it sent, and each plane measured a
# round trip of MIN_US or more.
resent_and_rtt()
{
	local sent resent i

	figures "$1"
	[ -n "$2" ] || mrc_fail "the transfer failed" || return 1
	figure "$1" connection || return 1
	sent=${stats[0]}
	resent=${stats[1]}
	[ $((resent * 100)) -le $((sent * $3)) ] ||
		mrc_fail "$resent of $sent packets resent" || return 1
	plane_stats "$1" srtt_us || return 1
	for i in "${!stats[@]}"; do
		[ "${stats[i]}" -ge "$4" ] ||
			mrc_fail "plane $((i + 1))'s round trip: ${stats[i]} us" ||
			return 1
	done
}

slow_resent()
{
	resent_and_rtt slow "$slow_done" "$SLOW_RESENT_PCT" 1
}

slow_rate()
{
	local got limit

	[ -n "$slow_done" ] || mrc_fail "the transfer failed" || return 1
	got=$(mbit "$SLOW_SIZE" "$done_ns")
	limit=$(awk -v k="$SLOW_RATE_KBIT" 'BEGIN { printf "%.1f", 2 * k / 1000 }')
	echo "# slow link: $got Mbit/s of $limit ($((done_ns / 1000000)) ms for $SLOW_SIZE bytes)"
	awk -v g="$got" -v l="$limit" -v f="$SLOW_RATE_PCT" 'BEGIN { exit !(g * 100 >= l * f) }' ||
		mrc_fail "below $SLOW_RATE_PCT% of $limit Mbit/s"
}

############################################################################
# A slow peer: its acknowledgments take 1.5 s

lazy_transfer()
{
	local k

	for k in 1 2; do
		tc -n "$B" qdisc add dev "veth$k" root netem \
			delay "${LAZY_DELAY_MS}ms" limit 100000 || return 1
	done
	# Plane 2 may carry DATA only once its validation came back, 1.5 s
	# in: its first acknowledgment can come after the last DATA arrived.
	linger=$((LAZY_DELAY_MS / 1000 + 1)) xfer lazy "$LAZY_SIZE" 10.0.1.2 90 &&
		lazy_done=1
}

lazy_resent()
{
	resent_and_rtt lazy "$lazy_done" "$LAZY_RESENT_PCT" $((LAZY_DELAY_MS * 1000))
}

# Nothing is lost: a plane that retires EVs took its first packets for
# lost before their round trip was over.
lazy_retired()
{
	local i

	[ -n "$lazy_done" ] || mrc_fail "the transfer failed" || return 1
	plane_stats lazy retirements || return 1
	for i in "${!stats[@]}"; do
		[ "${stats[i]}" = 0 ] ||
			mrc_fail "plane $((i + 1)) retired ${stats[i]} EVs" ||
			return 1
	done
}

############################################################################

A=mrcg-$suffix-a
B=mrcg-$suffix-b
if ! hosts "$A" "$B" 4 4; then
	mrc_fail "cannot build the topology of four planes"
fi
mrc_check "ECN: RED at $ECN_RATE Mbit/s marks plane 1 of 4: 32 MiB stream, same SHA-256" \
	ecn_transfer
mrc_check "ECN: CE marks reach the sender of plane 1" ecn_marks
mrc_check "ECN: plane 1 sends a smaller share of the packets than each other plane" \
	ecn_share
mrc_check "ECN: plane 1 has the smallest congestion window" cwnd_smallest ecn 1
tc -n "$A" qdisc del dev veth1 root 2> /dev/null
mrc_check "IPv4 trimming on plane 2 of 4: 32 MiB stream, same SHA-256" \
	trim_transfer 10.0.1.2
mrc_check "IPv4 trimming: NACKs on plane 2, and resends for them" trim_nacks
mrc_check "IPv4 trimming: no more EV retirements on plane 2 than elsewhere" \
	trim_retirements
mrc_check "IPv4 trimming: plane 2 has the smallest congestion window" \
	cwnd_smallest trim 2
mrc_check "IPv4 trimming: trimmed packets checksummed right" trim_csum
mrc_cleanup

A=mrcg-$suffix-a6
B=mrcg-$suffix-b6
if ! hosts "$A" "$B" 6 2; then
	mrc_fail "cannot build the IPv6 topology"
fi
mrc_check "IPv6 trimming on plane 2 of 2: 32 MiB stream, same SHA-256" \
	trim_transfer fd00:1::2
mrc_check "IPv6 trimming: NACKs on plane 2, and resends for them" trim_nacks
mrc_check "IPv6 trimming: no more EV retirements on plane 2 than elsewhere" \
	trim_retirements
mrc_check "IPv6 trimming: plane 2 has the smallest congestion window" \
	cwnd_smallest trim 2
mrc_check "IPv6 trimming: trimmed packets checksummed right" trim_csum
mrc_cleanup

A=mrcg-$suffix-la
B=mrcg-$suffix-lb
rate=
long_done=
long_limit=
queue_size=
declare -A queue_ns=()
if ! hosts "$A" "$B" 4 1; then
	mrc_fail "cannot build the long link"
fi
mrc_check "long link: 8 MiB stream on one plane without a limit" long_base
mrc_check "long link: 32 MiB stream over ${DELAY_MS} ms and the rate limit, same SHA-256" \
	long_transfer
mrc_check "long link: at least $FLOOR_PCT% of the rate limit" long_rate
mrc_check "long link: slow start ends before the queue overflows by half the buffer" \
	long_overflow
mrc_check "short queue: no target: ${QUEUE_SECONDS} s stream, ${QUEUE_BUFFER_MS} ms buffer at the long link's rate, same SHA-256" \
	queue_round 0
mrc_check "short queue: no target: the median queue holds $((QUEUE_FULL_X * QUEUE_TARGET_US)) us or more" \
	queue_full
mrc_check "short queue: target $QUEUE_TARGET_US us: the same stream, same SHA-256" \
	queue_round "$QUEUE_TARGET_US"
mrc_check "short queue: target $QUEUE_TARGET_US us: a median queue of $((QUEUE_SHORT_X * QUEUE_TARGET_US)) us or less" \
	queue_short
mrc_check "short queue: target $QUEUE_TARGET_US us: at least $QUEUE_RATE_PCT% of the rate limit" \
	queue_rate
mrc_cleanup

A=mrcg-$suffix-ma
B=mrcg-$suffix-mb
base=
mixed_done=
if ! hosts "$A" "$B" 4 2; then
	mrc_fail "cannot build the topology of mixed delays"
fi
mrc_check "mixed delays: 8 MiB stream on plane 1 alone" mixed_base
mrc_check "mixed delays: 32 MiB stream over a plain plane and a 5 ms one, same SHA-256" \
	mixed_transfer
mrc_check "mixed delays: the 5 ms plane carries at least $MIXED_SHARE_PCT% of the packets" \
	mixed_share
mrc_check "mixed delays: at least $MIXED_RATE_PCT% of plane 1 alone, no stall over $MIXED_STALL_MS ms" \
	mixed_rate
mrc_cleanup

A=mrcg-$suffix-sa
B=mrcg-$suffix-sb
slow_done=
if ! hosts "$A" "$B" 6 2; then
	mrc_fail "cannot build the slow link"
fi
mrc_check "slow link: 2 MiB stream over two IPv6 planes whose DATA waits at $SLOW_RATE_KBIT kbit/s, same SHA-256" \
	slow_transfer
mrc_check "slow link: at most $SLOW_RESENT_PCT% of the packets resent, a round trip measured on each plane" \
	slow_resent
mrc_check "slow link: at least $SLOW_RATE_PCT% of the two planes' rate" slow_rate
mrc_cleanup

A=mrcg-$suffix-pa
B=mrcg-$suffix-pb
lazy_done=
if ! hosts "$A" "$B" 4 2; then
	mrc_fail "cannot build the slow peer"
fi
mrc_check "slow peer: 1 MiB stream while the acknowledgments take $LAZY_DELAY_MS ms, same SHA-256" \
	lazy_transfer
mrc_check "slow peer: at most $LAZY_RESENT_PCT% of the packets resent, its round trip measured on each plane" \
	lazy_resent
mrc_check "slow peer: no EV retired, on the handshake's plane or the other" \
	lazy_retired

mrc_finish
