#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Planes and settings through mrcctl: adding, showing, changing and removing
# planes, every rejection with its errno and message, plane states that
# follow their devices, the monitor, per-namespace isolation, unprivileged
# access and the command line itself.

. "$(dirname "$0")/mrc_lib.sh"

mrc_require_root

MRCCTL=${MRCCTL:-$MRC_DIR/../../../../mrcctl/mrcctl}
if [ ! -x "$MRCCTL" ]; then
	# Run from a link into the selftests tree: look beside the real path.
	MRCCTL=$(cd "$MRC_DIR" && pwd -P)/../../../../mrcctl/mrcctl
fi
if [ ! -x "$MRCCTL" ]; then
	echo "# SKIP: mrcctl not built (make -C tools/mrcctl, or set MRCCTL)"
	exit "$KSFT_SKIP"
fi
for tool in jq python3; do
	if ! command -v "$tool" > /dev/null; then
		echo "# SKIP: needs $tool"
		exit "$KSFT_SKIP"
	fi
done
mrc_module_loaded || modprobe mrc || exit "$KSFT_FAIL"

mrc_plan 50

suffix=$(printf '%04x' $RANDOM)
tmp=$(mktemp -d)
trap 'mrc_cleanup; rm -rf "$tmp"' EXIT

# Main namespace of most cases and a second one for isolation.
A=mrcp-$suffix-a
B=mrcp-$suffix-b

# setup_ns NS: devices that planes are made of, all up:
#   veth1 10.1.0.1/24 fd00:1::1/64                     peer veth2 10.1.0.2/24
#   veth3 10.3.0.1/24 10.3.0.9/24 fd00:3::1/64 mtu 9000 peer veth4
#   veth5 only a link-local IPv6 address                 peer veth6
#   veth7 fd00:7::1/64 only                              peer veth8
setup_ns()
{
	mrc_ns_add "$1" || return 1
	mrc_veth_pairs "$1" 4 || return 1
	ip -n "$1" -batch - <<-EOF
	link set veth3 mtu 9000
	link set veth4 mtu 9000
	addr add 10.1.0.1/24 dev veth1
	addr add fd00:1::1/64 dev veth1 nodad
	addr add 10.1.0.2/24 dev veth2
	addr add 10.3.0.1/24 dev veth3
	addr add 10.3.0.9/24 dev veth3
	addr add fd00:3::1/64 dev veth3 nodad
	addr add fd00:7::1/64 dev veth7 nodad
	EOF
}

ctl()
{
	"$MRCCTL" -n "$ns" "$@"
}

# on_ns NS COMMAND...: run COMMAND with $ns set to NS.
on_ns()
{
	local ns=$1

	shift
	"$@"
}

ifindex()
{
	local line

	line=$(ip -n "$ns" -o link show dev "$1") && echo "${line%%:*}"
}

# planes: every plane of $ns as compact JSON, the keys of the contract only.
planes()
{
	ctl -j plane show |
		jq -c 'sort_by(.id) | [.[] | {id, ifindex, ifname, family, address,
			admin_up, state, evs, mtu, base_rtt_us}]'
}

# plane_field ID KEY: one attribute of plane ID from the JSON dump.
plane_field()
{
	ctl -j plane show | jq -r --argjson id "$1" ".[] | select(.id == \$id) | .$2"
}

# row ID: plane ID as a row of the text table, "ID DEV ADDRESS STATE EVS
# MTU BASE-RTT" (bash only: processes are slow under emulation).
row()
{
	local out id dev addr state evs mtu base

	out=$(ctl plane show id "$1" 2> /dev/null) || return 1
	{ read -r _; read -r id dev addr state evs mtu base; } <<< "$out"
	echo "$id $dev $addr $state $evs $mtu $base"
}

