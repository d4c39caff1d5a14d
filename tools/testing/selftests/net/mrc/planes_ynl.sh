#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The mrc generic netlink family driven by the kernel's own YNL client
# (tools/net/ynl/cli.py) from our spec, Documentation/netlink/specs/mrc.yaml:
# the kernel's requests, replies and notifications must be what the spec
# says.

. "$(dirname "$0")/mrc_lib.sh"

mrc_require_root

top=$(cd "$MRC_DIR" && pwd -P)/../../../../..
KSRC=${KSRC:-$MRC_DIR/../../../../../build/linux-source-6.12}
[ -e "$KSRC/tools/net/ynl/cli.py" ] || KSRC=$top/build/linux-source-6.12
CLI=$KSRC/tools/net/ynl/cli.py
SPEC=${MRC_SPEC:-$top/Documentation/netlink/specs/mrc.yaml}
SCHEMA=$KSRC/Documentation/netlink/genetlink-legacy.yaml
PYTHON=${PYTHON:-/usr/bin/python3}

if [ ! -e "$CLI" ]; then
	echo "# SKIP: no $CLI (set KSRC to an unpacked linux-source)"
	exit "$KSFT_SKIP"
fi
if ! "$PYTHON" -c 'import yaml, jsonschema' 2> /dev/null; then
	echo "# SKIP: $PYTHON lacks the yaml or jsonschema module"
	exit "$KSFT_SKIP"
fi
if ! command -v jq > /dev/null; then
	echo "# SKIP: needs jq"
	exit "$KSFT_SKIP"
fi
# Validate the spec against the schema of its protocol when cli.py can be
# told where it is; otherwise not at all.
if "$PYTHON" "$CLI" --help 2>&1 | grep -q -- --schema && [ -e "$SCHEMA" ]; then
	schema_args=(--schema "$SCHEMA")
else
	schema_args=(--no-schema)
fi
mrc_module_loaded || modprobe mrc || exit "$KSFT_FAIL"

mrc_plan 17

ns=mrcp-$(printf '%04x' $RANDOM)-ynl
tmp=$(mktemp -d)
trap 'mrc_cleanup; rm -rf "$tmp"' EXIT

mrc_ns_add "$ns" || exit "$KSFT_FAIL"
mrc_veth_pairs "$ns" 4 || exit "$KSFT_FAIL"
ip -n "$ns" -batch - <<EOF || exit "$KSFT_FAIL"
addr add 10.1.0.1/24 dev veth1
addr add fd00:1::1/64 dev veth1 nodad
addr add 10.3.0.1/24 dev veth3
addr add 10.3.0.9/24 dev veth3
addr add 10.5.0.1/24 dev veth5
addr add fd00:7::1/64 dev veth7 nodad
EOF

# ynl ARGS...: cli.py in the namespace, replies as JSON (one line each).
# The spec is validated once, by list_ops; Python is slow under emulation.
ynl()
{
	ip netns exec "$ns" "$PYTHON" "$CLI" --spec "$SPEC" --no-schema \
		--output-json "$@"
}

ifindex()
{
	local line

	line=$(ip -n "$ns" -o link show dev "$1") && echo "${line%%:*}"
}

# ipv4_u32 A.B.C.D: the address as YNL shows a big-endian u32.
ipv4_u32()
{
	local IFS=.

	# shellcheck disable=SC2086
	set -- $1
	echo $(($1 << 24 | $2 << 16 | $3 << 8 | $4))
}

# The counters of a plane that carried nothing, in the kernel's order.
COUNTERS='[{name: "OutPkts", value: 0}, {name: "OutBytes", value: 0},
	{name: "InPkts", value: 0}, {name: "InBytes", value: 0},
	{name: "InDrops", value: 0}]'

# plane ID IFNAME ADDR-KEY ADDR ADMIN_UP STATE EVS MTU [BASE_RTT]: a plane
# as YNL shows it, keys sorted, with its counters (no MRC traffic runs
# here).
# Addresses show as text (display-hint), but YNL of 6.12 takes them only
# as a number (addr4) or hex (addr6).
plane()
{
	jq -cnS "{id: $1, ifindex: $(ifindex "$2"), ifname: \"$2\", $3: \"$4\",
		\"admin-up\": $5, state: \"$6\", evs: $7, mtu: $8,
		\"base-rtt\": ${9:-0}, counter: $COUNTERS}"
}

# ynl_fails ERRNO_TEXT MESSAGE ARGS...: cli.py exits 1 with the errno text
# and the extack message.
ynl_fails()
{
	local errno=$1 msg=$2 out rc

	shift 2
	out=$(ynl "$@" 2>&1)
	rc=$?
	[ "$rc" = 1 ] || mrc_fail "cli.py $*: exit $rc, expected 1: $out" || return 1
	grep -qF "Netlink error: $errno" <<< "$out" && grep -qF "'msg': '" <<< "$out" &&
		grep -qF "$msg" <<< "$out" ||
		mrc_fail "cli.py $*: '$out', expected '$errno' and '$msg'"
}

