#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The per-namespace tunables under net.mrc:
#
# - each one that Documentation/networking/mrc-sysctl.rst describes exists
#   in a new namespace with the documented default and range: the bounds
#   are taken, a value past either is refused and leaves the value as it
#   was; the global memory limits exist in the initial namespace only;
# - a namespace's value is its own;
# - they change what connections do: connect_timeout_ms makes connect()
#   into a black hole give up sooner; dead_peer_timeout_ms resets a
#   transfer whose peer went silent sooner; init_cwnd is the window a
#   new connection shows; half_open_max bounds a listener's half-open
#   connections (the rest counted in SynDropped); rst_rate and
#   rst_rate_per_source bound the RSTs sent for packets of no
#   connection (the rest counted in RstStrayLimited), 0 sending none.
#
# IPv4 and IPv6 for what involves connections; one plane.

. "$(dirname "$0")/mrc_lib.sh"

mrc_require_root

mrc_need_mrcctl
mrc_need_bin mrc_xfer
mrc_need_bin mrc_conn_hold
mrc_need_cmd python3
mrc_need_cmd tc
XFER=$MRC_BIN/mrc_xfer
HOLD=$MRC_BIN/mrc_conn_hold
mrc_module_loaded || modprobe mrc || exit "$KSFT_FAIL"
mrc_need_mod sch_netem

# The documentation is the reference: the test runs from the source tree.
DOC=$(dirname "$0")/../../../../../Documentation/networking/mrc-sysctl.rst
if [ ! -r "$DOC" ]; then
	echo "# SKIP: no Documentation/networking/mrc-sysctl.rst"
	exit "$KSFT_SKIP"
fi
# The module's default encapsulation port (MRC_DEFAULT_UDP_PORT).
UDP_PORT=4793

mrc_plan 13

suffix=$(printf '%04x' $RANDOM)
tmp=$(mktemp -d)
port=9200
N1=mrcy-$suffix-n1
N2=mrcy-$suffix-n2