state_is()
{
	local r

	r=$(row "$1")
	r=${r#* * * }
	[ "${r%% *}" = "$2" ]
}

# wait_state ID STATE: the state of plane ID becomes STATE.
wait_state()
{
	mrc_wait_for 3 state_is "$1" "$2" ||
		mrc_fail "plane $1 is '$(row "$1")', expected state '$2'"
}

# plane_json ID IFNAME FAMILY ADDRESS ADMIN_UP STATE EVS MTU [BASE_RTT]
plane_json()
{
	printf '{"id":%s,"ifindex":%s,"ifname":"%s","family":"%s","address":"%s","admin_up":%s,"state":"%s","evs":%s,"mtu":%s,"base_rtt_us":%s}' \
		"$1" "$(ifindex "$2")" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "${9:-0}"
}

# fails ERRNO_TEXT MESSAGE COMMAND...: COMMAND exits 1, prints nothing on
# stdout and "mrcctl: ...MESSAGE...: ERRNO_TEXT" on stderr.
fails()
{
	local errno=$1 msg=$2 out err rc

	shift 2
	out=$("$@" 2> "$tmp/err")
	rc=$?
	err=$(< "$tmp/err")
	[ "$rc" = 1 ] || mrc_fail "'$*' exited $rc, expected 1; stderr: $err" || return 1
	[ -z "$out" ] || mrc_fail "'$*' printed: $out" || return 1
	[[ "$err" == "mrcctl: "*"$msg"*": $errno" ]] ||
		mrc_fail "'$*': stderr '$err', expected 'mrcctl: ...$msg...: $errno'"
}

# usage_error COMMAND...: COMMAND exits 2.
usage_error()
{
	local rc

	"$@" > /dev/null 2>&1
	rc=$?
	[ "$rc" = 2 ] || mrc_fail "'$*' exited $rc, expected 2"
}

# ss_has ADDR:PORT: a UDP socket of $ns is bound there.
ss_has()
{
	local out

	out=$(ss -N "$ns" -Hlun)
	[[ " ${out//$'\n'/ } " == *" $1 "* ]]
}

############################################################################
# Adding, showing, changing and removing

add_defaults()
{
	local out

	out=$(ctl plane add dev veth1) || return 1
	mrc_expect "add output" "$out" "" || return 1
	mrc_expect "planes" "$(planes)" \
		"[$(plane_json 0 veth1 inet 10.1.0.1 true up 32 1500)]"
}

# A table: a header, then one row per plane.
show_text()
{
	local out

	out=$(ctl plane show) || return 1
	mrc_expect "plane show" "$(awk '{ $1 = $1; print }' <<< "$out")" \
		"ID DEV ADDRESS STATE EVS MTU BASE-RTT
0 veth1 10.1.0.1 up 32 1500 -"
}

show_json()
{
	local want

	local want all pretty

	all=$(ctl -j plane show) && pretty=$(ctl -j -p plane show) || return 1
	want="[$(plane_json 0 veth1 inet 10.1.0.1 true up 32 1500)]"
	# All planes, by id, by device, pretty (-p), and the keys: one jq.
	mrc_expect "show, show id 0, show dev veth1, -p show; keys" \
		"$({ echo "$all"; ctl -j plane show id 0; ctl -j plane show dev veth1;
			echo "$pretty"; } | jq -cs '. + [.[0][0] | keys]')" \
		"[$want,$want,$want,$want,[\"address\",\"admin_up\",\"base_rtt_us\",\"evs\",\"family\",\"id\",\"ifindex\",\"ifname\",\"mtu\",\"state\"]]" ||
		return 1
	[[ "$pretty" == *$'\n'*$'\n'*$'\n'* ]] || mrc_fail "-p is not pretty: $pretty"
}

udp_socket()
{
	ss_has 10.1.0.1%veth1:4793 || ss_has 10.1.0.1:4793 ||
		mrc_fail "no UDP socket on 10.1.0.1:4793: $(ss -N "$ns" -Hlun)"
}

# Default ids are the lowest free ones.
lowest_free_id()
{
	ctl plane add dev veth3 || return 1
	mrc_expect "plane 1" "$(row 1)" "1 veth3 10.3.0.1 up 32 9000 -" || return 1
	ctl plane del id 0 || return 1
	ctl plane add dev veth1 || return 1
	mrc_expect "plane 0" "$(row 0)" "0 veth1 10.1.0.1 up 32 1500 -" || return 1
	ctl plane del dev veth3
}

add_explicit()
{
	local out

	out=$(ctl plane add dev veth3 id 7 addr 10.3.0.9 evs 100 down) || return 1
	mrc_expect "add output" "$out" "" || return 1
	mrc_expect "planes" "$(planes)" \
		"[$(plane_json 0 veth1 inet 10.1.0.1 true up 32 1500),$(plane_json 7 veth3 inet 10.3.0.9 false admin-down 100 9000)]" ||
		return 1
	ss_has 10.3.0.9%veth3:4793 || ss_has 10.3.0.9:4793 ||
		mrc_fail "no UDP socket on 10.3.0.9:4793"
}

add_ipv6()
{
	ctl plane add dev veth7 || return 1
	mrc_expect "veth7, only IPv6" "$(row 1)" "1 veth7 fd00:7::1 up 32 1500 -" || return 1
	ss_has '[fd00:7::1]%veth7:4793' || ss_has '[fd00:7::1]:4793' ||
		mrc_fail "no UDP socket on [fd00:7::1]:4793: $(ss -N "$ns" -Hlun)" ||
		return 1
	# A dual-stack device with its IPv6 address named.
	ctl plane del dev veth3 || return 1
	ctl plane add dev veth3 addr fd00:3::1 || return 1
	mrc_expect "IPv6 planes" "$(ctl -j plane show | jq -c '[.[] | select(.id > 0) |
		[.id, .ifname, .family, .address, .state, .mtu]] | sort')" \
		'[[1,"veth7","inet6","fd00:7::1","up",1500],[2,"veth3","inet6","fd00:3::1","up",9000]]'
}

set_plane()
{
	local out

	out=$(ctl plane set id 0 down) || return 1
	mrc_expect "set output" "$out" "" || return 1
	mrc_expect "down" "$(row 0)" "0 veth1 10.1.0.1 admin-down 32 1500 -" || return 1
	ctl plane set dev veth1 up || return 1
	mrc_expect "up" "$(row 0)" "0 veth1 10.1.0.1 up 32 1500 -" || return 1
	ctl plane set id 0 evs 200 || return 1
	mrc_expect "evs" "$(row 0)" "0 veth1 10.1.0.1 up 200 1500 -" || return 1
	ctl plane set dev veth1 down evs 256 || return 1
	mrc_expect "evs and down" "$(ctl -j plane show id 0 | jq -c '.[0] | [.admin_up, .state, .evs]')" \
		'[false,"admin-down",256]' || return 1
	ctl plane set id 0 up evs 32 || return 1
	mrc_expect "planes" "$(planes | jq -c '.[0]')" "$(plane_json 0 veth1 inet 10.1.0.1 true up 32 1500)" ||
		return 1
	# A base round trip, up to 10 s; 0 takes it away.
	ctl plane set id 0 base-rtt 400 || return 1
	mrc_expect "base-rtt" "$(row 0)" "0 veth1 10.1.0.1 up 32 1500 400us" || return 1
	mrc_expect "base-rtt, JSON" "$(planes | jq -c '.[0]')" \
		"$(plane_json 0 veth1 inet 10.1.0.1 true up 32 1500 400)" || return 1
	fails "Numerical result out of range" "base round trip above 10 s" \
		ctl plane set id 0 base-rtt 10000001 || return 1
	mrc_expect "base-rtt kept" "$(planes | jq -c '.[0].base_rtt_us')" 400 || return 1
	ctl plane set id 0 base-rtt 10000000 && ctl plane set dev veth1 base-rtt 0 ||
		return 1
	mrc_expect "base-rtt taken away" "$(row 0)" "0 veth1 10.1.0.1 up 32 1500 -"
}

