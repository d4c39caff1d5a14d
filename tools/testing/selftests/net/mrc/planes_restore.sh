#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A plane whose device goes away waits for it and comes back by itself:
#
# - the veth pair of plane 2 deleted: plane 2 of both hosts shows
#   no-device, with its id, device name and address, and the monitor
#   prints the change;
# - plane set on the waiting plane changes what it comes back with;
# - a device of that name made in another namespace does not bring it
#   back; moved into the plane's namespace, it does;
# - the pair made again with the same names and addresses: plane 2 of both
#   hosts is back, same id, up (a new ifindex);
# - a transfer over planes 1 and 2 outlives the deletion and return of
#   plane 2's devices, data intact, and plane 2 carries data again;
# - plane del removes a waiting plane (by id, and by the name of its
#   missing device); a device of that name then brings nothing back;
# - a plane that picked its own address picks the returning device's.
#
# IPv4 and IPv6.

. "$(dirname "$0")/mrc_lib.sh"

mrc_require_root

mrc_need_mrcctl
mrc_need_bin mrc_xfer
mrc_need_cmd jq tc
XFER=$MRC_BIN/mrc_xfer
mrc_module_loaded || modprobe mrc || exit "$KSFT_FAIL"
mrc_need_mod sch_tbf

mrc_plan 16

suffix=$(printf '%04x' $RANDOM)
tmp=$(mktemp -d)
port=9100
A=mrcr-$suffix-a
B=mrcr-$suffix-b
C=mrcr-$suffix-c

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

addr()
{
	mrc_addr "$fam" "$@"
}

ifindex()
{
	local line

	line=$(ip -n "$1" -o link show dev "$2") && echo "${line%%:*}"
}

# state_is NS ID STATE: plane ID of NS is in STATE.
state_is()
{
	[ "$(ctl "$1" -j plane show id "$2" 2> /dev/null | jq -r '.[0].state')" = "$3" ]
}

# wait_state NS ID STATE
wait_state()
{
	mrc_wait_for 10 state_is "$@" ||
		mrc_fail "plane $2 of $1 not $3: $(ctl "$1" plane show)"
}

# ids NS: the ids of the planes of NS, as a JSON array.
ids()
{
	ctl "$1" -j plane show | jq -c '[.[].id]'
}

# pair_add: the veth pair of plane 2 again, up, with its addresses.
pair_add()
{
	local len=24 opt=

	[ "$fam" = 4 ] || len=64 opt=nodad
	# shellcheck disable=SC2086 # $opt is empty or one option
	ip -n "$A" link add veth2 type veth peer name veth2 netns "$B" &&
		ip -n "$A" link set veth2 up && ip -n "$B" link set veth2 up &&
		ip -n "$A" addr add "$(addr 2 1)/$len" dev veth2 $opt &&
		ip -n "$B" addr add "$(addr 2 2)/$len" dev veth2 $opt
}

setup()
{
	[ -z "$mon" ] || monitor_stop
	mrc_cleanup
	mrc_ns_add "$A" "$B" "$C" || return 1
	mrc_link_hosts "$A" "$B" "$fam" 1 2 || return 1
	mrc_add_planes "$A" "$B" "$fam" 1 2 || return 1
	rm -f "$tmp/mon"
	"$MRCCTL" -n "$A" monitor planes > "$tmp/mon" 2>&1 &
	mon=$!
	# Subscribed once a change shows.
	mrc_wait_for 10 poke_monitor
}

poke_monitor()
{
	ctl "$A" config set evs 32 && grep -q 'config change' "$tmp/mon"
}

monitor_stop()
{
	kill "$mon" 2> /dev/null
	wait "$mon" 2> /dev/null
	mon=
}

############################################################################

pair_deleted()
{
	local family=inet want

	[ "$fam" = 4 ] || family=inet6
	old_ifindex=$(ifindex "$A" veth2)
	ip -n "$A" link del veth2 || return 1
	wait_state "$A" 2 no-device && wait_state "$B" 2 no-device || return 1
	want=$(printf '[{"id":2,"ifname":"veth2","family":"%s","address":"%s","admin_up":true,"state":"no-device","evs":32,"base_rtt_us":0}]' \
		"$family" "$(addr 2 1)")
	mrc_expect "plane 2 of $A" "$(ctl "$A" -j plane show id 2 | jq -c .)" "$want" ||
		return 1
	mrc_expect "planes of $B" "$(ids "$B")" '[1,2]' || return 1
	mrc_expect "count" "$(ctl "$A" -j config show | jq .planes)" 1 || return 1
	mrc_wait_for 5 grep -qE "plane change id 2 dev veth2 addr $(addr 2 1) state no-device evs 32$" \
		"$tmp/mon" || mrc_fail "monitor: $(cat "$tmp/mon")"
}

