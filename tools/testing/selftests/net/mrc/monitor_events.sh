#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Connection and path events of "mrcctl monitor" (the "conn" and "path"
# netlink groups), on two hosts (network namespaces) joined by two planes,
# IPv4 then IPv6.  Monitors run in the background on both hosts, as text
# and as JSON, and on a third host that has no connection:
#
# - "conn up" at both ends carries the ids, ports and addresses that
#   "mrcctl conn show" lists, and the planes of the connection;
# - a plane's link going down and up: "conn left" (state link-down) and
#   "conn joined" (every EV back) at both ends;
# - "conn down": closed at both ends in order (reason closed); a peer
#   killed with data unread (reset, ECONNRESET, here; aborted there); a
#   connect() refused (refused, ECONNREFUSED, and no "conn up");
# - plane 2 black-holed (netem loss 100%) under a transfer: "ev retired"
#   events name exactly the EVs that "mrcctl -s conn show" lists as
#   retired, with their ports, addresses and flow labels; healed, "ev
#   restored" events bring every one of them back;
# - the text lines have the documented shape;
# - no event reaches the host that has no connection, and the groups
#   refuse a user without CAP_NET_ADMIN.

. "$(dirname "$0")/mrc_lib.sh"

mrc_require_root

mrc_need_mrcctl
mrc_need_bin mrc_conn_hold mrc_xfer
mrc_need_cmd jq tc setpriv timeout
HOLD=$MRC_BIN/mrc_conn_hold
XFER=$MRC_BIN/mrc_xfer
mrc_module_loaded || modprobe mrc || exit "$KSFT_FAIL"
mrc_need_mod sch_netem

# EVs per plane: few, so that a black hole retires them all soon.
EVS=8
UDP_PORT=4793
NOBODY=65534
WAIT=20
[ "${MRC_DEBUG_KERNEL:-0}" = 1 ] && WAIT=60

mrc_plan 19

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

ctl()
{
	local ns=$1

	shift
	"$MRCCTL" -n "$ns" "$@"
}

hex()
{
	printf '0x%08x' "$1"
}

# events FILE: the complete JSON lines of a monitor's FILE, whose last
# line may be in the middle of being written.
events()
{
	sed -n '$!p; ${/}$/p}' "$1"
}

# q FILE FILTER: jq FILTER over the events of FILE, slurped.
q()
{
	events "$1" | jq -s -c "$2"
}

# has FILE FILTER: some event of FILE passes FILTER.
has()
{
	events "$1" | jq -e -s "any(.[]; $2)" > /dev/null 2>&1
}

# mon_start NAME NS [-j]: "mrcctl monitor" on NS in the background, its
# output in $tmp/NAME.
mon_start()
{
	rm -f "$tmp/$1" "$tmp/$1.err"
	"$MRCCTL" -n "$2" ${3:+"$3"} monitor > "$tmp/$1" 2> "$tmp/$1.err" &
}

# poked NS FILE...: a config change on NS reached the monitors of FILE...:
# they have joined their groups.
poked()
{
	local ns=$1 f

	shift
	ctl "$ns" config set evs $((EVS + 1 + RANDOM % 8)) || return 1
	for f in "$@"; do
		grep -q 'config.change' "$f" || return 1
	done
}

monitors()
{
	mon_start a.txt "$A"
	mon_start a.json "$A" -j
	mon_start b.json "$B" -j
	mon_start c.json "$C" -j
	mrc_wait_for 10 poked "$A" "$tmp/a.txt" "$tmp/a.json" &&
		mrc_wait_for 10 poked "$B" "$tmp/b.json" &&
		mrc_wait_for 10 poked "$C" "$tmp/c.json" ||
		mrc_fail "monitors silent: $(cat "$tmp"/*.err)" || return 1
	ctl "$A" config set evs "$EVS" && ctl "$B" config set evs "$EVS"
}

setup()
{
	local ns

	mrc_ns_add "$A" "$B" "$C" && mrc_link_hosts "$A" "$B" "$fam" 1 2 ||
		return 1
	# IPv6 takes a device's addresses away when it goes down, unless...
	for ns in "$A" "$B"; do
		[ "$fam" = 4 ] || ip netns exec "$ns" \
			sysctl -qw net.ipv6.conf.veth2.keep_addr_on_down=1 || return 1
	done
	monitors && mrc_add_planes "$A" "$B" "$fam" 1 2
}