del_planes()
{
	local out

	out=$(ctl plane del id 1) || return 1
	mrc_expect "del output" "$out" "" || return 1
	ctl plane del dev veth3 || return 1
	mrc_expect "left" "$(ctl -j plane show | jq -c '[.[].ifname]')" '["veth1"]' || return 1
	ctl plane del dev veth1 || return 1
	mrc_expect "left" "$(ctl -j plane show | jq -c .)" '[]' || return 1
	mrc_expect "text" "$(ctl plane show)" "" || return 1
	fails "No such file or directory" "no such plane" ctl plane show id 0
}

config_show()
{
	mrc_expect "no planes" "$(ctl config show)" "$(printf 'udp_port 4793\ndefault_evs 32\nplanes 0')" ||
		return 1
	ctl plane add dev veth1 && ctl plane add dev veth7 || return 1
	mrc_expect "two planes" "$(ctl config show)" "$(printf 'udp_port 4793\ndefault_evs 32\nplanes 2')" ||
		return 1
	ctl -j config show | jq -e . > /dev/null ||
		mrc_fail "config show -j is not JSON" || return 1
	mrc_expect "JSON" "$(ctl -j config show | jq -c .)" '{"udp_port":4793,"default_evs":32,"planes":2}' ||
		return 1
	# -s adds the namespace's counters: nothing dropped here yet.
	mrc_expect "stats" "$(ctl -s config show | tail -n 2)" "$(printf 'rx_dropped 0\nsyn_dropped 0')" ||
		return 1
	mrc_expect "stats JSON" "$(ctl -j -s config show | jq -c '[.rx_dropped, .syn_dropped]')" '[0,0]'
}

config_busy()
{
	fails "Device or resource busy" "cannot change the UDP port while planes exist" \
		ctl config set port 5000 || return 1
	mrc_expect "port" "$(ctl -j config show | jq .udp_port)" 4793
}

config_set()
{
	local out

	ctl plane del id 0 && ctl plane del id 1 || return 1
	out=$(ctl config set port 5000 evs 64) || return 1
	mrc_expect "set output" "$out" "" || return 1
	mrc_expect "JSON" "$(ctl -j config show | jq -c .)" '{"udp_port":5000,"default_evs":64,"planes":0}' ||
		return 1
	ctl plane add dev veth1 || return 1
	mrc_expect "new plane's evs" "$(plane_field 0 evs)" 64 || return 1
	ss_has 10.1.0.1%veth1:5000 || ss_has 10.1.0.1:5000 ||
		mrc_fail "no UDP socket on port 5000: $(ss -N "$ns" -Hlun)" || return 1
	ctl plane del id 0 || return 1
	ctl config set evs 32 || return 1
	ctl config set port 4793 || return 1
	mrc_expect "text" "$(ctl config show)" "$(printf 'udp_port 4793\ndefault_evs 32\nplanes 0')"
}

############################################################################
# Rejections.  Namespace $ns has a plane 0 on veth1 throughout.

reject_setup()
{
	ctl plane add dev veth1
}

unchanged()
{
	mrc_expect "planes after a rejection" "$(ctl plane show | awk 'NR > 1 { print $1, $2 }')" \
		"0 veth1"
}

# reject_check DESCRIPTION FUNCTION: one case, then back to plane 0 on
# veth1 alone whatever the case left behind.
reject_check()
{
	local id

	mrc_check "$@"
	for id in $(ctl plane show | awk 'NR > 1 && $2 != "veth1" { print $1 }'); do
		ctl plane del id "$id"
	done
}

reject_nodev()
{
	fails "No such device" "no such device" ctl plane add dev nosuch0 && unchanged
}

reject_loopback()
{
	fails "Invalid argument" "loopback device cannot be a plane" ctl plane add dev lo &&
		unchanged
}

reject_twice()
{
	fails "File exists" "device is already a plane" ctl plane add dev veth1 &&
		fails "File exists" "device is already a plane" ctl plane add dev veth1 addr fd00:1::1 &&
		unchanged
}

reject_id_used()
{
	fails "File exists" "plane id is in use" ctl plane add dev veth3 id 0 && unchanged
}

reject_id_range()
{
	local errno="Numerical result out of range"

	fails "$errno" "out of range" ctl plane add dev veth3 id 16 &&
		fails "$errno" "out of range" ctl plane show id 16 &&
		fails "$errno" "out of range" ctl plane del id 16 &&
		unchanged
}