# Changed while waiting; its id is not given to another plane.
set_waiting()
{
	local out err

	out=$(ctl "$A" -j plane set id 2 evs 20 base-rtt 3000 down |
		jq -c '[.admin_up, .state, .evs, .base_rtt_us]') || return 1
	mrc_expect "set" "$out" '[false,"no-device",20,3000]' || return 1
	ip -n "$A" link add v9 type veth peer name p9 &&
		ip -n "$A" addr add 10.9.0.1/24 dev v9 || return 1
	err=$(ctl "$A" plane add dev v9 id 2 2>&1 > /dev/null)
	ip -n "$A" link del v9
	[[ "$err" == *"plane id is in use"*"File exists" ]] ||
		mrc_fail "plane add with id 2: '$err'"
}

# A veth2 made in $C leaves plane 2 of $A waiting; moved into $A, it
# brings the plane back, as it was set.
other_namespace()
{
	ip -n "$C" link add veth2 type veth peer name p2 || return 1
	mrc_expect "planes of $C" "$(ctl "$C" -j plane show | jq -c .)" '[]' || return 1
	state_is "$A" 2 no-device || mrc_fail "plane 2 of $A: $(ctl "$A" plane show)" ||
		return 1
	ip -n "$C" link set veth2 netns "$A" || return 1
	wait_state "$A" 2 admin-down || return 1
	mrc_expect "evs, base-rtt" \
		"$(ctl "$A" -j plane show id 2 | jq -c '.[0] | [.ifname, .evs, .base_rtt_us]')" \
		'["veth2",20,3000]' || return 1
	ip -n "$A" link del veth2 && wait_state "$A" 2 no-device
}

pair_back()
{
	pair_add || return 1
	wait_state "$B" 2 up && wait_state "$A" 2 admin-down || return 1
	ctl "$A" plane set id 2 up evs 32 base-rtt 0 && wait_state "$A" 2 up ||
		return 1
	[ "$(ifindex "$A" veth2)" != "$old_ifindex" ] ||
		mrc_info "veth2 has its old ifindex again"
	mrc_expect "plane 2 of $A" "$(ctl "$A" -j plane show id 2 |
		jq -c '.[0] | [.id, .ifindex, .ifname, .address, .state]')" \
		"[2,$(ifindex "$A" veth2),\"veth2\",\"$(addr 2 1)\",\"up\"]" || return 1
	grep -qE "plane change id 2 dev veth2 addr $(addr 2 1) state admin-down evs 20 mtu 1500 base-rtt 3000us$" \
		"$tmp/mon" || mrc_fail "monitor: $(cat "$tmp/mon")"
}

# tx_packets NS DEV
tx_packets()
{
	ip netns exec "$1" cat "/sys/class/net/$2/statistics/tx_packets"
}

tx_above()
{
	[ "$(tx_packets "$A" veth2)" -gt "$1" ]
}

# Both planes limited to 30 Mbit/s on $A, so that the transfer outlasts the
# deletion and return of plane 2's devices; the new veth2 is not limited.
transfer()
{
	local size=48M c s rc=0

	tc -n "$A" qdisc replace dev veth1 root tbf rate 30mbit burst 32k latency 50ms &&
		tc -n "$A" qdisc replace dev veth2 root tbf rate 30mbit burst 32k latency 50ms ||
		return 1
	port=$((port + 1))
	rm -f "$tmp"/[sc].out "$tmp"/[sc].err
	ip netns exec "$B" "$XFER" -l -p "$port" -T 120 > "$tmp/s.out" 2> "$tmp/s.err" &
	srv=$!
	mrc_wait_for 30 mrc_server_ready "$tmp/s.out" "$srv"
	mrc_said_ready "$tmp/s.out" || mrc_fail "server: $(cat "$tmp/s.err")" || return 1
	ip netns exec "$A" "$XFER" -c "$(addr 1 2)" -p "$port" -s "$size" -S "$port" -T 120 \
		> "$tmp/c.out" 2> "$tmp/c.err" &
	cli=$!
	mrc_wait_for 30 tx_above 200 || mrc_fail "plane 2 never used" || rc=1
	ip -n "$A" link del veth2 || rc=1
	wait_state "$A" 2 no-device || rc=1
	sleep 1
	pair_add && wait_state "$A" 2 up && wait_state "$B" 2 up || rc=1
	kill -0 "$cli" 2> /dev/null ||
		mrc_info "the transfer ended before plane 2 came back"
	mrc_wait_for 60 tx_above 100 || mrc_fail "plane 2 not used after its return" || rc=1
	wait "$cli" || mrc_fail "client: $(cat "$tmp/c.err")" || rc=1
	wait "$srv" || mrc_fail "server: $(cat "$tmp/s.err")" || rc=1
	tc -n "$A" qdisc del dev veth1 root 2> /dev/null
	[ "$rc" = 0 ] || return 1
	c=$(awk '$1 == "conn" && $7 == "sha256" { print $4, $8; exit }' "$tmp/c.out")
	s=$(awk '$1 == "conn" && $7 == "sha256" { print $4, $8; exit }' "$tmp/s.out")
	mrc_expect "received (bytes, sha256)" "$s" "$c" &&
		mrc_expect "bytes sent" "${c%% *}" $((48 << 20))
}

