#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# MRC's tracepoints, read from a tracefs instance of our own:
#
# - every event of events/mrc/ exists;
# - a connection's life shows in mrc_state (SYN_SENT, ESTABLISHED, CLOSE
#   at the client, SYN_RECV and ESTABLISHED at the server);
# - a black hole on one EV shows with the right ports: the EV is taken
#   from an mrc_send event of plane 1, a tc filter on plane 1 drops the
#   packets that carry it (by UDP source port on IPv4, by flow label on
#   IPv6, so that the port and label the events print are the ones on the
#   wire), mrc_ev_retire names that EV and plane, "mrcctl -s conn show"
#   lists it among plane 1's retired EVs, and so does MRC_EV_INFO to the
#   process that owns the connection; once the filter is gone,
#   mrc_ev_restore names it;
# - losses on one EV cost its plane only that EV's share of the window: a
#   filter drops one packet in three that carry one EV of plane 1, under a
#   long transfer; mrc_cwnd_cut shows that EV's losses cutting plane 1's
#   window, never by more than a quarter while 8 EVs or more are in use (a
#   plane's window was halved by any loss on it), that EV carries less
#   than half the packets of plane 1's average EV, and plane 1's other EVs
#   carry at least half as many each as plane 2's;
# - CE marks on some EVs move their packets to the others, and leave the
#   plane's window: plane 1's EVs of odd number cross a link slower than
#   their share whose queue marks CE (RED), under a long transfer;
#   mrc_cwnd_ce shows at most a quarter of the rounds that heard marks
#   judging them shared or cutting plane 1's window, the marked
#   EVs carry less than two thirds as many packets each as plane 1's
#   other EVs, which carry at least half as many each as plane 2's; the
#   link drops none of the packets for want of ECN capability (probes
#   included);
# - CE marks on every EV of plane 1 (the same link for all, no target
#   delay) are a queue they share: at least half of the rounds that heard
#   marks judge so, and a quarter or more cut the window (both cases
#   skip when the link sent less than 90% of its rate: a sender slower
#   than it, as on a debug kernel, marks nothing to judge);
# - mrc_plane shows plane 2 leave a connection when its link goes down
#   mid-transfer, and join it again when the link comes back;
# - a packet taken for lost is resent before new data: plane 1 turns into
#   a black hole (a filter drops all its UDP) under a transfer, and in the
#   trace (one clock for all CPUs) no mrc_send of new data comes between
#   an mrc_lost and the resend of its packet (a packet taken for lost that
#   is acknowledged after all, never resent, holds nothing back);
# - perf, as operators use it ("perf record -e 'mrc:*'"), sees the same.
#
# IPv4 and IPv6, two planes.

. "$(dirname "$0")/mrc_lib.sh"

mrc_require_root

mrc_need_mrcctl
mrc_need_bin mrc_xfer
mrc_need_bin mrc_sockinfo
mrc_need_cmd tc
mrc_need_cmd jq
XFER=$MRC_BIN/mrc_xfer
mrc_module_loaded || modprobe mrc || exit "$KSFT_FAIL"
mrc_need_mod sch_prio sch_tbf sch_red cls_u32

TRACEFS=/sys/kernel/tracing
if [ ! -d "$TRACEFS/instances" ]; then
	mount -t tracefs nodev "$TRACEFS" 2> /dev/null
	if [ ! -d "$TRACEFS/instances" ]; then
		echo "# SKIP: no tracefs"
		exit "$KSFT_SKIP"
	fi
fi

EVENTS="mrc_state mrc_send mrc_ack mrc_ev_retire mrc_ev_restore mrc_plane mrc_rto mrc_nack
	mrc_cwnd_cut mrc_cwnd_delay mrc_cwnd_ce mrc_lost mrc_rst"

mrc_plan 16

# ev_marks: the rate of the link of half of plane 1's EVs, below their
# share, and fast enough that the queue its marks keep stays below the
# plane's silence time (a packet at 16 Mbit/s takes 0.75 ms).  Those EVs
# carry what the link drains, the others what the sender's CPU adds to
# it: in a TCG guest whose plane 1 ran at 45-60 Mbit/s, the other half
# sent 2.1-4.9 times as many packets an EV as the marked half; without
# the marks' steering every EV keeps its turn, and the halves would send
# as many.  At 8 Mbit/s, the marked EVs' queue held the whole connection
# back.
EV_MARK_MBIT=${EV_MARK_MBIT:-16}
EV_MARK_RATE=${EV_MARK_MBIT}mbit

suffix=$(printf '%04x' $RANDOM)
tmp=$(mktemp -d)
trace=$TRACEFS/instances/mrc-test-$suffix
port=9000

cleanup()
{
	mrc_kill_jobs
	mrc_cleanup
	[ -d "$trace" ] && rmdir "$trace"
	rm -rf "$tmp"
}
trap cleanup EXIT