reject_evs_range()
{
	local errno="Numerical result out of range"

	fails "$errno" "out of range" ctl plane add dev veth3 evs 0 &&
		fails "$errno" "out of range" ctl plane add dev veth3 evs 257 &&
		fails "$errno" "out of range" ctl plane set id 0 evs 0 &&
		fails "$errno" "out of range" ctl plane set id 0 evs 257 &&
		fails "$errno" "out of range" ctl config set evs 0 &&
		fails "$errno" "out of range" ctl config set evs 257 &&
		unchanged &&
		mrc_expect "evs" "$(plane_field 0 evs),$(ctl -j config show | jq .default_evs)" 32,32
}

reject_no_address()
{
	fails "Cannot assign requested address" "device has no usable address" \
		ctl plane add dev veth5 && unchanged
}

reject_foreign_address()
{
	fails "Cannot assign requested address" "address is not on the device" \
		ctl plane add dev veth3 addr 10.1.0.1 &&
		fails "Cannot assign requested address" "address is not on the device" \
		ctl plane add dev veth3 addr fd00:7::1 &&
		unchanged
}

# hold_ports PORT ADDR...: UDP sockets on ADDR:PORT in $ns until fd 5 closes.
hold_ports()
{
	rm -f "$tmp/hold" "$tmp/held"
	mkfifo "$tmp/hold"
	rm -f "$tmp/held"
	ip netns exec "$ns" python3 -c '
import socket, sys
held = []
for addr in sys.argv[2:]:
	s = socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET,
			  socket.SOCK_DGRAM)
	s.bind((addr, int(sys.argv[1])))
	held.append(s)
print("ready", flush=True)
sys.stdin.read()
' "$@" < "$tmp/hold" > "$tmp/held" &
	exec 5> "$tmp/hold"
	mrc_wait_for 10 grep -q ready "$tmp/held" || mrc_fail "cannot bind port $*"
}

release_ports()
{
	exec 5>&-
	wait
}

reject_port_used()
{
	local rc=0

	hold_ports 4793 10.3.0.1 fd00:7::1 || rc=1
	if [ "$rc" = 0 ]; then
		fails "Address already in use" "UDP port is in use" ctl plane add dev veth3 &&
			fails "Address already in use" "UDP port is in use" \
				ctl plane add dev veth7 &&
			unchanged || rc=1
	fi
	release_ports
	[ "$rc" = 0 ] || return 1
	# Nothing of the failed attempts is left behind.
	ctl plane add dev veth3 && ctl plane add dev veth7 || return 1
	mrc_expect "planes" "$(ctl -j plane show | jq -c '[.[] | [.id, .ifname, .state]]')" \
		'[[0,"veth1","up"],[1,"veth3","up"],[2,"veth7","up"]]'
}

reject_missing()
{
	local errno="No such file or directory" msg="no such plane"

	fails "$errno" "$msg" ctl plane del id 3 &&
		fails "$errno" "$msg" ctl plane del dev veth3 &&
		fails "$errno" "$msg" ctl plane show id 3 &&
		fails "$errno" "$msg" ctl plane show dev veth3 &&
		fails "$errno" "$msg" ctl plane set id 3 down &&
		fails "$errno" "$msg" ctl plane set dev veth3 evs 8 &&
		unchanged
}

# All 16 ids: 17 devices with an address each in a namespace of their own.
reject_full()
{
	local i cmds=()

	ns=mrcp-$suffix-full
	mrc_ns_add "$ns" || return 1
	for i in $(seq 0 16); do
		cmds+=("link add vf$i type veth peer name pf$i"
			"link set vf$i up" "link set pf$i up"
			"addr add 10.100.$i.1/24 dev vf$i")
	done
	printf '%s\n' "${cmds[@]}" | ip -n "$ns" -batch - || return 1
	for i in $(seq 0 15); do
		ctl plane add dev "vf$i" || return 1
	done
	mrc_expect "ids" "$(ctl -j plane show | jq -c '[.[] | [.id, .ifname]] | sort')" \
		"$(for i in $(seq 0 15); do printf '[%d,"vf%d"]\n' "$i" "$i"; done | jq -sc 'sort')" ||
		return 1
	fails "No space left on device" "all plane ids are in use" ctl plane add dev vf16 ||
		return 1
	mrc_expect "count" "$(ctl -j config show | jq .planes)" 16 || return 1
	ctl plane del id 9 && ctl plane add dev vf16 || return 1
	mrc_expect "id of vf16" "$(ctl -j plane show dev vf16 | jq '.[0].id')" 9
}

############################################################################
# States that follow the device.  Planes 0 on veth1 and 1 on veth7 in $ns.

state_setup()
{
	ctl plane add dev veth1 && ctl plane add dev veth7
}

state_link_down()
{
	ip -n "$ns" link set veth1 down || return 1
	wait_state 0 link-down || return 1
	ip -n "$ns" link set veth1 up || return 1
	wait_state 0 up || return 1
	mrc_expect "admin_up" "$(plane_field 0 admin_up)" true
}

state_carrier()
{
	ip -n "$ns" link set veth2 down && ip -n "$ns" link set veth8 down || return 1
	wait_state 0 link-down && wait_state 1 link-down || return 1
	ip -n "$ns" link set veth2 up && ip -n "$ns" link set veth8 up || return 1
	wait_state 0 up && wait_state 1 up
}

state_admin()
{
	ctl plane set id 0 down || return 1
	wait_state 0 admin-down || return 1
	ctl plane set id 0 up || return 1
	wait_state 0 up
}

