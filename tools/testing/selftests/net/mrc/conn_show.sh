#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Connections through netlink and mrcctl: "mrcctl conn show" on two hosts
# (network namespaces) joined by three veth pairs: planes 1 and 2 are IPv4
# on both hosts, plane 3 is IPv6 on host A and IPv4 on host B, so that no
# connection can use it.  A connection moves 4 MiB from A to B and stays
# open while both ends are looked at: matching ids, ports and addresses,
# the planes it uses and their counters, the text and JSON output, one
# connection by id, unknown ids, unprivileged readers, isolation between
# namespaces, a dump of 201 connections that takes several messages, the
# send rings of 200 idle connections given back, the connections going
# away once closed, the round trip of a handshake whose SYN_ACK was sent
# twice, and a connection over 16 IPv6 planes (hosts D and E), too large
# for the first part of a dump unless the dump asks for room.

. "$(dirname "$0")/mrc_lib.sh"

mrc_require_root

mrc_need_mrcctl
mrc_need_bin mrc_conn_hold
mrc_need_cmd jq
HOLD=$MRC_BIN/mrc_conn_hold
mrc_module_loaded || modprobe mrc || exit "$KSFT_FAIL"

mrc_plan 21

# EVs per plane by default (mrcctl config show).
EVS=32
SIZE=$((4 << 20))
PORT=5001
MANY=200
# Retired EVs, 8 bytes each, that make the message of a connection over 16
# IPv6 planes (3.7 KB without) too large for a page.
RETIRED16=8

suffix=$(printf '%04x' $RANDOM)
tmp=$(mktemp -d)
A=mrcs-$suffix-a
B=mrcs-$suffix-b
C=mrcs-$suffix-c
D=mrcs-$suffix-d
E=mrcs-$suffix-e
pids=()