# No comm or tgid recording (see mrc_trace_instance).  The events are
# switched with no transfer running, and a filter, not a switch, silences
# one during it.
mrc_trace_instance "$trace" || exit "$KSFT_FAIL"
# Per CPU: a second of every send of a transfer, and more.
echo 32768 > "$trace/buffer_size_kb"

# events_exist: events/mrc/ has every event we document.
events_exist()
{
	local e rc=0

	for e in $EVENTS; do
		[ -d "$trace/events/mrc/$e" ] || mrc_fail "no event $e" || rc=1
	done
	return "$rc"
}

# tracing EVENT... : record these events only, from an empty buffer.
tracing()
{
	local e

	echo 0 > "$trace/tracing_on"
	echo 0 > "$trace/events/mrc/enable"
	for e in "$@"; do
		echo 1 > "$trace/events/mrc/$e/enable" || return 1
	done
	: > "$trace/trace"
	echo 1 > "$trace/tracing_on"
}

# traced PATTERN: the trace has a line that matches the extended regular
# expression PATTERN.
traced()
{
	grep -Eq "$1" "$trace/trace"
}

# life: one short connection; the states of both ends in order.
life()
{
	local c s

	tracing mrc_state || return 1
	port=$((port + 1))
	mrc_xfer_server "$B" "$port" "$tmp" || return 1
	ip netns exec "$A" "$XFER" -c "$peer" -p "$port" -s 64K \
		> /dev/null 2> "$tmp/c.err" ||
		mrc_fail "transfer failed: $(cat "$tmp/c.err")" || return 1
	wait "$srv" || mrc_fail "server: $(cat "$tmp/s.err")" || return 1
	# The client's connection: the one whose destination is the port.
	c=$(grep -Eo "mrc_state: cid=0x[0-9a-f]+ peer_cid=0x[0-9a-f]+ port=[0-9]+ dport=$port CLOSE -> SYN_SENT" \
		"$trace/trace" | head -n 1 | cut -d' ' -f2)
	[ -n "$c" ] || mrc_fail "no SYN_SENT to port $port" || return 1
	traced "mrc_state: $c .*dport=$port SYN_SENT -> ESTABLISHED" ||
		mrc_fail "client $c never ESTABLISHED" || return 1
	mrc_wait_for 20 traced "mrc_state: $c .*ESTABLISHED -> CLOSE" ||
		mrc_fail "client $c never CLOSE" || return 1
	# The server's connection enters SYN_RECV before it has an id.
	traced "peer_cid=${c#cid=} port=$port dport=[0-9]+ [A-Z_]+ -> SYN_RECV" ||
		mrc_fail "no server connection in SYN_RECV" || return 1
	s=$(grep -Eo "mrc_state: cid=0x[0-9a-f]+ peer_cid=${c#cid=} port=$port dport=[0-9]+ SYN_RECV -> ESTABLISHED" \
		"$trace/trace" | head -n 1 | cut -d' ' -f2)
	[ -n "$s" ] || mrc_fail "server never ESTABLISHED" || return 1
	mrc_wait_for 20 traced "mrc_state: $s .*ESTABLISHED -> CLOSE" ||
		mrc_fail "server $s never CLOSE" || return 1
	echo 0 > "$trace/tracing_on"
}

# perf_sees: "perf record -e 'mrc:*'", as an operator would run it, sees
# a connection: both ends' handshakes and DATA on both planes.  perf
# skips what concerns no tracepoint and takes seconds in an emulated
# guest: build-ids and their cache (-B -N: three more reads of kallsyms),
# the side-band thread for BPF programs (--no-bpf-event: ending it takes
# up to a second) and the kernel's symbols in perf script (it prints none
# for a tracepoint, and reads kallsyms three times for them).
perf_sees()
{
	local data=$tmp/perf.data n1 n2

	command -v perf > /dev/null || return "$KSFT_SKIP"
	port=$((port + 1))
	mrc_xfer_server "$B" "$port" "$tmp" || return 1
	perf record -q -B -N --no-bpf-event -o "$data" -e 'mrc:*' -a -- \
		ip netns exec "$A" "$XFER" -c "$peer" -p "$port" -s 256K \
		> /dev/null 2> "$tmp/perf.err" ||
		mrc_fail "perf record: $(cat "$tmp/perf.err")" || return 1
	wait "$srv" || mrc_fail "server: $(cat "$tmp/s.err")" || return 1
	perf script --kallsyms=/dev/null -i "$data" > "$tmp/perf.txt" \
		2> "$tmp/perf.err" ||
		mrc_fail "perf script: $(cat "$tmp/perf.err")" || return 1
	n1=$(grep -c "mrc:mrc_send: .*plane=1 " "$tmp/perf.txt")
	n2=$(grep -c "mrc:mrc_send: .*plane=2 " "$tmp/perf.txt")
	mrc_info "perf: $(wc -l < "$tmp/perf.txt") events, mrc_send on planes 1 and 2: $n1 $n2"
	grep -Eq "mrc:mrc_state: .*dport=$port SYN_SENT -> ESTABLISHED" "$tmp/perf.txt" ||
		mrc_fail "no ESTABLISHED of the client" || return 1
	grep -Eq "mrc:mrc_state: .* port=$port dport=[0-9]+ SYN_RECV -> ESTABLISHED" "$tmp/perf.txt" ||
		mrc_fail "no ESTABLISHED of the server" || return 1
	[ "$n1" -gt 0 ] && [ "$n2" -gt 0 ] ||
		mrc_fail "DATA not seen on both planes"
}