state_address()
{
	ip -n "$ns" addr del 10.1.0.1/24 dev veth1 || return 1
	wait_state 0 no-address || return 1
	ip -n "$ns" addr add 10.1.0.1/24 dev veth1 || return 1
	wait_state 0 up || return 1
	ip -n "$ns" addr del fd00:7::1/64 dev veth7 || return 1
	wait_state 1 no-address || return 1
	ip -n "$ns" addr add fd00:7::1/64 dev veth7 nodad || return 1
	wait_state 1 up || return 1
	mrc_expect "addresses" "$(ctl -j plane show | jq -c '[.[].address]')" '["10.1.0.1","fd00:7::1"]'
}

# gone IFNAMES: the planes' devices, "-" for a plane that waits for its own.
gone()
{
	[ "$(ctl -j plane show |
		jq -c '[.[] | if .state == "no-device" then "-" else .ifname end]')" = "$1" ]
}

# The plane stays without its device, with its id and settings but the
# address, which it picked itself (planes_restore.sh brings it back).
state_dev_deleted()
{
	ip -n "$ns" link del veth7 || return 1
	mrc_wait_for 3 gone '["veth1","-"]' ||
		mrc_fail "planes: $(ctl -j plane show | jq -c .)" || return 1
	mrc_expect "count" "$(ctl -j config show | jq .planes)" 1 || return 1
	mrc_expect "kept" "$(ctl -j plane show id 1 | jq -c .)" \
		'[{"id":1,"ifname":"veth7","admin_up":true,"state":"no-device","evs":32,"base_rtt_us":0}]'
}

state_dev_moved()
{
	local m=mrcp-$suffix-m

	mrc_ns_add "$m" || return 1
	ip -n "$ns" link set veth1 netns "$m" || return 1
	mrc_wait_for 3 gone '["-","-"]' ||
		mrc_fail "planes: $(ctl -j plane show | jq -c .)" || return 1
	mrc_expect "in $m" "$(ns=$m ctl -j plane show | jq -c .)" '[]' || return 1
	mrc_expect "count in $m" "$(ns=$m ctl -j config show | jq .planes)" 0 || return 1
	fails "No such file or directory" "no such plane" on_ns "$m" ctl plane show dev veth1 ||
		return 1
	# Named by the name of a device that is not there.
	mrc_expect "by name" "$(ctl -j plane show dev veth1 | jq -c '[.[] | [.id, .state]]')" \
		'[[0,"no-device"]]'
}

############################################################################
# Monitor

monitor_start()
{
	rm -f "$tmp"/mon.*
	"$MRCCTL" -n "$ns" monitor > "$tmp/mon.txt" 2> "$tmp/mon.err" &
	mon_txt=$!
	"$MRCCTL" -n "$ns" -j monitor > "$tmp/mon.json" 2> "$tmp/mon.jerr" &
	mon_json=$!
	# Both are subscribed once a config change reaches them.
	poke=0
	mrc_wait_for 10 monitor_poke ||
		mrc_fail "monitors silent: $(cat "$tmp/mon.err" "$tmp/mon.jerr")" || return 1
	ctl config set evs 32
}

monitor_poke()
{
	poke=$((poke + 1))
	ctl config set evs $((40 + poke % 2)) || return 1
	grep -q 'config change' "$tmp/mon.txt" && grep -q config-change "$tmp/mon.json"
}

monitor_stop()
{
	kill "$mon_txt" "$mon_json" 2> /dev/null
	wait "$mon_txt" "$mon_json" 2> /dev/null
	return 0
}

monitor_events()
{
	local rc=0

	monitor_start || rc=1
	if [ "$rc" = 0 ]; then
		# Events in another namespace must not show.
		ns=$B ctl plane add dev veth3 || rc=1
		ctl plane add dev veth1 &&
			ctl plane set id 0 down &&
			ctl plane set id 0 up &&
			ip -n "$ns" link set veth2 down &&
			wait_state 0 link-down &&
			ctl plane del id 0 &&
			ctl plane add dev veth7 &&
			ip -n "$ns" link del veth7 &&
			wait_state 0 no-device &&
			ctl plane del id 0 &&
			ctl config set evs 48 || rc=1
		mrc_wait_for 3 grep -q 'default_evs 48' "$tmp/mon.txt" || rc=1
		mrc_wait_for 3 grep -q '"default_evs":48' "$tmp/mon.json" || rc=1
		ctl config set evs 32
		ns=$B ctl plane del dev veth3
	fi
	monitor_stop
	mrc_info "monitor (text):"
	sed 's/^/#   /' "$tmp/mon.txt"
	return "$rc"
}

mon_stamp='^\[[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[^]]*\] '

monitor_text_add()
{
	grep -qxE "${mon_stamp}plane add id 0 dev veth1 addr 10\.1\.0\.1 state up evs 32 mtu 1500" \
		"$tmp/mon.txt" &&
		grep -qE "${mon_stamp}plane add id 0 dev veth7 addr fd00:7::1 state up " "$tmp/mon.txt" ||
		mrc_fail "no plane add lines"
}

monitor_text_change()
{
	grep -qE "${mon_stamp}plane change id 0 .*state admin-down( |$)" "$tmp/mon.txt" &&
		grep -qE "${mon_stamp}plane change id 0 .*state link-down( |$)" "$tmp/mon.txt" &&
		grep -qE "${mon_stamp}plane change id 0 .*state up( |$)" "$tmp/mon.txt" ||
		mrc_fail "no plane change lines"
}