list_ops()
{
	local out

	out=$(ip netns exec "$ns" "$PYTHON" "$CLI" --spec "$SPEC" "${schema_args[@]}" \
		--list-ops) || return 1
	mrc_expect "operations" "$(awk '{ print $1 }' <<< "$out" | sort | tr '\n' ' ')" \
		"config-get config-set conn-get plane-add plane-del plane-get plane-set stats-get "
}

add_default()
{
	local out key

	# The default output: a Python dict.
	out=$(ip netns exec "$ns" "$PYTHON" "$CLI" --spec "$SPEC" --no-schema \
		--do plane-add --json '{"ifname": "veth1"}') || return 1
	for key in "'id': 0" "'ifindex': $(ifindex veth1)" "'ifname': 'veth1'" \
		"'addr4': '10.1.0.1'" "'admin-up': 1" "'state': 'up'" \
		"'evs': 32" "'mtu': 1500"; do
		grep -qF "$key" <<< "$out" || mrc_fail "no $key in: $out" || return 1
	done
	! grep -q addr6 <<< "$out" || mrc_fail "addr6 in: $out"
}

add_attrs()
{
	local out

	out=$(ynl --multi plane-add "{\"ifindex\": $(ifindex veth7), \"id\": 3,
			\"evs\": 16, \"admin-up\": 0}" \
		--multi plane-add "{\"ifname\": \"veth3\", \"addr4\": $(ipv4_u32 10.3.0.9)}") ||
		return 1
	mrc_expect "replies" "$(jq -cS '.[]' <<< "$out")" \
		"$(plane 3 veth7 addr6 fd00:7::1 0 admin-down 16 1500)
$(plane 1 veth3 addr4 10.3.0.9 1 up 32 1500)"
}

dump()
{
	mrc_expect "planes" "$(ynl --dump plane-get | jq -cS 'sort_by(.id) | .[]')" \
		"$(plane 0 veth1 addr4 10.1.0.1 1 up 32 1500)
$(plane 1 veth3 addr4 10.3.0.9 1 up 32 1500)
$(plane 3 veth7 addr6 fd00:7::1 0 admin-down 16 1500)"
}

get_one()
{
	mrc_expect "by id, by ifname" \
		"$(ynl --multi plane-get '{"id": 3}' --multi plane-get '{"ifname": "veth3"}' |
			jq -c '[.[] | [.id, .ifname]]')" '[[3,"veth7"],[1,"veth3"]]'
}

set_plane()
{
	local out

	out=$(ynl --multi plane-set '{"id": 0, "admin-up": 0, "evs": 64, "base-rtt": 1500}' \
		--multi plane-get '{"id": 0}' \
		--multi plane-set '{"ifname": "veth1", "admin-up": 1, "evs": 32, "base-rtt": 0}') ||
		return 1
	mrc_expect "replies" "$(jq -cS '.[]' <<< "$out")" \
		"$(plane 0 veth1 addr4 10.1.0.1 0 admin-down 64 1500 1500)
$(plane 0 veth1 addr4 10.1.0.1 0 admin-down 64 1500 1500)
$(plane 0 veth1 addr4 10.1.0.1 1 up 32 1500)"
}

config()
{
	local out

	out=$(ynl --multi config-get '{}' --multi config-set '{"default-evs": 48}' \
		--multi config-get '{}' --multi config-set '{"default-evs": 32}') || return 1
	mrc_expect "replies" "$(jq -cS '.[]' <<< "$out")" \
		'{"default-evs":32,"planes":3,"rx-dropped":0,"syn-dropped":0,"udp-port":4793}
{"default-evs":48,"planes":3,"rx-dropped":0,"syn-dropped":0,"udp-port":4793}
{"default-evs":48,"planes":3,"rx-dropped":0,"syn-dropped":0,"udp-port":4793}
{"default-evs":32,"planes":3,"rx-dropped":0,"syn-dropped":0,"udp-port":4793}'
}

# stats: stats-get gives the namespace's counters by name, all zero here
# (no MRC traffic), the first InPkts.
stats()
{
	local out

	out=$(ynl --do stats-get --json '{}') || return 1
	mrc_expect "stats-get" "$(jq -c '[(.counter | length) >= 40,
		.counter[0].name, ([.counter[].value] | add)]' <<< "$out")" \
		'[true,"InPkts",0]'
}

error_nodev()
{
	ynl_fails "No such device" "no such device" --do plane-add --json '{"ifname": "nosuch0"}'
}

error_busy()
{
	ynl_fails "Device or resource busy" "cannot change the UDP port while planes exist" \
		--do config-set --json '{"udp-port": 5000}'
}