# drop_ev EV: on $A's veth1, drop what leaves with EV as its UDP source
# port (IPv4) or flow label (IPv6), all UDP with EV "all"; none without EV.
drop_ev()
{
	local proto=ip match=(match ip protocol 17 0xff)

	tc -n "$A" qdisc del dev veth1 root 2> /dev/null
	[ -n "$1" ] || return 0
	tc -n "$A" qdisc add dev veth1 root handle 1: prio || return 1
	if [ "$1" = all ]; then
		:
	elif [ "$fam" = 4 ]; then
		match+=(match ip sport "$1" 0xffff)
	else
		match+=(match ip6 flowlabel "$1" 0xfffff)
	fi
	[ "$fam" = 4 ] || proto=ipv6 match[1]=ip6
	tc -n "$A" filter add dev veth1 parent 1: protocol "$proto" prio 1 \
		u32 "${match[@]}" action drop
}

# dropped: packets the filter of drop_ev dropped.
dropped()
{
	tc -n "$A" -s filter show dev veth1 parent 1: |
		grep -o -m 1 'dropped [0-9]*' | cut -d' ' -f2
}

# retired_shown EV: "mrcctl -j -s conn show" lists EV among the retired
# EVs of plane 1 of a connection of $A.
retired_shown()
{
	"$MRCCTL" -n "$A" -j -s conn show |
		jq -e --argjson ev "$1" 'any(.[].planes[] | select(.id == 1) |
			.retired_evs // [] | .[]; . == $ev)' > /dev/null
}