monitor_text_del()
{
	grep -qE "${mon_stamp}plane del id 0 dev veth1( |$)" "$tmp/mon.txt" &&
		grep -qE "${mon_stamp}plane change id 0 dev veth7 state no-device evs 32$" \
			"$tmp/mon.txt" &&
		grep -qE "${mon_stamp}plane del id 0 dev veth7( |$)" "$tmp/mon.txt" ||
		mrc_fail "no plane del lines (command, and device deleted then plane del)"
}

monitor_text_config()
{
	grep -qE "${mon_stamp}config change udp_port 4793 .*default_evs 48( |$)" "$tmp/mon.txt" ||
		mrc_fail "no config change line"
}

monitor_text_format()
{
	local bad

	bad=$(grep -vE "${mon_stamp}(plane (add|del|change) id [0-9]+ dev |config change udp_port )" \
		"$tmp/mon.txt")
	[ -s "$tmp/mon.txt" ] && [ -z "$bad" ] || mrc_fail "unexpected lines: $bad"
}

monitor_isolated()
{
	! grep -q veth3 "$tmp/mon.txt" && ! grep -q veth3 "$tmp/mon.json" ||
		mrc_fail "an event of another namespace showed"
}

monitor_json()
{
	local seq want

	jq -e -s 'length > 0 and all(.[]; (.time | type) == "string" and
		(.event | IN("plane-add", "plane-del", "plane-change", "config-change")))' \
		"$tmp/mon.json" > /dev/null || mrc_fail "bad JSON lines" || return 1
	# Plane events, consecutive duplicates folded.
	seq=$(jq -r 'select(.plane) | "\(.event) \(.plane.id) \(.plane.ifname)" +
		if .event == "plane-del" then "" else " \(.plane.state)" end' \
		"$tmp/mon.json" | uniq)
	# A device going away may go down (link-down) before it goes.
	seq=$(grep -vx 'plane-change 0 veth7 link-down' <<< "$seq")
	want="plane-add 0 veth1 up
plane-change 0 veth1 admin-down
plane-change 0 veth1 up
plane-change 0 veth1 link-down
plane-del 0 veth1
plane-add 0 veth7 up
plane-change 0 veth7 no-device
plane-del 0 veth7"
	mrc_expect "plane events" "$seq" "$want" || return 1
	mrc_expect "add event" "$(jq -c 'select(.event == "plane-add") | .plane' "$tmp/mon.json" | head -n 1 |
		jq -c '{id, ifindex, ifname, family, address, admin_up, state, evs, mtu,
			base_rtt_us}')" \
		"$(plane_json 0 veth1 inet 10.1.0.1 true up 32 1500)" || return 1
	mrc_expect "config event" "$(jq -c 'select(.event == "config-change") | .config |
		select(.default_evs == 48)' "$tmp/mon.json")" \
		'{"udp_port":4793,"default_evs":48,"planes":0}'
}

############################################################################
# Namespaces

isolation()
{
	ctl plane add dev veth1 || return 1
	mrc_expect "in $B" "$(ns=$B ctl -j plane show | jq -c .)" '[]' || return 1
	fails "No such file or directory" "no such plane" on_ns "$B" ctl plane show id 0 ||
		return 1
	# The same device name, address and port in B are free.
	ns=$B ctl plane add dev veth1 || return 1
	mrc_expect "in $B" "$(ns=$B ctl -j plane show | jq -c '[.[] | [.id, .ifname, .address]]')" \
		'[[0,"veth1","10.1.0.1"]]' || return 1
	ns=$B ctl plane del id 0 || return 1
	mrc_expect "in $ns" "$(ctl -j plane show | jq -c '[.[] | [.id, .ifname, .state]]')" \
		'[[0,"veth1","up"]]' || return 1
	ctl plane del id 0
}

config_isolation()
{
	ctl config set evs 77 || return 1
	mrc_expect "in $B" "$(ns=$B ctl -j config show | jq -c .)" \
		'{"udp_port":4793,"default_evs":32,"planes":0}' || return 1
	mrc_expect "in $ns" "$(ctl -j config show | jq -c .default_evs)" 77 || return 1
	ctl config set evs 32
}

# Namespaces deleted with planes in them leave nothing that keeps mrc.ko.
netns_delete()
{
	local c=mrcp-$suffix-c

	setup_ns "$c" || return 1
	ns=$c ctl plane add dev veth1 && ns=$c ctl plane add dev veth3 &&
		ns=$c ctl plane add dev veth7 || return 1
	mrc_cleanup
	mrc_wait_for 20 rmmod mrc 2> /dev/null ||
		mrc_fail "rmmod mrc: $(rmmod mrc 2>&1)" || return 1
	modprobe mrc || return 1
	mrc_ns_add "$c" || return 1
	mrc_expect "fresh namespace" "$(ns=$c ctl -j config show | jq -c .)" \
		'{"udp_port":4793,"default_evs":32,"planes":0}'
}

############################################################################
# Without CAP_NET_ADMIN

# unpriv COMMAND: run the shell COMMAND without CAP_NET_ADMIN.
unpriv()
{
	if command -v capsh > /dev/null; then
		capsh --drop=cap_net_admin -- -c "$1"
	else
		setpriv --inh-caps=-net_admin --bounding-set=-net_admin -- bash -c "$1"
	fi
}

unpriv_read()
{
	ctl plane add dev veth1 || return 1
	mrc_expect "show" "$(unpriv "'$MRCCTL' -n $ns -j plane show" | jq -c '[.[] | [.id, .ifname]]')" \
		'[[0,"veth1"]]' || return 1
	mrc_expect "config" "$(unpriv "'$MRCCTL' -n $ns -j config show" | jq -c .planes)" 1
}