cleanup()
{
	mrc_kill_jobs
	mrc_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT

# The documented variables: "NAME MIN MAX DEFAULT" lines.
documented()
{
	awk '
	/^[a-z_]+ - INTEGER$/ { name = $1 }
	name && /Range: [0-9]+ to [0-9]+\.  Default: [0-9]+/ {
		gsub(/[.:]/, " ")
		print name, $2, $4, $6
		name = ""
	}' "$DOC"
}

get()
{
	ip netns exec "$1" cat "/proc/sys/net/mrc/$2"
}

set_()
{
	ip netns exec "$1" sh -c "echo $3 > /proc/sys/net/mrc/$2" 2> /dev/null
}

# defaults_and_bounds: every documented variable, in a new namespace.
defaults_and_bounds()
{
	local name min max def rc=0 n=0

	while read -r name min max def; do
		n=$((n + 1))
		[ "$(get "$N1" "$name")" = "$def" ] ||
			mrc_fail "$name is $(get "$N1" "$name"), documented $def" ||
			rc=1
		set_ "$N1" "$name" "$max" && [ "$(get "$N1" "$name")" = "$max" ] ||
			mrc_fail "$name does not take its maximum $max" || rc=1
		set_ "$N1" "$name" "$min" && [ "$(get "$N1" "$name")" = "$min" ] ||
			mrc_fail "$name does not take its minimum $min" || rc=1
		if [ "$min" -gt 0 ] && set_ "$N1" "$name" $((min - 1)); then
			mrc_fail "$name took $((min - 1)), below its range"
			rc=1
		fi
		if set_ "$N1" "$name" $((max + 1)); then
			mrc_fail "$name took $((max + 1)), above its range"
			rc=1
		fi
		[ "$(get "$N1" "$name")" = "$min" ] ||
			mrc_fail "$name changed by a refused write" || rc=1
		set_ "$N1" "$name" "$def"
	done < <(documented)
	[ "$n" -ge 11 ] || mrc_fail "only $n variables documented" || rc=1
	mrc_info "$n variables checked"
	return "$rc"
}

# every_file_documented: net/mrc of a new namespace has nothing else.
every_file_documented()
{
	local f rc=0

	for f in $(ip netns exec "$N1" ls /proc/sys/net/mrc); do
		documented | grep -q "^$f " ||
			mrc_fail "net.mrc.$f is not documented" || rc=1
	done
	return "$rc"
}

# memory_global: mem, wmem and rmem in the initial namespace only.
memory_global()
{
	local f

	for f in mem wmem rmem; do
		[ -e "/proc/sys/net/mrc/$f" ] ||
			mrc_fail "no net.mrc.$f in the initial namespace" || return 1
		ip netns exec "$N1" test ! -e "/proc/sys/net/mrc/$f" ||
			mrc_fail "net.mrc.$f in a namespace" || return 1
	done
}

# own_values: a value set in one namespace is not the other's.
own_values()
{
	set_ "$N1" connect_timeout_ms 777 || return 1
	mrc_expect "N1's connect_timeout_ms" "$(get "$N1" connect_timeout_ms)" 777 &&
		mrc_expect "N2's connect_timeout_ms" \
			"$(get "$N2" connect_timeout_ms)" 12000 &&
		mrc_expect "the initial namespace's connect_timeout_ms" \
			"$(cat /proc/sys/net/mrc/connect_timeout_ms)" 12000
}

# blackhole ON|OFF: A's plane drops everything it sends.
blackhole()
{
	if [ "$1" = on ]; then
		tc -n "$A" qdisc add dev veth1 root netem loss 100%
	else
		tc -n "$A" qdisc del dev veth1 root 2> /dev/null
	fi
}

# connect_gives_up: with connect_timeout_ms 1000, connect() into a black
# hole fails with ETIMEDOUT within 4 s (by default, 12 s).
connect_gives_up()
{
	local start took rc=0

	set_ "$A" connect_timeout_ms 1000 || return 1
	blackhole on || return 1
	start=$SECONDS
	ip netns exec "$A" "$XFER" -c "$peer" -p 9 -s 1K -T 30 \
		> /dev/null 2> "$tmp/c.err" && mrc_fail "connect() worked" && rc=1
	took=$((SECONDS - start))
	blackhole off
	set_ "$A" connect_timeout_ms 12000
	mrc_info "connect() gave up after $took s: $(cat "$tmp/c.err")"
	grep -qi "timed out" "$tmp/c.err" ||
		mrc_fail "not a timeout: $(cat "$tmp/c.err")" || rc=1
	[ "$took" -le 4 ] || mrc_fail "took $took s" || rc=1
	return "$rc"
}

# dead_peer: with dead_peer_timeout_ms 1000 at the sender, a transfer
# whose every packet is lost from then on fails within 5 s (by default,
# 10 s without an answer).
dead_peer()
{
	local start took rc=0

	set_ "$A" dead_peer_timeout_ms 1000 || return 1
	port=$((port + 1))
	mrc_xfer_server "$B" "$port" "$tmp" || return 1
	ip netns exec "$A" "$XFER" -c "$peer" -p "$port" -s 4G -T 60 \
		> /dev/null 2> "$tmp/c.err" &
	cli=$!
	sleep 1
	blackhole on || return 1
	start=$SECONDS
	wait "$cli" && mrc_fail "the transfer did not fail" && rc=1
	took=$((SECONDS - start))
	blackhole off
	mrc_kill_jobs
	set_ "$A" dead_peer_timeout_ms 10000
	mrc_info "the sender gave up after $took s: $(head -c 200 "$tmp/c.err")"
	[ "$took" -le 5 ] || mrc_fail "took $took s" || rc=1
	return "$rc"
}

# cwnd_of NS: the first plane's window of NS's first connection.
cwnd_of()
{
	"$MRCCTL" -n "$1" -j conn show | python3 -c '
import json, sys
conns = json.load(sys.stdin)
print(conns[0]["planes"][0]["cwnd"] if conns else "none")'
}

# init_cwnd: a new connection's window is net.mrc.init_cwnd.
init_cwnd()
{
	local got rc=0

	set_ "$A" init_cwnd 77 || return 1
	port=$((port + 1))
	rm -f "$tmp/h.out" "$tmp/hc.out"
	ip netns exec "$B" "$HOLD" -l -p "$port" > "$tmp/h.out" 2>&1 &
	mrc_wait_for 20 mrc_said_ready "$tmp/h.out" ||
		mrc_fail "holder did not start" || return 1
	ip netns exec "$A" "$HOLD" -c "$peer" -p "$port" > "$tmp/hc.out" 2>&1 &
	mrc_wait_for 20 grep -q "^conn" "$tmp/hc.out" ||
		mrc_fail "no connection: $(cat "$tmp/hc.out")" || rc=1
	got=$(cwnd_of "$A")
	mrc_expect "the client's window" "$got" 77 || rc=1
	got=$(cwnd_of "$B")
	mrc_expect "the server's window" "$got" 32 || rc=1
	mrc_kill_jobs
	set_ "$A" init_cwnd 32
	return "$rc"
}

# Packets from a plain UDP socket on A's plane 1 address to B's MRC port:
# COUNT padded SYNs for PORT (KIND syn), each from its own connection
# id, naming A's plane; or COUNT DATA packets for no connection (KIND
# data).
cat > "$tmp/send.py" << 'EOF'
import socket
import struct
import sys

src, peer, mrc_port, kind, count, port = sys.argv[1], sys.argv[2], \
    int(sys.argv[3]), sys.argv[4], int(sys.argv[5]), int(sys.argv[6])
family = socket.AF_INET6 if ":" in peer else socket.AF_INET
s = socket.socket(family, socket.SOCK_DGRAM)
s.bind((src, 0))
HDR = struct.Struct("!BBHIIIIII")
raw = socket.inet_pton(family, src)
for i in range(count):
    if kind == "syn":
        ent = struct.pack("!BBH16s", 1, 6 if family == socket.AF_INET6 else 4,
                          0, raw.ljust(16, b"\0"))
        body = struct.pack("!HHIHBB", 41000 + i, port, 1024, 1424, 1, 0) + ent
        pkt = HDR.pack(0x11, 0, 50000, 0, 0x5500 + i, 0, 1000, 0, 0) + body
        # Padded to the largest SYN_ACK: 16 plane entries.
        pkt = pkt.ljust(HDR.size + 12 + 16 * 20, b"\0")
    else:
        pkt = HDR.pack(0x13, 0, 50000, 0x6600 + i, 77, 0, 0, 0, 0) + b"x" * 64
    s.sendto(pkt, (peer, mrc_port))
EOF

send()
{
	ip netns exec "$A" python3 "$tmp/send.py" "$(mrc_addr "$fam" 1 1)" \
		"$peer" "$UDP_PORT" "$@"
}

# half_open: with half_open_max 2, 6 SYNs that nobody completes make 2
# half-open connections and 4 SynDropped.
half_open()
{
	local rc=0

	set_ "$B" half_open_max 2 || return 1
	port=$((port + 1))
	mrc_xfer_server "$B" "$port" "$tmp" || return 1
	mrc_stats_delta "$B" "$tmp" > /dev/null || return 1
	send syn 6 "$port" || return 1
	sleep 0.5
	mrc_stats_delta "$B" "$tmp" > "$tmp/b" || return 1
	mrc_kill_jobs
	set_ "$B" half_open_max 256
	mrc_expect PassiveOpens "$(mrc_stat PassiveOpens "$tmp/b")" 2 || rc=1
	mrc_expect SynDropped "$(mrc_stat SynDropped "$tmp/b")" 4 || rc=1
	[ "$rc" = 0 ] || mrc_show "$tmp/b"
	return "$rc"
}

# rst_rates: rst_rate 10 lets at most 20 RSTs out for 200 strays sent
# within a second (two windows of the limit at most); rst_rate_per_source
# 0 lets none out.
rst_rates()
{
	local rc=0 sent limited

	set_ "$B" rst_rate 10 || return 1
	mrc_stats_delta "$B" "$tmp" > /dev/null || return 1
	send data 200 0 || return 1
	sleep 0.5
	mrc_stats_delta "$B" "$tmp" > "$tmp/b" || return 1
	sent=$(mrc_stat RstStraySent "$tmp/b")
	limited=$(mrc_stat RstStrayLimited "$tmp/b")
	mrc_info "rst_rate 10: $sent RSTs sent, $limited held back"
	[ "$sent" -ge 1 ] && [ "$sent" -le 20 ] &&
		[ $((sent + limited)) = 200 ] ||
		mrc_fail "rst_rate 10: $sent sent, $limited held back" || rc=1
	set_ "$B" rst_rate 1000
	set_ "$B" rst_rate_per_source 0 || return 1
	sleep 1.1
	send data 50 0 || return 1
	sleep 0.5
	mrc_stats_delta "$B" "$tmp" > "$tmp/b" || return 1
	mrc_expect "RSTs sent with rst_rate_per_source 0" \
		"$(mrc_stat RstStraySent "$tmp/b")" 0 || rc=1
	set_ "$B" rst_rate_per_source 100
	return "$rc"
}

mrc_ns_add "$N1" "$N2" || exit "$KSFT_FAIL"
mrc_check "every documented variable: default, range, refusals" \
	defaults_and_bounds
mrc_check "every variable is documented" every_file_documented
mrc_check "the memory limits are global" memory_global
mrc_check "each namespace has its own values" own_values

for fam in 4 6; do
	A=mrcy-$suffix-a$fam
	B=mrcy-$suffix-b$fam
	if ! mrc_ns_add "$A" "$B" || ! mrc_link_hosts "$A" "$B" "$fam" 1 1 ||
	   ! mrc_add_planes "$A" "$B" "$fam" 1 1; then
		mrc_fail "cannot build the IPv$fam topology"
	fi
	peer=$(mrc_addr "$fam" 1 2)
	mrc_check "IPv$fam: connect_timeout_ms bounds connect()" connect_gives_up
	mrc_check "IPv$fam: dead_peer_timeout_ms resets a silent peer sooner" \
		dead_peer
	mrc_check "IPv$fam: init_cwnd is a new connection's window" init_cwnd
	mrc_check "IPv$fam: half_open_max bounds a listener" half_open
	if [ "$fam" = 4 ]; then
		mrc_check "IPv$fam: rst_rate and rst_rate_per_source bound RSTs" \
			rst_rates
	fi
	mrc_kill_jobs
	ip netns del "$A"
	ip netns del "$B"
done

mrc_finish