# xfer_on_ev: with mrc_send traced, a long transfer from $A, its pid in
# $cli; $cid is its connection, $ev the EV of its first packet on plane 1.
xfer_on_ev()
{
	local line

	echo "plane == 1 && resend == 0" > "$trace/events/mrc/mrc_send/filter"
	port=$((port + 1))
	mrc_xfer_server "$B" "$port" "$tmp" || return 1
	ip netns exec "$A" "$XFER" -c "$peer" -p "$port" -s 4G -T 120 \
		> /dev/null 2> "$tmp/c.err" &
	cli=$!
	mrc_wait_for 20 traced "mrc_send: .*plane=1 " ||
		mrc_fail "no mrc_send on plane 1" || return 1
	echo "plane == 255" > "$trace/events/mrc/mrc_send/filter"
	line=$(grep -m 1 -Eo "mrc_send: cid=0x[0-9a-f]+ plane=1 ev=[0-9]+" \
		"$trace/trace")
	cid=${line#mrc_send: }
	cid=${cid%% *}
	ev=${line##*ev=}
}

# black_hole: a long transfer; one EV of plane 1 black-holed, then healed.
black_hole()
{
	local cid ev n label silent losses

	tracing mrc_send mrc_ev_retire mrc_ev_restore || return 1
	xfer_on_ev || return 1
	mrc_info "black hole on plane 1, $cid, EV $ev"
	silent=$(mrc_counter "$A" PlaneSilent)
	drop_ev "$ev" || mrc_fail "cannot install the filter" || return 1
	[ "$fam" = 4 ] && label=0x00000 || label=$(printf '0x%05x' "$ev")
	mrc_wait_for 20 traced "mrc_ev_retire: $cid plane=1 ev=$ev flowlabel=$label " ||
		mrc_fail "no mrc_ev_retire for EV $ev: $(grep -c mrc_ev_retire "$trace/trace") others" ||
		return 1
	retired_shown "$ev" ||
		mrc_fail "mrcctl -s conn show does not list EV $ev as retired" ||
		return 1
	# And MRC_EV_INFO, to the process that owns the connection.
	"$MRC_BIN/mrc_sockinfo" "$cli" > "$tmp/info" ||
		mrc_fail "mrc_sockinfo $cli failed" || return 1
	grep -q "^ev 1 $ev retired losses " "$tmp/info" ||
		mrc_fail "MRC_EV_INFO does not list EV $ev as retired:" \
			"$(grep "^ev 1 $ev " "$tmp/info")" || return 1
	# Its losses retire it, unless a pause of the guest had its whole
	# plane found silent first: losses in a silence are not the EV's.
	losses=$(awk -v ev="$ev" '$1 == "ev" && $2 == 1 && $3 == ev { print $6 }' \
		"$tmp/info")
	silent=$(($(mrc_counter "$A" PlaneSilent) - silent))
	[ "$losses" -gt 0 ] || [ "$silent" -gt 0 ] ||
		mrc_fail "EV $ev retired with no loss counted, its plane not silent" ||
		return 1
	[ "$losses" -gt 0 ] ||
		mrc_info "EV $ev retired with its plane, found silent $silent times"
	grep -q "^conn $((${cid#cid=})) .* retired [1-9]" "$tmp/info" ||
		mrc_fail "MRC_INFO of connection $cid counts no retired EV:" \
			"$(grep '^conn ' "$tmp/info")" || return 1
	mrc_info "$(grep "^plane 1 " "$tmp/info")"
	n=$(dropped)
	mrc_info "the filter dropped ${n:-no} packets"
	[ "${n:-0}" -gt 0 ] || mrc_fail "nothing left on EV $ev" || return 1
	drop_ev
	mrc_wait_for 30 traced "mrc_ev_restore: $cid plane=1 ev=$ev flowlabel=$label " ||
		mrc_fail "no mrc_ev_restore for EV $ev" || return 1
	kill "$cli" "$srv" 2> /dev/null
	wait "$cli" "$srv" 2> /dev/null
	echo 0 > "$trace/tracing_on"
}

# count_on DEV [EV]: on $A's DEV, count what leaves; with EV, drop one in
# three of the packets that carry EV (UDP source port on IPv4, flow label
# on IPv6), counted by a filter of their own.
count_on()
{
	local proto=ip match=(match ip protocol 17 0xff)

	[ "$fam" = 4 ] || proto=ipv6 match=(match ip6 protocol 17 0xff)
	tc -n "$A" qdisc del dev "$1" root 2> /dev/null
	tc -n "$A" qdisc add dev "$1" root handle 1: prio || return 1
	if [ -n "$2" ]; then
		if [ "$fam" = 4 ]; then
			match+=(match ip sport "$2" 0xffff)
		else
			match+=(match ip6 flowlabel "$2" 0xfffff)
		fi
		tc -n "$A" filter add dev "$1" parent 1: protocol "$proto" \
			prio 1 u32 "${match[@]}" \
			action gact pass random determ drop 3 || return 1
		match=("${match[@]:0:5}")
	fi
	tc -n "$A" filter add dev "$1" parent 1: protocol "$proto" prio 2 \
		u32 "${match[@]}" action pass
}

# counted DEV PRIO: packets the filter PRIO of count_on saw on DEV.
counted()
{
	tc -n "$A" -s filter show dev "$1" parent 1: prio "$2" |
		awk '/Sent [0-9]+ bytes [0-9]+ pkt/ { n += $4 } END { print n + 0 }'
}

# EV_SHARE_PKTS: the packets of plane 1's other EVs that ev_share waits
# for, 3 s at least and 20 s at most, rather than a time: the shares it
# judges are of that many, however fast the guest.  In the 8 s it used
# to wait, TCG guests sent 45,000-64,000 there, and the lossy EV 260-270
# packets, a quarter to a third of the bound its share is held to.
EV_SHARE_PKTS=30000

# shares_counted: plane 1's other EVs sent $EV_SHARE_PKTS packets since
# count_on, or 20 s went by; polled every half second, a tc each, not to
# take much CPU from the transfer.
shares_counted()
{
	local end=$((SECONDS + 17))

	sleep 3
	until [ "$(counted veth1 2)" -ge "$EV_SHARE_PKTS" ]; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.5
	done
}

# ev_share: one EV of plane 1 loses a packet in three under a transfer.
ev_share()
{
	local cid ev evs lossy others plane2 cuts worst rc=0

	tracing mrc_send mrc_cwnd_cut || return 1
	xfer_on_ev || return 1
	evs=$("$MRCCTL" -n "$A" conn show |
		awk '$1 == "plane" && $2 == 1 { print $6; exit }')
	count_on veth1 "$ev" && count_on veth2 ||
		mrc_fail "cannot install the filters" || return 1
	# Judged however many there are when the time is up.
	shares_counted
	# What passed the dropping filter is not counted again.
	lossy=$(counted veth1 1)
	others=$(counted veth1 2)
	plane2=$(counted veth2 2)
	kill "$cli" "$srv" 2> /dev/null
	wait "$cli" "$srv" 2> /dev/null
	echo 0 > "$trace/tracing_on"
	tc -n "$A" qdisc del dev veth1 root 2> /dev/null
	tc -n "$A" qdisc del dev veth2 root 2> /dev/null

	grep -Eo "mrc_cwnd_cut: $cid plane=1 ev=[0-9]+ cwnd=[0-9]+->[0-9]+ evs=[0-9]+" \
		"$trace/trace" > "$tmp/cuts"
	cuts=$(grep -c " ev=$ev " "$tmp/cuts")
	# The largest cut, in 1/100 of the window it cut.
	# The largest cut of a window of 8 or more while 8 EVs or more were
	# in use (the others may retire too, for losses of their own); not
	# the whole plane's (ev=0) when every path fell silent, a stall of
	# the emulated host.
	worst=$(grep -v " ev=0 " "$tmp/cuts" |
		sed -E 's/.*cwnd=([0-9]+)->([0-9]+) evs=([0-9]+).*/\1 \2 \3/' |
		awk '$1 >= 8 && $3 >= 8 { p = int(($1 - $2) * 100 / $1); if (p > w) w = p }
		     END { print w + 0 }')
	mrc_info "$cid, EV $ev of plane 1: $lossy packets, its other" \
		"$((evs - 1)) EVs: $others, plane 2's $evs: $plane2;" \
		"$(wc -l < "$tmp/cuts") cuts of plane 1's window, $cuts for" \
		"EV $ev, the largest $worst%"
	[ "${evs:-0}" -ge 2 ] || mrc_fail "plane 1 has ${evs:-no} EVs" || return 1
	[ "$cuts" -ge 2 ] || mrc_fail "EV $ev cut plane 1's window $cuts times" ||
		rc=1
	[ "$worst" -le 25 ] || mrc_fail "a loss cut plane 1's window by $worst%" ||
		rc=1
	[ "$((lossy * (evs - 1) * 2))" -lt "$others" ] ||
		mrc_fail "EV $ev kept its share: $lossy of plane 1's $((lossy + others))" ||
		rc=1
	[ "$((others * evs * 2))" -ge "$((plane2 * (evs - 1)))" ] ||
		mrc_fail "plane 1's other EVs lost their share" || rc=1
	return "$rc"
}

# mark_link odd|all|off: on $A's veth1, the MRC packets of EVs of odd
# number (UDP source port on IPv4, flow label on IPv6), or all of them,
# go through a link of $EV_MARK_RATE whose queue marks them CE (RED) from
# 1 packet on, all from 3, as a switch's hot port does; the others
# through none.  Marks, not losses, are what tells those EVs to give way:
# packets that waited longer than the plane's silence time would be taken
# for lost.  With "off", none.
mark_link()
{
	local proto=ip match=(match ip protocol 17 0xff)

	tc -n "$A" qdisc del dev veth1 root 2> /dev/null
	[ "$1" = off ] && return 0
	[ "$fam" = 4 ] || proto=ipv6 match=(match ip6 protocol 17 0xff)
	if [ "$1" = odd ] && [ "$fam" = 4 ]; then
		match+=(match ip sport 1 0x1)
	elif [ "$1" = odd ]; then
		match+=(match ip6 flowlabel 1 0x1)
	fi
	tc -n "$A" qdisc add dev veth1 root handle 1: prio &&
		tc -n "$A" qdisc add dev veth1 parent 1:3 handle 30: tbf \
			rate "$EV_MARK_RATE" burst 16k latency 200ms &&
		tc -n "$A" qdisc add dev veth1 parent 30:1 handle 31: red \
			limit 400000 min 1500 max 4500 avpkt 1000 burst 2 \
			bandwidth "$EV_MARK_RATE" probability 0.5 ecn &&
		tc -n "$A" filter add dev veth1 parent 1: protocol "$proto" \
			prio 1 u32 "${match[@]}" flowid 1:3
}

# ce_rounds: "ROUNDS SHARED CUT" of plane 1 in the trace of mrc_cwnd_ce:
# rounds that heard CE marks, those whose marks were judged of a queue
# every EV shares, and those that cut the window.
ce_rounds()
{
	awk -v cid="$cid" '$0 ~ "mrc_cwnd_ce: " cid " plane=1 " {
		n++
		s += /shared=1/
		split($NF, w, /[=>-]+/)
		c += w[3] + 0 < w[2] + 0
	} END { printf "%d %d %d\n", n, s, c }' "$trace/trace"
}

# LOSS_COUNTERS: what marked_xfer reports of the sender's counters.
LOSS_COUNTERS="LossGap LossOtherEv LossTimeout LossSilence EvRetired"

# loss_counters: the values of $LOSS_COUNTERS on $A, in that order.
loss_counters()
{
	# shellcheck disable=SC2086 # a list of names
	mrc_counters "$A" $LOSS_COUNTERS
}

# marked_xfer odd|all: a long transfer from $A, then the link of
# mark_link for 8 s, with mrc_cwnd_ce traced; the trace, the sender's
# mrc_sockinfo before and after in $tmp/info0 and $tmp/info, the CE
# marks heard on plane 1 in $ce, the marking queue's figures in $link
# (the bytes it sent in $link_bytes, the packets its RED dropped rather
# than marked, not being ECN-capable, in $link_early: those dropped over
# its limit aside), and in $lost how much each of $LOSS_COUNTERS grew
# meanwhile.
marked_xfer()
{
	local before after c i

	tracing mrc_send mrc_cwnd_ce || return 1
	xfer_on_ev || return 1
	: > "$trace/trace"
	read -r -a before <<< "$(loss_counters)"
	"$MRC_BIN/mrc_sockinfo" "$cli" > "$tmp/info0" ||
		mrc_fail "mrc_sockinfo $cli failed" || return 1
	mark_link "$1" ||
		mrc_fail "cannot install the marking link" || return 1
	sleep 8
	echo 0 > "$trace/tracing_on"
	read -r -a after <<< "$(loss_counters)"
	kill -0 "$cli" 2> /dev/null ||
		mrc_fail "the transfer ended before the marks did" || return 1
	"$MRC_BIN/mrc_sockinfo" "$cli" > "$tmp/info" ||
		mrc_fail "mrc_sockinfo $cli failed" || return 1
	ce=$("$MRCCTL" -n "$A" -j -s conn show id "${cid#cid=}" |
		jq '[.[].planes[] | select(.id == 1) | .ce_marks] | add // 0')
	link=$(tc -n "$A" -s qdisc show dev veth1 parent 30:1 |
		awk '$1 == "marked" { m = $2; p = $6 }
		     $1 == "Sent" { b = $2; d = $7 + 0 }
		     END { print "sent", b + 0, "bytes, marked", m + 0,
			   "dropped", d + 0, "(over its limit", p + 0 ")" }')
	link_bytes=$(awk '{ print $2 }' <<< "$link")
	link_early=$(awk '{ print $7 - $11 }' <<< "$link")
	kill "$cli" "$srv" 2> /dev/null
	wait "$cli" "$srv" 2> /dev/null
	mark_link off
	lost=
	i=0
	for c in $LOSS_COUNTERS; do
		lost+="${lost:+, }$c $((${after[i]:-0} - ${before[i]:-0}))"
		i=$((i + 1))
	done
}

# link_busy: the marking link sent 90% of what it can in the 8 s, or
# more: its queue, not the sender's CPU (a debug kernel's, say), was the
# limit.  If not, the case judges nothing.
link_busy()
{
	mrc_is_number "$link_bytes" ||
		mrc_fail "no figures of the marking link" || return 1
	[ "$((link_bytes * 8 * 10))" -ge "$((EV_MARK_MBIT * 1000000 * 8 * 9))" ] &&
		return 0
	mrc_info "the marking link sent $link_bytes bytes in 8 s: not its limit"
	return "$KSFT_SKIP"
}

# ev_marks: half the EVs of plane 1 cross a slow link that marks CE under
# a transfer (mark_link odd).  Per EV: "ev PLANE PORT STATE losses N
# tx_packets N ..." of mrc_sockinfo, the packets sent while the link marked
# (the difference of two; an EV drawn meanwhile, as after a second without
# traffic, is left out: its count is its lifetime's).  Of the rounds
# that heard marks, at most a quarter judge them of a queue that plane
# 1's EVs share, or cut its window.  The link drops nothing for not
# being ECN-capable: the probes of EVs retired meanwhile are, too.
ev_marks()
{
	local cid ev out marked other plane2 evs ce link link_bytes link_early
	local lost rounds shared cut rc=0

	marked_xfer odd || return 1
	read -r rounds shared cut <<< "$(ce_rounds)"
	out=$(awk 'FNR == NR { if ($1 == "ev") before[$2, $3] = $8; next }
		   $1 == "ev" && !(($2, $3) in before) { next }
		   $1 == "ev" { $8 -= before[$2, $3] }
		   $1 == "ev" && $2 == 1 && $3 % 2 { s += $8; n++ }
		   $1 == "ev" && $2 == 1 && !($3 % 2) { f += $8; m++ }
		   $1 == "ev" && $2 == 2 { p += $8; k++ }
		   END { if (n && m && k)
				printf "%d %d %d %d\n", s / n, f / m, p / k, n + m }' \
		"$tmp/info0" "$tmp/info")
	read -r marked other plane2 evs <<< "$out"
	mrc_info "$cid: per EV, plane 1's marked half $marked packets, its" \
		"other half $other, plane 2's $plane2; CE marks heard on plane 1:" \
		"$ce in $rounds rounds, $shared judged shared, $cut cut the" \
		"window; the slow link ${link:-?}; $lost"
	link_busy || return
	[ "${evs:-0}" -ge 4 ] || mrc_fail "plane 1 has ${evs:-no} EVs" || return 1
	[ "${ce:-0}" -gt 0 ] && [ "${rounds:-0}" -gt 0 ] ||
		mrc_fail "no CE mark heard on plane 1" || return 1
	[ "$((shared * 4))" -le "$rounds" ] ||
		mrc_fail "$shared rounds of $rounds judged shared" || rc=1
	[ "$((cut * 4))" -le "$rounds" ] ||
		mrc_fail "$cut rounds of $rounds cut plane 1's window" || rc=1
	[ "$((marked * 3))" -lt "$((other * 2))" ] ||
		mrc_fail "the marked EVs kept their share" || rc=1
	[ "$((other * 2))" -ge "$plane2" ] ||
		mrc_fail "plane 1's other EVs lost their share" || rc=1
	[ "${link_early:-1}" = 0 ] ||
		mrc_fail "the marking link dropped ${link_early:-?} packets" \
			"that were not ECN-capable" || rc=1
	return "$rc"
}

# shared_marks: every EV of plane 1 crosses the slow link that marks CE
# (mark_link all), with no target delay (net.mrc.target_delay_us 0), so
# that only the marks bound the queue: at least half of the rounds that
# heard marks judge them shared, and a quarter or more cut the window.
shared_marks()
{
	local cid ev ce link link_bytes link_early lost rounds shared cut rc=0

	ip netns exec "$A" sysctl -qw net.mrc.target_delay_us=0 || return 1
	marked_xfer all
	rc=$?
	ip netns exec "$A" sysctl -qw net.mrc.target_delay_us=2000
	[ "$rc" = 0 ] || return 1
	read -r rounds shared cut <<< "$(ce_rounds)"
	mrc_info "$cid: CE marks heard on plane 1: $ce in $rounds rounds," \
		"$shared judged shared, $cut cut the window; the slow" \
		"link ${link:-?}; $lost"
	link_busy || return
	[ "${ce:-0}" -gt 0 ] && [ "${rounds:-0}" -gt 0 ] ||
		mrc_fail "no CE mark heard on plane 1" || return 1
	[ "$((shared * 2))" -ge "$rounds" ] ||
		mrc_fail "$shared rounds of $rounds judged shared" || rc=1
	[ "$((cut * 4))" -ge "$rounds" ] ||
		mrc_fail "$cut rounds of $rounds cut plane 1's window" || rc=1
	[ "${link_early:-1}" = 0 ] ||
		mrc_fail "the marking link dropped ${link_early:-?} packets" \
			"that were not ECN-capable" || rc=1
	return "$rc"
}

# lost_since N: $A counted more than N packets taken for lost elsewhere
# or by timeout (each with its mrc_lost event).
lost_since()
{
	local e t

	read -r e t <<< "$(mrc_counters "$A" LossElsewhere LossTimeout)"
	[ "$((e + t))" -gt "$1" ]
}

# resend_first: plane 1 turns into a black hole under a transfer; every
# packet taken for lost (mrc_lost) is resent (mrc_send ... resend) before
# any new data goes out.  The sends are traced from just before the black
# hole on: those of the second before it cannot follow a loss of the
# black hole, and only made the trace longer to read.  The first loss is
# waited for on the counters (the trace, read whole at each poll, grows
# by thousands of sends a second), then plane 1's in the trace.
resend_first()
{
	local cid ev out lost p1 e1 resent left early over r0 r1 el to

	echo global > "$trace/trace_clock"
	tracing mrc_send mrc_lost || return 1
	xfer_on_ev || return 1
	# The other plane must carry the stream, or nothing can be resent.
	echo "plane == 2" > "$trace/events/mrc/mrc_send/filter"
	mrc_wait_for 20 traced "mrc_send: $cid plane=2 " ||
		mrc_fail "plane 2 carries nothing of $cid" || return 1
	echo "plane == 255" > "$trace/events/mrc/mrc_send/filter"
	sleep 1
	read -r r0 el to <<< "$(mrc_counters "$A" Retrans LossElsewhere LossTimeout)"
	# Every send and loss from here on, from an empty buffer.
	echo 0 > "$trace/tracing_on"
	echo 0 > "$trace/events/mrc/mrc_send/filter"
	: > "$trace/trace"
	echo 1 > "$trace/tracing_on"
	drop_ev all || mrc_fail "cannot install the filter" || return 1
	mrc_wait_for 20 lost_since "$((el + to))" ||
		mrc_fail "nothing taken for lost elsewhere or by timeout" ||
		return 1
	# The first may be another plane's: plane 1's is in a trace that
	# is still short.
	mrc_wait_for 5 traced "mrc_lost: $cid plane=1 .* why=(elsewhere|timeout)" ||
		mrc_fail "nothing of plane 1 taken for lost elsewhere or by timeout" ||
		return 1
	sleep 1
	echo 0 > "$trace/tracing_on"
	r1=$(mrc_counters "$A" Retrans)
	kill "$cli" "$srv" 2> /dev/null
	wait "$cli" "$srv" 2> /dev/null
	drop_ev
	# Every send is recorded: a CPU's buffer that wrapped around lost the
	# oldest of them, the resends among them (it once read "0 resent").
	over=$(cat "$trace"/per_cpu/cpu*/stats |
		awk '/^overrun:/ { n += $2 } END { print n + 0 }')
	[ "$over" = 0 ] ||
		mrc_fail "the trace buffer overran: $over events lost" || return 1
	# For each packet taken for lost and resent, the new packets sent in
	# between; one taken for lost and then acknowledged (it came late)
	# is never resent and holds nothing back.  The events' fields:
	# "mrc_send: cid= plane= ev= psn= dsn= len= [resend]", "mrc_lost:
	# cid= plane= ev= psn= dsn= why=".
	out=$(awk -v cid="$cid" '{
			for (i = 1; i < NF; i++)
				if ($i == "mrc_send:" || $i == "mrc_lost:")
					break
			if (i == NF || $(i + 1) != cid)
				next
			dsn = substr($(i + 5), 5)
		}
		$i == "mrc_lost:" {
			if (!(dsn in at))
				at[dsn] = fresh
			lost++
			if ($(i + 2) == "plane=1") {
				p1++
				e1 += $(i + 6) ~ /^why=(elsewhere|timeout)$/
			}
			next
		}
		$(i + 7) == "resend" {
			if (dsn in at) {
				early += fresh - at[dsn]
				delete at[dsn]
				resent++
			}
			next
		}
		{ fresh++ }
		END {
			n = 0
			for (d in at)
				n++
			printf "%d %d %d %d %d %d\n", lost, p1, e1, resent, n, early
		}' "$trace/trace")
	read -r lost p1 e1 resent left early <<< "$out"
	mrc_info "$cid: $lost packets taken for lost ($p1 of plane 1, $e1 of" \
		"them elsewhere or by timeout), $resent of them resent, $left" \
		"not (acknowledged, or waiting when tracing stopped);" \
		"$early new packets sent while one waited to be resent;" \
		"$A counted $((r1 - r0)) resends meanwhile"
	[ "${p1:-0}" -gt 0 ] || mrc_fail "no packet of plane 1 taken for lost" ||
		return 1
	[ "${e1:-0}" -gt 0 ] ||
		mrc_fail "nothing of plane 1 taken for lost elsewhere or by timeout" ||
		return 1
	[ "${resent:-0}" -gt 0 ] || mrc_fail "nothing resent" || return 1
	[ "${early:-1}" = 0 ] || mrc_fail "new data went out ahead of resends"
}

# plane_leaves: plane 2's link goes down under a transfer, then up.
plane_leaves()
{
	local rc=0

	tracing mrc_plane || return 1
	port=$((port + 1))
	mrc_xfer_server "$B" "$port" "$tmp" || return 1
	ip netns exec "$A" "$XFER" -c "$peer" -p "$port" -s 4G -T 120 \
		> /dev/null 2> "$tmp/c.err" &
	cli=$!
	sleep 1
	ip -n "$A" link set veth2 down
	mrc_wait_for 20 traced "mrc_plane: cid=0x[0-9a-f]+ plane=2 left" ||
		mrc_fail "plane 2 never left" || rc=1
	ip -n "$A" link set veth2 up
	mrc_wait_for 20 traced "mrc_plane: cid=0x[0-9a-f]+ plane=2 joined" ||
		mrc_fail "plane 2 never joined again" || rc=1
	# Both ends' connections see the plane; the next case needs $A's.
	mrc_wait_for 10 mrc_planes_up "$A" 2 ||
		mrc_fail "plane 2 of $A not up: $("$MRCCTL" -n "$A" plane show)" ||
		rc=1
	kill "$cli" "$srv" 2> /dev/null
	wait "$cli" "$srv" 2> /dev/null
	echo 0 > "$trace/tracing_on"
	return "$rc"
}

mrc_check "events/mrc has $(echo "$EVENTS" | wc -w) events" events_exist

for fam in 4 6; do
	A=mrct-$suffix-a$fam
	B=mrct-$suffix-b$fam
	# IPv6 takes a device's addresses away when it goes down, unless
	# told to keep them: plane_leaves would leave $A's plane 2 without
	# one (no address, no plane) for the cases after it.
	if ! mrc_ns_add "$A" "$B" || ! mrc_link_hosts "$A" "$B" "$fam" 1 2 ||
	   { [ "$fam" = 6 ] && ! ip netns exec "$A" \
		sysctl -qw net.ipv6.conf.veth2.keep_addr_on_down=1; } ||
	   ! mrc_add_planes "$A" "$B" "$fam" 1 2; then
		mrc_fail "cannot build the IPv$fam topology"
	fi
	peer=$(mrc_addr "$fam" 1 2)
	mrc_check "IPv$fam: mrc_state follows both ends of a connection" life
	if [ "$fam" = 4 ]; then
		mrc_check "perf record -e 'mrc:*' sees a connection" perf_sees
		# perf's switch in __schedule() goes back a second after it
		# ends (a deferred static key): let that happen while idle.
		sleep 2
	fi
	mrc_check "IPv$fam: a black-holed EV is retired by its port and label, then restored" \
		black_hole
	drop_ev
	mrc_kill_jobs
	mrc_check "IPv$fam: losses on one EV take its share of the plane's window, not half" \
		ev_share
	mrc_kill_jobs
	echo 0 > "$trace/events/mrc/mrc_send/filter"
	mrc_check "IPv$fam: CE marks on half of plane 1's EVs move their packets, not the plane's window" \
		ev_marks
	mark_link off
	mrc_kill_jobs
	echo 0 > "$trace/events/mrc/mrc_send/filter"
	mrc_check "IPv$fam: CE marks on every EV of plane 1 cut its window" \
		shared_marks
	mark_link off
	mrc_kill_jobs
	echo 0 > "$trace/events/mrc/mrc_send/filter"
	mrc_check "IPv$fam: mrc_plane shows plane 2 leave and join again" \
		plane_leaves
	mrc_check "IPv$fam: a black-holed plane's packets are resent before new data" \
		resend_first
	drop_ev
	mrc_kill_jobs
	mrc_cleanup
done

mrc_finish