# unpriv_fails SHELL-COMMAND: exits 1 with EPERM.
unpriv_fails()
{
	local err rc

	err=$(unpriv "$1 2>&1 > /dev/null")
	rc=$?
	[ "$rc" = 1 ] && [[ "$err" == "mrcctl: "*"Operation not permitted" ]] ||
		mrc_fail "'$1' without CAP_NET_ADMIN: exit $rc, '$err'"
}

unpriv_add()
{
	unpriv_fails "'$MRCCTL' -n $ns plane add dev veth3" &&
		mrc_expect "planes" "$(ctl -j plane show | jq -c '[.[].ifname]')" '["veth1"]'
}

unpriv_change()
{
	unpriv_fails "'$MRCCTL' -n $ns plane set id 0 down" &&
		unpriv_fails "'$MRCCTL' -n $ns plane del id 0" &&
		unpriv_fails "'$MRCCTL' -n $ns config set evs 8" &&
		mrc_expect "plane" "$(ctl -j plane show | jq -c '[.[] | [.id, .state]]')" '[[0,"up"]]' &&
		mrc_expect "config" "$(ctl -j config show | jq .default_evs)" 32
}

############################################################################
# Command line

cli_help()
{
	local out

	out=$("$MRCCTL" help 2>&1) || mrc_fail "help exited $?" || return 1
	grep -q 'plane add' <<< "$out" || mrc_fail "help does not mention 'plane add'"
}

cli_usage()
{
	usage_error "$MRCCTL" bogus &&
		usage_error "$MRCCTL" plane bogus &&
		usage_error "$MRCCTL" -n "$ns" plane s &&
		usage_error "$MRCCTL" -n "$ns" plane add &&
		usage_error "$MRCCTL" -n "$ns" plane add dev &&
		usage_error "$MRCCTL" -n "$ns" plane add dev veth3 id x &&
		usage_error "$MRCCTL" -n "$ns" plane add dev veth3 bogus &&
		usage_error "$MRCCTL" -n "$ns" config set bogus 1
}

cli_prefixes()
{
	mrc_expect "pl sh" "$(ctl pl sh)" "$(ctl plane show)" || return 1
	mrc_expect "conf sh" "$(ctl -j conf sh | jq -c .)" "$(ctl -j config show | jq -c .)" || return 1
	ctl pl a de veth3 i 4 ad 10.3.0.9 e 40 "do" || return 1
	mrc_expect "added" "$(ctl -j plane show id 4 | jq -c .)" \
		"[$(plane_json 4 veth3 inet 10.3.0.9 false admin-down 40 9000)]" || return 1
	ctl pl se i 4 u && ctl pl d i 4 || return 1
	mrc_expect "planes" "$(ctl -j plane show | jq -c '[.[].ifname]')" '["veth1"]'
}

############################################################################
# The configuration as commands: showconf, plane flush and -batch.

# showconf_sorted NS: showconf of NS, its plane lines sorted.
showconf_sorted()
{
	local out

	out=$("$MRCCTL" -n "$1" showconf) || return 1
	head -n 1 <<< "$out"
	tail -n +2 <<< "$out" | sort
}

# The monitor's case deleted veth7: veth6, of both namespaces, gets the
# IPv6 plane.
conf_showconf()
{
	local want

	ip -n "$A" addr add fd00:6::1/64 dev veth6 nodad &&
		ip -n "$B" addr add fd00:6::1/64 dev veth6 nodad || return 1
	ctl plane flush && ctl config set port 4800 evs 40 &&
		ctl plane add dev veth1 &&
		ctl plane add dev veth3 id 7 addr 10.3.0.9 evs 100 base-rtt 2500 down &&
		ctl plane add dev veth6 id 3 || return 1
	want="config set port 4800 evs 40
plane add dev veth1 id 0 addr 10.1.0.1 evs 40
plane add dev veth3 id 7 addr 10.3.0.9 evs 100 base-rtt 2500 down
plane add dev veth6 id 3 addr fd00:6::1 evs 40"
	mrc_expect "showconf" "$(showconf_sorted "$ns")" "$want" || return 1
	usage_error ctl -j showconf && usage_error ctl showconf bogus
}

conf_flush()
{
	local out

	ctl showconf > "$tmp/saved.conf" && planes > "$tmp/saved.json" || return 1
	out=$(ctl plane flush) || return 1
	mrc_expect "flush output" "$out" "" || return 1
	mrc_expect "planes" "$(ctl -j plane show | jq -c .)" "[]" || return 1
	ctl plane flush || mrc_fail "flush without planes failed" || return 1
	mrc_expect "config kept" "$(ctl -j config show | jq -c '[.udp_port, .default_evs]')" \
		"[4800,40]"
}

# Replayed in $ns from a file with a comment and a blank line, and in $B
# from stdin: the same planes, the same showconf.
conf_batch()
{
	local out

	ctl config set port 4793 evs 32 || return 1
	{ echo "# saved by showconf"; echo; cat "$tmp/saved.conf"; } > "$tmp/replay.conf"
	out=$(ctl -batch "$tmp/replay.conf") || return 1
	mrc_expect "batch output" "$out" "" || return 1
	mrc_expect "planes" "$(planes)" "$(cat "$tmp/saved.json")" || return 1
	"$MRCCTL" -n "$B" plane flush &&
		"$MRCCTL" -n "$B" -batch - < "$tmp/saved.conf" || return 1
	mrc_expect "showconf of $B" "$(showconf_sorted "$B")" "$(showconf_sorted "$ns")" ||
		return 1
	"$MRCCTL" -n "$B" plane flush && "$MRCCTL" -n "$B" config set port 4793 evs 32
}