error_policy()
{
	ynl_fails "Numerical result out of range" "out of range" \
		--do plane-add --json '{"ifname": "veth3", "id": 16}'
}

# Notifications: cli.py of 6.12 cannot subscribe and send requests in one
# run (it loses track of the request when a notification comes first), so
# use its library: one socket listens to "monitor", another sends.
notifications()
{
	ip netns exec "$ns" "$PYTHON" - "$KSRC/tools/net/ynl" "$SPEC" > "$tmp/ntf" <<-'EOF'
	import json, sys, time
	sys.path.insert(0, sys.argv[1])
	from lib import YnlFamily

	listener = YnlFamily(sys.argv[2], '')
	listener.ntf_subscribe('monitor')
	actor = YnlFamily(sys.argv[2], '')
	requests = [('plane-add', {'ifname': 'veth5', 'id': 5}),
	        ('plane-set', {'id': 5, 'admin-up': 0}),
	        ('plane-del', {'id': 5}),
	        ('config-set', {'default-evs': 40}),
	        ('config-set', {'default-evs': 32})]
	for op, attrs in requests:
	    actor.do(op, attrs)
	deadline = time.time() + 5
	while len(listener.async_msg_queue) < len(requests) and time.time() < deadline:
	    listener.check_ntf()
	    time.sleep(0.05)
	time.sleep(0.2)
	listener.check_ntf()
	for ntf in listener.async_msg_queue:
	    print(json.dumps(ntf, default=bytes.hex))
	EOF
}

# ntf_line N: notification N as "NAME ID IFNAME STATE" or
# "NAME UDP-PORT DEFAULT-EVS PLANES".
ntf_line()
{
	sed -n "${1}p" "$tmp/ntf" | jq -r '.name + " " + (.msg | if has("ifname") then
		"\(.id) \(.ifname) \(.state)" else
		"\(.["udp-port"]) \(.["default-evs"]) \(.planes)" end)'
}

ntf_add()
{
	mrc_expect "notification 1" "$(ntf_line 1)" "plane-add-ntf 5 veth5 up" &&
		mrc_expect "its plane" "$(sed -n 1p "$tmp/ntf" | jq -cS .msg)" \
			"$(plane 5 veth5 addr4 10.5.0.1 1 up 32 1500)"
}

ntf_change()
{
	mrc_expect "notification 2" "$(ntf_line 2)" "plane-change-ntf 5 veth5 admin-down"
}

ntf_del()
{
	mrc_expect "notification 3" "$(ntf_line 3 | cut -d' ' -f1-3)" "plane-del-ntf 5 veth5"
}

ntf_config()
{
	mrc_expect "notifications 4, 5 and no more" "$(sed -n '4,$p' "$tmp/ntf" | jq -cS '[.name, .msg]')" \
		'["config-change-ntf",{"default-evs":40,"planes":3,"rx-dropped":0,"syn-dropped":0,"udp-port":4793}]
["config-change-ntf",{"default-evs":32,"planes":3,"rx-dropped":0,"syn-dropped":0,"udp-port":4793}]'
}

del_planes()
{
	mrc_expect "replies" "$(ynl --multi plane-del '{"id": 0}' --multi plane-del '{"ifname": "veth7"}' \
		--multi plane-del '{"ifindex": '"$(ifindex veth3)"'}' --multi config-get '{}' |
		jq -cS .)" '[null,null,null,{"default-evs":32,"planes":0,"rx-dropped":0,"syn-dropped":0,"udp-port":4793}]'
}

mrc_info "spec $SPEC, cli $CLI ${schema_args[*]}"
mrc_check "the spec validates and loads; its operations" list_ops
mrc_check "plane-add by ifname, defaults (Python output)" add_default
mrc_check "plane-add by ifindex with id, evs, admin-up; with addr4" add_attrs
mrc_check "plane-get dump" dump
mrc_check "plane-get by id and by ifname" get_one
mrc_check "plane-set admin-up, evs and base-rtt" set_plane
mrc_check "config-get and config-set" config
mrc_check "stats-get" stats
mrc_check "error: unknown device, errno and extack" error_nodev
mrc_check "error: UDP port change with planes, errno and extack" error_busy
mrc_check "error: id 16 refused by the policy" error_policy
notifications
mrc_check "monitor: plane-add-ntf" ntf_add
mrc_check "monitor: plane-change-ntf" ntf_change
mrc_check "monitor: plane-del-ntf" ntf_del
mrc_check "monitor: config-change-ntf" ntf_config
mrc_check "plane-del by id, ifname and ifindex" del_planes
mrc_check "plane-get of a removed plane: ENOENT" ynl_fails "No such file or directory" \
	"no such plane" --do plane-get --json '{"id": 0}'

mrc_finish