del_waiting()
{
	ip -n "$A" link del veth2 || return 1
	wait_state "$A" 2 no-device && wait_state "$B" 2 no-device || return 1
	ctl "$A" plane del id 2 && ctl "$B" plane del dev veth2 || return 1
	mrc_expect "planes of $A" "$(ids "$A")" '[1]' || return 1
	mrc_expect "planes of $B" "$(ids "$B")" '[1]' || return 1
	mrc_wait_for 5 grep -qE "plane del id 2 dev veth2( |$)" "$tmp/mon" ||
		mrc_fail "monitor: $(cat "$tmp/mon")" || return 1
	pair_add || return 1
	mrc_expect "planes of $A, veth2 back" "$(ids "$A")" '[1]' || return 1
	mrc_expect "planes of $B, veth2 back" "$(ids "$B")" '[1]'
}

# Added without an address: the plane takes the one that veth2 gets once
# it is back, after it came back without any.
auto_address()
{
	local len=24 opt=

	[ "$fam" = 4 ] || len=64 opt=nodad
	ctl "$A" plane add dev veth2 id 2 && wait_state "$A" 2 up || return 1
	ip -n "$A" link del veth2 && wait_state "$A" 2 no-device || return 1
	mrc_expect "no address kept" "$(ctl "$A" -j plane show id 2 | jq -c '.[0].address')" null ||
		return 1
	ip -n "$A" link add veth2 type veth peer name veth2 netns "$B" &&
		ip -n "$A" link set veth2 up && ip -n "$B" link set veth2 up || return 1
	state_is "$A" 2 no-device || mrc_fail "back without an address: $(ctl "$A" plane show)" ||
		return 1
	# A device of the name that is no plane: the waiting plane answers to it.
	mrc_expect "plane show dev veth2" \
		"$(ctl "$A" -j plane show dev veth2 | jq -r '.[0].state')" no-device ||
		return 1
	# shellcheck disable=SC2086 # $opt is empty or one option
	ip -n "$A" addr add "$(addr 2 9)/$len" dev veth2 $opt || return 1
	wait_state "$A" 2 up || return 1
	mrc_expect "address" "$(ctl "$A" -j plane show id 2 | jq -r '.[0].address')" "$(addr 2 9)"
}

monitor_lines()
{
	monitor_stop
	mrc_info "monitor:"
	sed 's/^/#   /' "$tmp/mon"
	# "monitor planes": only plane and config events, each well formed.
	! grep -vqE '^(\[[^]]*\] )?(plane (add|del|change) id [0-9]+ dev veth[12] |config change )' \
		"$tmp/mon" || mrc_fail "unexpected lines"
}

for fam in 4 6; do
	setup || { mrc_fail "setup"; exit "$KSFT_FAIL"; }
	mrc_check "IPv$fam: pair deleted: plane 2 no-device, same id and address, monitor" pair_deleted
	mrc_check "IPv$fam: plane set on a waiting plane keeps the change, id stays reserved" set_waiting
	mrc_check "IPv$fam: veth2 made in another namespace does not bring it back; moved in, does" other_namespace
	mrc_check "IPv$fam: pair made again: plane 2 back, same id, new ifindex, up" pair_back
	mrc_check "IPv$fam: a transfer outlives plane 2's devices going and coming back" transfer
	mrc_check "IPv$fam: plane del of waiting planes, by id and by name" del_waiting
	mrc_check "IPv$fam: a plane that picked its address picks the new device's; by name, it shows while it waits" auto_address
	mrc_check "IPv$fam: monitor lines well formed" monitor_lines
done

mrc_finish