# A failing line stops the batch with FILE:LINE, unless -force; a usage
# error exits 2.
conf_batch_errors()
{
	local rc err

	printf '%s\n' "plane set id 0 evs 50" "plane add dev nosuchdev" \
		"plane set id 0 evs 60" > "$tmp/bad.conf"
	ctl -batch "$tmp/bad.conf" 2> "$tmp/err"
	rc=$?
	err=$(< "$tmp/err")
	mrc_expect "exit status" "$rc" 1 || return 1
	[[ "$err" == *"$tmp/bad.conf:2: command failed"* ]] ||
		mrc_fail "stderr: $err" || return 1
	mrc_expect "evs after the stop" "$(plane_field 0 evs)" 50 || return 1
	ctl -batch "$tmp/bad.conf" -force 2> /dev/null
	mrc_expect "exit status with -force" "$?" 1 || return 1
	mrc_expect "evs with -force" "$(plane_field 0 evs)" 60 || return 1
	echo "plane add dev veth5 bogus" | ctl -batch - 2> /dev/null
	mrc_expect "usage error in a batch" "$?" 2 || return 1
	usage_error ctl -batch "$tmp/bad.conf" plane show &&
		usage_error ctl -force plane show &&
		fails "No such file or directory" "cannot open" ctl -batch "$tmp/none" ||
		return 1
	ctl plane flush
}

############################################################################

ns=$A
setup_ns "$A" || exit "$KSFT_FAIL"
setup_ns "$B" || exit "$KSFT_FAIL"

mrc_check "add by name: id 0, first IPv4 address, up, evs 32" add_defaults
mrc_check "plane show, text" show_text
mrc_check "plane show -j, all planes, by id, by device, -p" show_json
mrc_check "the plane's UDP socket is bound to 10.1.0.1:4793" udp_socket
mrc_check "default ids are the lowest free ones" lowest_free_id
mrc_check "add with id, addr, evs and down" add_explicit
mrc_check "IPv6 planes, by default and by address" add_ipv6
mrc_check "plane set up, down, evs and base-rtt, by id and device" set_plane
mrc_check "plane del by id and by device" del_planes
mrc_check "config show, text and JSON" config_show
mrc_check "config set port refused while planes exist (EBUSY)" config_busy
mrc_check "config set port and evs apply to new planes" config_set

reject_setup
reject_check "reject: unknown device (ENODEV)" reject_nodev
reject_check "reject: loopback (EINVAL)" reject_loopback
reject_check "reject: device already a plane (EEXIST)" reject_twice
reject_check "reject: id in use (EEXIST)" reject_id_used
reject_check "reject: id 16 (ERANGE)" reject_id_range
reject_check "reject: evs 0 and 257 (ERANGE)" reject_evs_range
reject_check "reject: device without a usable address (EADDRNOTAVAIL)" reject_no_address
reject_check "reject: address not on the device (EADDRNOTAVAIL)" reject_foreign_address
reject_check "reject: UDP port in use, IPv4 and IPv6 (EADDRINUSE)" reject_port_used
reject_check "reject: del, show, set of a missing plane (ENOENT)" reject_missing
mrc_check "reject: all 16 ids in use (ENOSPC)" reject_full
ns=$A
ctl plane del id 0

state_setup
mrc_check "state: device down, link-down, and back up" state_link_down
mrc_check "state: peer down (no carrier), link-down, IPv4 and IPv6" state_carrier
mrc_check "state: admin-down and back" state_admin
mrc_check "state: address removed, no-address, re-added, up" state_address
mrc_check "state: device deleted, plane no-device with its id and settings" state_dev_deleted
mrc_check "state: device moved to another namespace, plane waits here, none there" state_dev_moved

mrc_cleanup
setup_ns "$A" || exit "$KSFT_FAIL"
setup_ns "$B" || exit "$KSFT_FAIL"
mrc_check "monitor: events caused" monitor_events
mrc_check "monitor: plane add lines" monitor_text_add
mrc_check "monitor: plane change lines" monitor_text_change
mrc_check "monitor: plane del lines; device deletion is a change to no-device" monitor_text_del
mrc_check "monitor: config change line" monitor_text_config
mrc_check "monitor: every line timestamped and well formed" monitor_text_format
mrc_check "monitor: events of other namespaces not shown" monitor_isolated
mrc_check "monitor -j: one object per event, in order" monitor_json

ip -n "$A" link set veth2 up
mrc_check "a plane in one namespace is invisible in another" isolation
mrc_check "config is per namespace" config_isolation

mrc_check "unprivileged: show and config show work" unpriv_read
mrc_check "unprivileged: add fails with EPERM" unpriv_add
mrc_check "unprivileged: set, del and config set fail with EPERM" unpriv_change

mrc_check "mrcctl help exits 0" cli_help
mrc_check "usage errors exit 2" cli_usage
mrc_check "keyword prefixes: pl sh, conf sh, pl a de ... do" cli_prefixes

mrc_check "showconf prints the settings and planes as commands" conf_showconf
mrc_check "plane flush removes every plane, keeps the settings" conf_flush
mrc_check "-batch FILE and -batch - replay showconf" conf_batch
mrc_check "-batch stops at a failing line (FILE:LINE), -force goes on" conf_batch_errors

mrc_check "namespaces deleted with planes: rmmod and modprobe work" netns_delete

mrc_finish