# hold PORT [ARG...]: an mrc_conn_hold server on B, which reads 64 KiB
# (or as ARG says), and a client on A that sends 64 KiB and holds: their
# pids in srv and cli, the client's port in cport, the ids of the
# connection at A and B in aid and bid.
hold()
{
	local p=$1

	shift
	[ $# = 0 ] && set -- -s 64K
	rm -f "$tmp"/[sc].out "$tmp"/[sc].out.err
	ip netns exec "$B" "$HOLD" -l -p "$p" "$@" > "$tmp/s.out" \
		2> "$tmp/s.out.err" &
	srv=$!
	mrc_wait_said "$tmp/s.out" ready "$srv" || return 1
	ip netns exec "$A" "$HOLD" -c "$peer" -p "$p" -s 64K > "$tmp/c.out" \
		2> "$tmp/c.out.err" &
	cli=$!
	mrc_wait_said "$tmp/c.out" sent "$cli" || return 1
	cport=$(awk '$1 == "conn" { print $4 }' "$tmp/c.out")
	aid=$(ctl "$A" -j conn show | jq ".[] | select(.peer_port == $p) | .id")
	bid=$(ctl "$B" -j conn show | jq ".[] | select(.port == $p and .peer_port == $cport) | .id")
	[ -n "$aid" ] && [ -n "$bid" ] ||
		mrc_fail "no connection on port $p: $(ctl "$A" conn show; ctl "$B" conn show)"
}

# up_seen NS FILE ID H: the conn-up event of connection ID in FILE, the
# monitor's of NS, is what "mrcctl conn show" lists of it, with host H's
# addresses on the planes (which conn show does not list).
up_seen()
{
	local got want

	got=$(q "$2" ".[] | select(.event == \"conn-up\" and .conn.id == $3) | .conn |
		{id, peer_id, type, port, peer_family, peer_address, peer_port,
		 planes: [.planes[] | {id, family, address, peer_address, evs}]}")
	want=$(ctl "$1" -j conn show | jq -c --argjson evs "$EVS" \
		--arg a1 "$(mrc_addr "$fam" 1 "$4")" --arg a2 "$(mrc_addr "$fam" 2 "$4")" \
		".[] | select(.id == $3) | {id, peer_id, type, port, peer_family, peer_address, peer_port,
		 planes: [.planes[] | {id, family: .peer_family, address: (if .id == 1 then \$a1 else \$a2 end),
				       peer_address, evs: \$evs}]}")
	mrc_expect "conn-up at $1" "$got" "$want"
}

# A connection's "conn up" event at each end, against "mrcctl conn show".
up()
{
	port=$((port + 1))
	hold "$port" || return 1
	mrc_wait_for "$WAIT" has "$tmp/a.json" ".event == \"conn-up\" and .conn.id == $aid" &&
		mrc_wait_for "$WAIT" has "$tmp/b.json" ".event == \"conn-up\" and .conn.id == $bid" ||
		mrc_fail "no conn-up for $(hex "$aid") and $(hex "$bid")" || return 1
	up_seen "$A" "$tmp/a.json" "$aid" 1 && up_seen "$B" "$tmp/b.json" "$bid" 2 || return 1
	# Each end names the other.
	mrc_expect "B's peer id, port and peer port" \
		"$(q "$tmp/b.json" ".[] | select(.event == \"conn-up\" and .conn.id == $bid) |
			.conn | [.peer_id, .port, .peer_port]")" "[$aid,$port,$cport]" &&
		mrc_expect "A's peer id" \
			"$(q "$tmp/a.json" ".[] | select(.event == \"conn-up\" and .conn.id == $aid) | .conn.peer_id")" \
			"$bid"
}

# plane_event FILE EVENT ID: the plane of the EVENT of connection ID.
plane_event()
{
	q "$1" ".[] | select(.event == \"$2\" and .conn.id == $3) | .conn.plane |
		{id, address, peer_address, state, evs_active}"
}

# Plane 2's link goes down at A (and its carrier at B), then up.  When the
# connection leaves, EVs may have retired; when it joins, all are in use.
plane_flap()
{
	local want f='{id, address, peer_address, state}'

	ip -n "$A" link set veth2 down || return 1
	mrc_wait_for "$WAIT" has "$tmp/a.json" ".event == \"conn-left\" and .conn.id == $aid" &&
		mrc_wait_for "$WAIT" has "$tmp/b.json" ".event == \"conn-left\" and .conn.id == $bid" ||
		mrc_fail "no conn-left" || return 1
	ip -n "$A" link set veth2 up || return 1
	mrc_wait_for "$WAIT" has "$tmp/a.json" ".event == \"conn-joined\" and .conn.id == $aid" &&
		mrc_wait_for "$WAIT" has "$tmp/b.json" ".event == \"conn-joined\" and .conn.id == $bid" ||
		mrc_fail "no conn-joined" || return 1
	want=$(jq -n -c --arg a "$(mrc_addr "$fam" 2 1)" --arg b "$(mrc_addr "$fam" 2 2)" \
		--argjson evs "$EVS" \
		'{id: 2, address: $a, peer_address: $b, state: "link-down", evs_active: $evs}')
	mrc_expect "conn-left at A" "$(plane_event "$tmp/a.json" conn-left "$aid" | jq -c "$f")" \
		"$(jq -c "$f" <<< "$want")" || return 1
	mrc_expect "conn-joined at A" "$(plane_event "$tmp/a.json" conn-joined "$aid")" \
		"$(jq -c '.state = "up"' <<< "$want")" || return 1
	want=$(jq -n -c --arg a "$(mrc_addr "$fam" 2 2)" --arg b "$(mrc_addr "$fam" 2 1)" \
		--argjson evs "$EVS" \
		'{id: 2, address: $a, peer_address: $b, state: "link-down", evs_active: $evs}')
	mrc_expect "conn-left at B" "$(plane_event "$tmp/b.json" conn-left "$bid" | jq -c "$f")" \
		"$(jq -c "$f" <<< "$want")" &&
		mrc_expect "conn-joined at B" "$(plane_event "$tmp/b.json" conn-joined "$bid")" \
			"$(jq -c '.state = "up"' <<< "$want")"
}

# down FILE ID: the conn-down event of connection ID, its key fields.
down()
{
	q "$1" ".[] | select(.event == \"conn-down\" and .conn.id == $2) | .conn |
		[.peer_id, .port, .peer_port, .reason, .error, .rx_packets > 0]"
}

wait_down()
{
	mrc_wait_for "$WAIT" has "$1" ".event == \"conn-down\" and .conn.id == $2" ||
		mrc_fail "no conn-down for $(hex "$2") in $1"
}

# Both ends close the held connection: it ends in order.
closed()
{
	kill "$cli" "$srv"
	wait "$cli" "$srv"
	wait_down "$tmp/a.json" "$aid" && wait_down "$tmp/b.json" "$bid" || return 1
	mrc_expect "conn-down at A" "$(down "$tmp/a.json" "$aid")" \
		"[$bid,$cport,$port,\"closed\",0,true]" &&
		mrc_expect "conn-down at B" "$(down "$tmp/b.json" "$bid")" \
			"[$aid,$port,$cport,\"closed\",0,true]"
}

# The server's process is killed with data unread: it resets the
# connection (aborted there), and the client gets ECONNRESET (reset).
reset()
{
	local rc=0

	port=$((port + 1))
	hold "$port" -s 0 || return 1
	rst_aid=$aid rst_bid=$bid rst_cport=$cport rst_port=$port
	# All delivered, and unread.
	mrc_wait_for "$WAIT" acked || mrc_fail "still in flight: $(ctl "$A" conn show)" ||
		return 1
	kill -KILL "$srv"
	wait "$srv" 2> /dev/null
	wait_down "$tmp/a.json" "$aid" && wait_down "$tmp/b.json" "$bid" || rc=1
	kill "$cli"
	wait "$cli"
	[ "$rc" = 0 ] || return 1
	mrc_expect "conn-down at A" "$(down "$tmp/a.json" "$aid")" \
		"[$bid,$cport,$port,\"reset\",104,true]" &&
		mrc_expect "conn-down at B" "$(down "$tmp/b.json" "$bid")" \
			"[$aid,$port,$cport,\"aborted\",0,true]"
}

acked()
{
	[ "$(ctl "$A" -j conn show | jq ".[] | select(.id == $aid) | .inflight")" = 0 ]
}

# connect() to a port where nothing listens.
refused()
{
	local got id

	port=$((port + 1))
	if ip netns exec "$A" timeout 30 "$HOLD" -c "$peer" -p "$port" \
		> /dev/null 2> "$tmp/r.err"; then
		mrc_fail "connected to port $port"
		return 1
	fi
	mrc_wait_for "$WAIT" has "$tmp/a.json" \
		".event == \"conn-down\" and .conn.peer_port == $port" ||
		mrc_fail "no conn-down to port $port: $(cat "$tmp/r.err")" || return 1
	got=$(q "$tmp/a.json" ".[] | select(.event == \"conn-down\" and .conn.peer_port == $port) |
		.conn | [.peer_address, .reason, .error, .peer_id]")
	mrc_expect "conn-down" "$got" "[\"$peer\",\"refused\",111,0]" || return 1
	id=$(q "$tmp/a.json" ".[] | select(.event == \"conn-down\" and .conn.peer_port == $port) | .conn.id")
	! has "$tmp/a.json" ".event == \"conn-up\" and .conn.id == $id" ||
		mrc_fail "conn-up for a refused connection"
}

# plane2: plane 2 of the transfer's connection at A, as conn show -s lists it.
plane2()
{
	ctl "$A" -j -s conn show |
		jq -c ".[] | select(.id == $xid) | .planes[] | select(.id == 2)"
}

evs_active()
{
	[ "$(plane2 | jq .evs_active)" = "$1" ]
}

# retired_by_events: the EVs of plane 2 of the transfer that events left
# retired: retired, and not restored since; sorted.
retired_by_events()
{
	q "$tmp/a.json" "reduce (.[] | select(.conn.id == $xid and .conn.plane.id == 2)) as \$e
		({}; if \$e.event == \"ev-retired\" then .[\$e.conn.plane.ev | tostring] = 1
		     elif \$e.event == \"ev-restored\" then del(.[\$e.conn.plane.ev | tostring])
		     else . end) | keys | map(tonumber) | sort"
}

events_agree()
{
	[ "$(retired_by_events)" = "$1" ]
}

# EVS of plane 2 black-holed under a transfer from A to B.
black_hole()
{
	local listed bad

	port=$((port + 1))
	mrc_xfer_server "$B" "$port" "$tmp" || return 1
	ip netns exec "$A" "$XFER" -c "$peer" -p "$port" -s 4G -T 120 \
		> /dev/null 2> "$tmp/x.err" &
	xcli=$!
	mrc_wait_for "$WAIT" xfer_on_plane2 || mrc_fail "no transfer on plane 2" ||
		return 1
	tc -n "$A" qdisc add dev veth2 root netem loss 100% || return 1
	if ! mrc_wait_for "$WAIT" evs_active 0; then
		mrc_fail "plane 2 not black-holed: $(plane2)"
		return 1
	fi
	listed=$(plane2 | jq -c '.retired_evs | sort')
	mrc_info "retired: $listed"
	[ "$(jq length <<< "$listed")" = "$EVS" ] ||
		mrc_fail "conn show lists $listed" || return 1
	mrc_wait_for "$WAIT" events_agree "$listed" ||
		mrc_fail "events left $(retired_by_events) retired, conn show lists $listed" ||
		return 1
	# Each names its path: addresses, UDP ports, flow label, losses.
	# Those the plane's silence retired whole may have lost nothing
	# themselves; the first retired for what it lost.
	bad=$(q "$tmp/a.json" "[.[] | select(.event == \"ev-retired\" and .conn.id == $xid and
					.conn.plane.id == 2) | .conn |
		 select(.peer_id != $xpeer or .port != $xport or .peer_port != $port or
			(.plane | .address != \"$(mrc_addr "$fam" 2 1)\" or
			 .peer_address != \"$(mrc_addr "$fam" 2 2)\" or
			 .udp_port != $UDP_PORT or (.losses | type) != \"number\" or
			 .flowlabel != (if $fam == 6 then .ev else null end)))]")
	mrc_expect "ev-retired events with other fields" "$bad" "[]" || return 1
	has "$tmp/a.json" ".event == \"ev-retired\" and .conn.id == $xid and
		.conn.plane.id == 2 and .conn.plane.losses >= 1" ||
		mrc_fail "no ev-retired event counts a loss"
}

# xfer_on_plane2: the transfer's connection at A sent on plane 2: its
# id in xid, its peer's id in xpeer and its port in xport.
xfer_on_plane2()
{
	xid=$(ctl "$A" -j -s conn show | jq ".[] | select(.peer_port == $port) |
		select(any(.planes[]; .id == 2 and .tx_packets > 0)) | .id")
	[ -n "$xid" ] || return 1
	read -r xpeer xport <<< "$(ctl "$A" -j conn show |
		jq -r ".[] | select(.id == $xid) | \"\(.peer_id) \(.port)\"")"
}

# restored_by_events: the EVs of plane 2 of the transfer that an event
# after the first $healing ones restored, each once, sorted.
restored_by_events()
{
	events "$tmp/a.json" | tail -n "+$((healing + 1))" |
		jq -s -c "[.[] | select(.event == \"ev-restored\" and
			.conn.id == $xid and .conn.plane.id == 2) | .conn.plane.ev] | unique"
}

all_restored()
{
	[ "$(restored_by_events)" = "$1" ]
}

# ... then healed: every EV comes back, each with its event.  (Under load
# in a guest, EVs of both planes retire and come back all the time: losses
# in the host's queues.  Each EV's first restore is what counts.)
healed()
{
	local rc=0 listed

	listed=$(retired_by_events)
	healing=$(events "$tmp/a.json" | wc -l)
	tc -n "$A" qdisc del dev veth2 root || rc=1
	mrc_wait_for 30 all_restored "$listed" ||
		mrc_fail "restored: $(restored_by_events), retired: $listed; $(plane2)" ||
		rc=1
	mrc_info "restored: $(restored_by_events)"
	kill "$xcli" "$srv" 2> /dev/null
	wait "$xcli" "$srv" 2> /dev/null
	mrc_info "EV events of the transfer, by plane: $(q "$tmp/a.json" "
		[.[] | select(.conn.id == $xid and (.event | startswith(\"ev-\"))) |
		 \"\\(.event) plane \\(.conn.plane.id)\"] | group_by(.) |
		 map(\"\\(.[0]) \\(length)\") | join(\", \")" | tr -d '"')"
	[ ! -s "$tmp/a.json.err" ] || mrc_info "monitor: $(cat "$tmp/a.json.err")"
	return "$rc"
}

mon_stamp='^\[[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}\.[0-9]{6}\] '

# The text lines: every one of a known shape, and those of the cases.
text()
{
	local bad ev addr1 addr2 dst

	bad=$(grep -vE "${mon_stamp}(plane (add|del|change) id |config change |conn (up|down|left|joined) id 0x[0-9a-f]{8} peer 0x[0-9a-f]{8} |ev (retired|restored) conn 0x[0-9a-f]{8} peer 0x[0-9a-f]{8} plane [0-9]+ ev [0-9]+ )" \
		"$tmp/a.txt")
	[ -z "$bad" ] || mrc_fail "unexpected lines: $bad" || return 1
	addr1=$(mrc_addr "$fam" 1 2) addr2=$(mrc_addr "$fam" 2 2)
	[ "$fam" = 6 ] && addr1="\\[$addr1\\]"
	grep -qE "${mon_stamp}conn up id $(hex "$first_aid") peer $(hex "$first_bid") type stream port $first_cport peer $addr1:$first_port planes 1,2$" "$tmp/a.txt" ||
		mrc_fail "no conn up line" || return 1
	grep -qE "${mon_stamp}conn down id $(hex "$rst_aid") peer $(hex "$rst_bid") type stream port $rst_cport peer $addr1:$rst_port reason reset error ECONNRESET tx [0-9]+ " "$tmp/a.txt" ||
		mrc_fail "no conn down line" || return 1
	grep -qE "${mon_stamp}conn left id $(hex "$first_aid") peer $(hex "$first_bid") port $first_cport plane 2 from [^ ]+ to [^ ]+ state link-down active [0-9]+$" "$tmp/a.txt" ||
		mrc_fail "no conn left line" || return 1
	ev=$(q "$tmp/a.json" "[.[] | select(.event == \"ev-retired\" and .conn.id == $xid and
		.conn.plane.id == 2) | .conn.plane.ev][0]")
	if [ "$fam" = 4 ]; then
		dst="from $(mrc_addr 4 2 1):$ev to $addr2:$UDP_PORT"
	else
		dst="flowlabel $(printf '0x%05x' "$ev") from \[$(mrc_addr 6 2 1)\]:$ev to \[$addr2\]:$UDP_PORT"
	fi
	grep -qE "${mon_stamp}ev retired conn $(hex "$xid") peer $(hex "$xpeer") plane 2 ev $ev $dst losses [0-9]+ active [0-9]+$" "$tmp/a.txt" ||
		mrc_fail "no ev retired line for EV $ev" || return 1
	mrc_info "$(grep -m 1 "ev retired conn $(hex "$xid") .* plane 2 " "$tmp/a.txt")"
	mrc_info "$(grep -m 1 "conn down id $(hex "$rst_aid")" "$tmp/a.txt")"
}

# The host without connections saw none, only its own config changes.
isolated()
{
	mrc_expect "events at C" "$(q "$tmp/c.json" '[.[] | .event] | unique')" \
		'["config-change"]'
}

# A user without CAP_NET_ADMIN cannot join the groups.
unprivileged()
{
	local g out rc=0

	for g in conns paths; do
		out=$(ip netns exec "$A" setpriv --reuid="$NOBODY" --regid="$NOBODY" \
			--clear-groups timeout 5 "$MRCCTL" monitor "$g" 2>&1)
		[ $? = 1 ] && [[ "$out" == *"Operation not permitted"* ]] ||
			mrc_fail "monitor $g as nobody: $out" || rc=1
	done
	# All that it may: planes, with a word about the rest.
	ip netns exec "$A" setpriv --reuid="$NOBODY" --regid="$NOBODY" \
		--clear-groups timeout 3 "$MRCCTL" monitor > /dev/null 2> "$tmp/n.err"
	[ $? = 124 ] && grep -q "need CAP_NET_ADMIN" "$tmp/n.err" ||
		mrc_fail "monitor as nobody: $(cat "$tmp/n.err")" || rc=1
	return "$rc"
}

for fam in 4 6; do
	A=mrcm-$suffix-a$fam
	B=mrcm-$suffix-b$fam
	C=mrcm-$suffix-c$fam
	peer=$(mrc_addr "$fam" 1 2)
	if ! setup; then
		mrc_fail "cannot build the IPv$fam topology"
	fi
	mrc_check "IPv$fam: conn up at both ends: ids, ports, addresses, planes" up
	first_aid=$aid first_bid=$bid first_cport=$cport first_port=$port
	mrc_check "IPv$fam: conn left and joined as plane 2 goes down and up" plane_flap
	mrc_check "IPv$fam: conn down, closed at both ends" closed
	mrc_check "IPv$fam: conn down, reset here and aborted there when the peer is killed" reset
	mrc_check "IPv$fam: conn down, refused, and no conn up" refused
	mrc_check "IPv$fam: ev retired: the EVs conn show lists as retired, by path" black_hole
	mrc_check "IPv$fam: ev restored: every EV, once healed" healed
	mrc_check "IPv$fam: text lines" text
	mrc_check "IPv$fam: nothing at a host without connections" isolated
	mrc_info "IPv$fam done after ${SECONDS}s"
	[ "$fam" = 4 ] && mrc_check "conn and path groups need CAP_NET_ADMIN" unprivileged
	mrc_kill_jobs
	mrc_cleanup
	rm -f "$tmp"/*
done

mrc_finish