cleanup()
{
	local pid

	for pid in "${pids[@]}"; do
		kill "$pid" 2> /dev/null
	done
	wait 2> /dev/null
	mrc_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT

ctl()
{
	local ns=$1

	shift
	"$MRCCTL" -n "$ns" "$@"
}

# conns NS: the connections of NS as JSON, with the counters.
conns()
{
	ctl "$1" -j -s conn show
}

# q NS FILTER: jq FILTER over conns NS, raw output.
q()
{
	conns "$1" | jq -r "$2"
}

setup()
{
	local ns k

	mrc_ns_add "$A" "$B" "$C" || return 1
	ip -n "$A" -batch - <<-EOF || return 1
	link add veth1 type veth peer name veth1 netns $B
	link add veth2 type veth peer name veth2 netns $B
	link add veth3 type veth peer name veth3 netns $B
	link set veth1 up
	link set veth2 up
	link set veth3 up
	addr add 10.0.1.1/24 dev veth1
	addr add 10.0.2.1/24 dev veth2
	addr add fd00:3::1/64 dev veth3 nodad
	EOF
	ip -n "$B" -batch - <<-EOF || return 1
	link set veth1 up
	link set veth2 up
	link set veth3 up
	addr add 10.0.1.2/24 dev veth1
	addr add 10.0.2.2/24 dev veth2
	addr add 10.0.3.2/24 dev veth3
	EOF
	for ns in "$A" "$B"; do
		for k in 1 2 3; do
			ctl "$ns" plane add dev "veth$k" id "$k" || return 1
		done
	done
	mrc_wait_for 10 planes_up "$A" && mrc_wait_for 10 planes_up "$B" ||
		mrc_fail "planes not up: $(ctl "$A" plane show; ctl "$B" plane show)"
}

# planes_up NS: the three planes of NS are up.
planes_up()
{
	[ "$(ctl "$1" -j plane show | jq -c '[.[] | select(.state == "up") | .id]')" = \
		"[1,2,3]" ]
}

none_yet()
{
	mrc_expect "text on $A" "$(ctl "$A" conn show)" "" &&
		mrc_expect "JSON on $B" "$(ctl "$B" -j conn show)" "[]"
}

# said FILE WORD: a line of FILE starts with WORD.
said()
{
	grep -q "^$2 " "$1" 2> /dev/null
}

# start NAME NS ARG...: mrc_conn_hold ARG... in NS, in the background,
# output in $tmp/NAME.out and .err; its pid in $pid.
start()
{
	local name=$1 ns=$2

	shift 2
	rm -f "$tmp/$name.out" "$tmp/$name.err"
	ip netns exec "$ns" "$HOLD" "$@" > "$tmp/$name.out" 2> "$tmp/$name.err" &
	pid=$!
	pids+=("$pid")
}

# wait_said NAME PID WORD: NAME printed WORD, or failed.
wait_said()
{
	mrc_wait_for 120 said_or_gone "$1" "$2" "$3"
	said "$tmp/$1.out" "$3" && return 0
	mrc_fail "$1 did not say $3:"
	mrc_show "$tmp/$1.out"
	mrc_show "$tmp/$1.err"
	return 1
}

said_or_gone()
{
	said "$tmp/$1.out" "$3" || ! kill -0 "$2" 2> /dev/null
}

# A 4 MiB transfer from A to B; both keep their connection open.
transfer()
{
	local srv

	start s "$B" -l -p "$PORT" -s "$SIZE" && srv=$pid
	wait_said s "$srv" ready || return 1
	start c "$A" -c 10.0.1.2 -p "$PORT" -s "$SIZE" && cli=$pid
	wait_said c "$cli" sent && wait_said s "$srv" received || return 1
	client_port=$(awk '$1 == "conn" { print $4 }' "$tmp/c.out")
	mrc_expect "received" "$(grep received "$tmp/s.out")" "received $SIZE" ||
		return 1
	# All acknowledged: the counters are final.
	mrc_wait_for 10 acked || mrc_fail "still in flight: $(conns "$A")"
}

acked()
{
	[ "$(q "$A" '.[0].inflight')" = 0 ]
}

one_each()
{
	mrc_expect "connections on $A" "$(q "$A" length)" 1 &&
		mrc_expect "connections on $B" "$(q "$B" length)" 1 || return 1
	a_id=$(q "$A" '.[0].id')
	b_id=$(q "$B" '.[0].id')
}

ids_match()
{
	[ "$a_id" -gt 0 ] && [ "$b_id" -gt 0 ] ||
		mrc_fail "ids $a_id and $b_id" || return 1
	mrc_expect "peer id on $B" "$(q "$B" '.[0].peer_id')" "$a_id" &&
		mrc_expect "peer id on $A" "$(q "$A" '.[0].peer_id')" "$b_id"
}

ports_addresses()
{
	local f='.[0] | [.port, .peer_port, .peer_family, .peer_address] | join(" ")'

	mrc_expect "$A" "$(q "$A" "$f")" "$client_port $PORT inet 10.0.1.2" &&
		mrc_expect "$B" "$(q "$B" "$f")" "$PORT $client_port inet 10.0.1.1"
}

type_state()
{
	local ns mss

	for ns in "$A" "$B"; do
		mrc_expect "type and state on $ns" \
			"$(q "$ns" '.[0] | "\(.type) \(.state)"')" "stream established" ||
			return 1
		mss=$(q "$ns" '.[0].mss')
		[ "$mss" -ge 256 ] && [ "$mss" -le 1500 ] ||
			mrc_fail "mss $mss on $ns" || return 1
	done
}

planes_used()
{
	local f='[.[0].planes[] | "\(.id) \(.peer_family) \(.peer_address) \(.evs)"] | join(",")'

	mrc_expect "planes on $A" "$(q "$A" "$f")" \
		"1 inet 10.0.1.2 $EVS,2 inet 10.0.2.2 $EVS" &&
		mrc_expect "planes on $B" "$(q "$B" "$f")" \
			"1 inet 10.0.1.1 $EVS,2 inet 10.0.2.1 $EVS"
}

# Both ends time the handshake on its plane: B, which sent no data, has a
# round trip only from its SYN_ACK to A's answer.  The base, the smallest
# round trip, is one of those the smoothed one averages: never above it.
handshake_rtt()
{
	local ns srtt base

	for ns in "$A" "$B"; do
		read -r srtt base <<< "$(q "$ns" '.[0].planes[] | select(.id == 1) |
			"\(.srtt_us) \(.base_rtt_us)"')"
		[ "${srtt:-0}" -gt 0 ] ||
			mrc_fail "plane 1's srtt on $ns: '$srtt'" || return 1
		[ "${base:-0}" -gt 0 ] && [ "$base" -le "$srtt" ] ||
			mrc_fail "plane 1's base RTT on $ns: '$base', srtt $srtt" ||
			return 1
	done
}

sender_counters()
{
	local mss tx sum=0 n retx bytes

	mss=$(q "$A" '.[0].mss')
	tx=$(q "$A" '[.[0].planes[].tx_packets] | join(" ")')
	mrc_info "packets sent on planes 1 and 2: $tx (mss $mss)"
	for n in $tx; do
		[ "$n" -gt 0 ] || mrc_fail "a plane sent nothing: $tx" || return 1
		sum=$((sum + n))
	done
	[ "$sum" -ge $(((SIZE + mss - 1) / mss)) ] ||
		mrc_fail "$sum packets for $SIZE bytes of $mss" || return 1
	mrc_expect "connection's tx_packets" "$(q "$A" '.[0].tx_packets')" "$sum" || return 1
	retx=$(q "$A" '.[0].retransmits')
	mrc_expect "connection's retransmits" "$retx" \
		"$(q "$A" '[.[0].planes[].retransmits] | add')" || return 1
	# Payload bytes: at least the 4 MiB, more for resends.
	bytes=$(q "$A" '[.[0].planes[].tx_bytes] | add')
	[ "$bytes" -ge "$SIZE" ] || mrc_fail "$bytes bytes sent" || return 1
	# The receiver got them all, over both planes.
	n=$(q "$B" '.[0].rx_packets')
	[ "$n" -ge $(((SIZE + mss - 1) / mss)) ] ||
		mrc_fail "receiver counted $n packets" || return 1
	mrc_expect "receiver's planes" "$(q "$B" '[.[0].planes[].rx_packets] | add')" "$n"
}

# Text: one line per connection, one per plane, and the counters with -s.
text()
{
	local out hex='0x[0-9a-f]{8}' num='[0-9]+' re k lines

	out=$(ctl "$A" conn show) || return 1
	printf '%s\n' "$out" | sed 's/^/#   /'
	mapfile -t lines <<< "$out"
	[ "${#lines[@]}" = 3 ] || mrc_fail "${#lines[@]} lines" || return 1
	re="^conn $(printf '0x%08x' "$a_id") peer $(printf '0x%08x' "$b_id") type stream"
	re+=" state established port $client_port peer 10\.0\.1\.2:$PORT mss $num"
	re+=" snd_wnd $num rcv_wnd $num inflight $num$"
	[[ "${lines[0]}" =~ $re ]] || mrc_fail "connection line" || return 1
	for k in 1 2; do
		re="^  plane $k peer 10\.0\.$k\.2 evs $EVS active $num cwnd $num srtt ${num}us base ${num}us inflight $num$"
		[[ "${lines[k]}" =~ $re ]] || mrc_fail "plane $k line" || return 1
	done

	out=$(ctl "$A" -s conn show) || return 1
	printf '%s\n' "$out" | sed 's/^/#   /'
	mapfile -t lines <<< "$out"
	[ "${#lines[@]}" = 4 ] || mrc_fail "${#lines[@]} lines with -s" || return 1
	[[ "${lines[0]}" =~ ^conn\ $hex\ peer\ $hex ]] ||
		mrc_fail "connection line with -s" || return 1
	re="^  tx $num rx $num retx $num timeouts $num rx_dropped $num"
	re+=" rx_duplicates $num acks_sent $num$"
	[[ "${lines[1]}" =~ $re ]] || mrc_fail "counters line" || return 1
	for k in 1 2; do
		re="^  plane $k peer 10\.0\.$k\.2 evs $EVS active $num cwnd $num srtt ${num}us base ${num}us inflight $num"
		re+=" tx $num pkts [0-9.]+[kMGTPE]?B rx $num retx $num retired $num probes $num"
		re+=" restored $num silenced $num probe_gap ${num}us reorder ${num}us"
		re+=" ce $num nacks $num"
		re+="( retired_evs [0-9]+(,[0-9]+)*)?$"
		[[ "${lines[k + 1]}" =~ $re ]] || mrc_fail "plane $k line with -s" || return 1
	done
}

json()
{
	local opts

	for opts in -j -p "-j -s" "-p -s"; do
		# shellcheck disable=SC2086 # $opts is a list of options
		ctl "$B" $opts conn show | jq -e 'length == 1 and (.[0].planes | length) == 2' \
			> /dev/null || mrc_fail "mrcctl $opts conn show: not the JSON expected" ||
			return 1
	done
	# The counters only with -s.
	mrc_expect "keys without -s" "$(ctl "$B" -j conn show | jq -c '.[0] | keys')" \
		'["id","inflight","mss","peer_address","peer_family","peer_id","peer_port","planes","port","rcv_wnd","snd_wnd","state","type"]' &&
		mrc_expect "plane keys without -s" \
			"$(ctl "$B" -j conn show | jq -c '.[0].planes[0] | keys')" \
			'["base_rtt_us","cwnd","evs","evs_active","id","inflight","peer_address","peer_family","srtt_us"]' &&
		mrc_expect "keys with -s" "$(ctl "$B" -j -s conn show | jq -c '.[0] | keys')" \
			'["acks_sent","id","inflight","mss","peer_address","peer_family","peer_id","peer_port","planes","port","rcv_wnd","retransmits","rx_dropped","rx_duplicates","rx_packets","snd_wnd","state","timeouts","tx_packets","type"]' &&
		mrc_expect "plane keys with -s" \
			"$(ctl "$B" -j -s conn show | jq -c '.[0].planes[0] | keys')" \
			'["base_rtt_us","ce_marks","cwnd","evs","evs_active","evs_silenced","id","inflight","nacks","peer_address","peer_family","probe_gap_us","probes","reorder_us","restores","retired_evs","retirements","retransmits","rx_packets","srtt_us","tx_bytes","tx_packets"]'
}

by_id()
{
	local hex want

	hex=$(printf '0x%08x' "$a_id")
	want=$(ctl "$A" -j conn show | jq -c .)
	mrc_expect "id $a_id" "$(ctl "$A" -j conn show id "$a_id" | jq -c .)" "$want" &&
		mrc_expect "id $hex" "$(ctl "$A" -j conn show id "$hex" | jq -c .)" "$want" &&
		mrc_expect "text" "$(ctl "$A" conn show id "$hex" | head -n 1 | cut -d' ' -f2)" "$hex"
}

unknown_id()
{
	local err rc id=$((a_id ^ 1))

	[ "$id" != "$b_id" ] || id=$((a_id ^ 2))
	err=$(ctl "$A" conn show id "$id" 2>&1 > /dev/null)
	rc=$?
	[ "$rc" = 1 ] && [[ "$err" == "mrcctl: no such connection: "* ]] ||
		mrc_fail "unknown id: exit $rc, '$err'" || return 1
	# The id of the peer's end is unknown here.
	err=$(ctl "$A" conn show id "$b_id" 2>&1 > /dev/null)
	[ $? = 1 ] || mrc_fail "the peer's id found on $A: $err"
}

aliases()
{
	local want

	want=$(ctl "$A" -j conn show | jq -c .)
	mrc_expect "conn" "$(ctl "$A" -j conn | jq -c .)" "$want" &&
		mrc_expect "conn list" "$(ctl "$A" -j conn list | jq -c .)" "$want" &&
		mrc_expect "conn sh" "$(ctl "$A" -j conn sh | jq -c .)" "$want" || return 1
	ctl "$A" conn show bogus > /dev/null 2>&1
	mrc_expect "exit status of 'conn show bogus'" $? 2 || return 1
	"$MRCCTL" help | grep -q 'mrcctl conn { show' ||
		mrc_fail "help does not mention 'conn show'"
}

unprivileged()
{
	local out

	if ! command -v setpriv > /dev/null; then
		mrc_info "setpriv not found"
		return "$KSFT_SKIP"
	fi
	out=$(ip netns exec "$A" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$MRCCTL" -j conn show) || mrc_fail "mrcctl as nobody failed" || return 1
	# The connection, but not the ids that would let a packet pass for
	# its peer's, nor an answer to a lookup by id.
	mrc_expect "port seen by nobody" "$(jq -r '.[0].port' <<< "$out")" \
		"$(ctl "$A" -j conn show | jq -r '.[0].port')" || return 1
	mrc_expect "id seen by nobody" "$(jq -r '.[0].id' <<< "$out")" null ||
		return 1
	mrc_expect "peer id seen by nobody" \
		"$(jq -r '.[0].peer_id' <<< "$out")" null ||
		return 1
	mrc_expect "nobody's lookup of id $a_id" \
		"$(ip netns exec "$A" setpriv --reuid=65534 --regid=65534 \
			--clear-groups "$MRCCTL" conn show id "$a_id" 2>&1)" \
		"mrcctl: no such connection: No such file or directory"
}

isolated()
{
	mrc_expect "connections in $C" "$(ctl "$C" -j conn show)" "[]" &&
		mrc_expect "id $a_id in $C" "$(ctl "$C" conn show id "$a_id" 2>&1)" \
			"mrcctl: no such connection: No such file or directory"
}

# $MANY more connections: with a message per connection, the dump takes
# several datagrams, and each connection must come in one of them only.
many()
{
	local srv cli ids peer_ids

	start ms "$B" -l -p $((PORT + 1)) -n "$MANY" && srv=$pid
	wait_said ms "$srv" ready || return 1
	start mc "$A" -c 10.0.2.2 -p $((PORT + 1)) -n "$MANY" && cli=$pid
	wait_said mc "$cli" sent && wait_said ms "$srv" received || return 1
	ids=$(q "$A" '[.[].id] | sort | join(" ")')
	peer_ids=$(q "$B" '[.[].peer_id] | sort | join(" ")')
	mrc_expect "connections on $A" "$(wc -w <<< "$ids")" $((MANY + 1)) &&
		mrc_expect "distinct on $A" "$(tr ' ' '\n' <<< "$ids" | sort -u | wc -l)" \
			$((MANY + 1)) &&
		mrc_expect "peer ids on $B" "$peer_ids" "$ids" &&
		mrc_expect "text lines on $B" \
			"$(ctl "$B" conn show | grep -c '^conn ')" $((MANY + 1)) || return 1
	kill "$cli" "$srv"
	wait "$cli" "$srv"
	return 0
}

# The send rings (8 KiB each, kmalloc-cg-8k) of connections idle for a
# second go back: $MANY clients that sent 4 KiB each hold fewer than
# $MANY / 2 a few seconds later, where each kept one for good before.
# A kernel without kmalloc-cg caches (the debug kernel's) charges them
# in kmalloc-8k.
cg8k()
{
	awk '$1 == "kmalloc-cg-8k" { cg = $2 } $1 == "kmalloc-8k" { k = $2 }
		END { print (cg != "" ? cg : k) }' /proc/slabinfo
}

rings_back()
{
	[ $(($(cg8k) - $1)) -lt $((MANY / 2)) ]
}

idle_rings()
{
	local srv cli before

	before=$(cg8k)
	[ -n "$before" ] || { mrc_fail "no kmalloc-cg-8k nor kmalloc-8k in /proc/slabinfo"; return 1; }
	start rs "$B" -l -p $((PORT + 2)) -n "$MANY" -s 4K && srv=$pid
	wait_said rs "$srv" ready || return 1
	start rc "$A" -c 10.0.2.2 -p $((PORT + 2)) -n "$MANY" -s 4K && cli=$pid
	wait_said rc "$cli" sent && wait_said rs "$srv" received || return 1
	mrc_wait_for 15 rings_back "$before" ||
		mrc_fail "kmalloc-cg-8k: $before objects before, $(cg8k) after $MANY connections sat idle" ||
		return 1
	kill "$cli" "$srv"
	wait "$cli" "$srv"
	return 0
}

none_left()
{
	[ "$(ctl "$A" -j conn show)" = "[]" ] && [ "$(ctl "$B" -j conn show)" = "[]" ]
}

closed()
{
	local pid

	for pid in "${pids[@]}"; do
		kill "$pid" 2> /dev/null
	done
	wait 2> /dev/null
	pids=()
	mrc_wait_for 30 none_left ||
		mrc_fail "left: $(ctl "$A" -s conn show; ctl "$B" -s conn show)"
}

# A's answer to B's SYN_ACK waits 30 ms on its way, longer than B's first
# timeout (20 ms): B sends the SYN_ACK again, and still times the
# handshake, from its first SYN_ACK; without that, its first data would
# go with the 20 ms timeout of a plane never timed.
synack_again()
{
	local srv srtt rc=0 k

	# On every plane: the answer may take any.
	for k in 1 2 3; do
		tc -n "$A" qdisc add dev "veth$k" root netem delay 30ms || return 1
	done
	start hs "$B" -l -p $((PORT + 2)) && srv=$pid
	if wait_said hs "$srv" ready; then
		start hc "$A" -c 10.0.1.2 -p $((PORT + 2))
		wait_said hs "$srv" accepted || rc=1
	else
		rc=1
	fi
	for k in 1 2 3; do
		tc -n "$A" qdisc del dev "veth$k" root
	done
	[ "$rc" = 0 ] || return 1
	srtt=$(q "$B" '.[0].planes[] | select(.id == 1) | .srtt_us')
	mrc_info "B's srtt on plane 1: $srtt us"
	[ "${srtt:-0}" -ge 30000 ] || mrc_fail "not 30 ms or more"
}

# A connection over all 16 planes, IPv6 ones (the largest addresses), on
# hosts D and E: its message (about 4.3 KB) is larger than the first part
# of a dump, made before netlink knows the reader's buffer, holds unless
# the dump asks for room.  Both ends show it whole, in a dump, in text and
# by id.
planes16()
{
	local srv cli ns k id n

	mrc_ns_add "$D" "$E" && mrc_link_hosts "$D" "$E" 6 1 16 || return 1
	for k in $(seq 1 16); do
		ctl "$D" plane add dev "veth$k" id $((k - 1)) addr "fd00:$k::1" &&
			ctl "$E" plane add dev "veth$k" id $((k - 1)) \
				addr "fd00:$k::2" || return 1
	done
	mrc_wait_for 10 mrc_planes_up "$D" 16 && mrc_wait_for 10 mrc_planes_up "$E" 16 ||
		mrc_fail "planes not up: $(ctl "$D" plane show; ctl "$E" plane show)" ||
		return 1
	start ps "$E" -l -p $((PORT + 3)) -s 8M && srv=$pid
	wait_said ps "$srv" ready || return 1
	start pc "$D" -c fd00:1::2 -p $((PORT + 3)) -s 8M -g && cli=$pid
	wait_said pc "$cli" connected || return 1
	# What D sends from odd ports is lost, once connected: those of its
	# EVs that carry data retire, and each adds to the message.
	for k in $(seq 1 16); do
		tc -n "$D" qdisc add dev "veth$k" clsact &&
			tc -n "$D" filter add dev "veth$k" egress protocol ipv6 \
				u32 match ip6 protocol 17 0xff match ip6 sport 1 1 \
				action drop || return 1
	done
	kill -USR1 "$cli"
	wait_said pc "$cli" sent && wait_said ps "$srv" received || return 1
	n=$(ctl "$D" -j -s conn show | jq '[.[0].planes[].retired_evs // [] | length] | add')
	mrc_info "$D: ${n:-no} EVs retired"
	[ "${n:-0}" -ge "$RETIRED16" ] ||
		mrc_fail "fewer than $RETIRED16 EVs retired: the message fits a page" ||
		return 1
	# mrcctl asks for the family's id on the socket it dumps from, which
	# tells netlink its buffer; a reader that knows the id dumps at once.
	n=$(ip netns exec "$D" python3 - <<-'EOF'
	import socket, struct
	def nlmsg(mtype, flags, cmd, attrs=b""):
	    body = struct.pack("BBH", cmd, 1, 0) + attrs
	    return struct.pack("=IHHII", 16 + len(body), mtype, flags, 1, 0) + body
	def attrs(data):
	    while len(data) >= 4:
	        alen, atype = struct.unpack_from("=HH", data)
	        yield atype & 0x3fff, data[4:alen]
	        data = data[(alen + 3) & ~3:]
	def sock():
	    return socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 16)
	ctrl = sock()
	# CTRL_CMD_GETFAMILY (3) for CTRL_ATTR_FAMILY_NAME (2) "mrc".
	ctrl.send(nlmsg(0x10, 1, 3, struct.pack("=HH", 8, 2) + b"mrc\0"))
	reply = ctrl.recv(65536)
	fam = next(struct.unpack("=H", v[:2])[0]
	           for t, v in attrs(reply[20:]) if t == 1)
	dump = sock()
	# MRC_CMD_CONN_GET (11), NLM_F_REQUEST | NLM_F_DUMP.
	dump.send(nlmsg(fam, 0x301, 11))
	conns, done = 0, False
	while not done:
	    data = dump.recv(65536)
	    while len(data) >= 16 and not done:
	        mlen, mtype = struct.unpack_from("=IH", data)
	        if mtype in (2, 3):
	            # NLMSG_ERROR, or NLMSG_DONE with the dump's error.
	            err = struct.unpack_from("=i", data, 16)[0]
	            if err:
	                print("error", -err)
	            done = True
	        elif mtype == fam:
	            conns += 1
	        data = data[(mlen + 3) & ~3:]
	print("conns", conns)
	EOF
	)
	mrc_expect "a dump on a socket that read nothing before" "$n" "conns 1" ||
		return 1
	for ns in "$D" "$E"; do
		n=$(ctl "$ns" -j -s conn show | jq '.[0].planes | length') ||
			mrc_fail "$ns: conn show failed" || return 1
		mrc_expect "planes in the dump on $ns" "$n" 16 || return 1
		n=$(ctl "$ns" -s conn show | grep -c '^  *plane ') ||
			mrc_fail "$ns: no plane in the text" || return 1
		mrc_expect "plane lines on $ns" "$n" 16 || return 1
		id=$(ctl "$ns" -j conn show | jq -r '.[0].id')
		n=$(ctl "$ns" -j -s conn show id "$id" | jq '.[0].planes | length')
		mrc_expect "planes by id on $ns" "$n" 16 || return 1
	done
	kill "$cli" "$srv"
	wait "$cli" "$srv"
	return 0
}

if ! setup; then
	mrc_fail "cannot build the topology"
fi
mrc_check "no connection: no text, an empty JSON array" none_yet
mrc_check "a 4 MiB stream from A to B over planes 1 and 2, held open" transfer
mrc_check "one connection on each host" one_each
mrc_check "our id on one host is the peer id on the other" ids_match
mrc_check "ports and peer addresses on both hosts" ports_addresses
mrc_check "type stream, state established, mss" type_state
mrc_check "planes 1 and 2 with $EVS EVs each; plane 3 (IPv6 against IPv4) not used" \
	planes_used
mrc_check "both ends timed the handshake: srtt and base RTT on plane 1, even on B that sent no data" \
	handshake_rtt
mrc_check "sender: packets on each plane, 4 MiB / mss in all; counters add up" \
	sender_counters
mrc_check "text: a line per connection and per plane, counters with -s" text
mrc_check "JSON with -j, -p and -s parses with jq" json
mrc_check "conn show id, in decimal and in hex" by_id
mrc_check "an unknown id: exit 1, no such connection" unknown_id
mrc_check "conn, conn list and conn sh show; a bad argument exits 2" aliases
mrc_check "an unprivileged user sees the connections, not their ids" unprivileged
mrc_check "another namespace sees none of them" isolated
mrc_check "$MANY more connections: a dump in several parts lists each once" many
mrc_check "$MANY idle connections give their send rings back" idle_rings
mrc_check "the connections are gone once both ends close" closed
mrc_check "a SYN_ACK sent twice: the handshake still timed, from the first" \
	synack_again
mrc_check "a connection over 16 IPv6 planes: shown whole at both ends, dumped, in text and by id" \
	planes16

mrc_finish
