#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mrcize: unmodified programs whose TCP sockets become MRC sockets.  Two
# hosts (network namespaces) joined by four planes, two IPv4 and two IPv6
# (a connection uses all four, whatever family it was dialled in), and a
# third host without a plane:
#
# - "mrcize run" refuses to run without a plane, says why, and with -f
#   runs, but a connection the policy sends over MRC then fails rather
#   than fall back to TCP;
# - socat sends a few MiB of random data to a socat server, over IPv4 and
#   IPv6: same SHA-256 at both ends, the connection listed by "mrcctl conn
#   show" on both hosts;
# - python3's http.server on ::, fetched by curl over IPv4 and IPv6: same
#   content, the server saw an IPv4-mapped peer, MRC counted the opens;
# - iperf3 over the four planes while one goes down: its JSON report has
#   the bytes, a round trip and an MSS (TCP_INFO and TCP_MAXSEG, read from
#   MRC_INFO), and every plane's device sent packets before the failure;
# - the policy: with -p only the listed port goes over MRC, with -a only
#   the listed addresses; loopback stays on TCP (ss sees those);
# - TCP and IP options, TCP_INFO, and the addresses of getsockname and
#   getpeername on AF_INET and AF_INET6 sockets, from python3;
# - "mrcize enable" and "disable" write and remove a systemd drop-in.

. "$(dirname "$0")/mrc_lib.sh"

mrc_require_root

mrc_need_mrcctl
mrc_need_mrcize
mrc_need_cmd python3 socat iperf3 curl jq ss sha256sum
mrc_module_loaded || modprobe mrc || exit "$KSFT_FAIL"

mrc_plan 11

suffix=$(printf '%04x' $RANDOM)
A=mrcz-$suffix-a
B=mrcz-$suffix-b
C=mrcz-$suffix-c
tmp=$(mktemp -d)
# The bytes of each socat transfer; the seconds of the iperf3 test, and
# the packets each plane must send before one is failed.
SIZE=4M
IPERF_SECONDS=6
STARTED=100

cleanup()
{
	mrc_kill_jobs
	mrc_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT

# Hosts $A and $B: planes 1 and 2 over IPv4 (10.0.K.H), 3 and 4 over IPv6
# (fd00:K::H).  $C: no plane, a dummy device with 192.0.2.1.
setup()
{
	mrc_ns_add "$A" "$B" "$C" &&
		mrc_link_hosts "$A" "$B" 4 1 2 &&
		mrc_link_hosts "$A" "$B" 6 3 4 &&
		mrc_add_planes "$A" "$B" 4 1 2 &&
		mrc_add_planes "$A" "$B" 6 3 4 || return 1
	ip -n "$C" link add dummy0 type dummy &&
		ip -n "$C" link set dummy0 up &&
		ip -n "$C" addr add 192.0.2.1/24 dev dummy0
}

# The helper programs: python3 calls the C library, so the library sees
# its sockets as any program's.
cat > "$tmp/client.py" << 'EOF'
# client.py HOST:PORT...: connect to each echo server, exchange a line,
# print "PORT mrc" or "PORT tcp" (whether SOL_MRC answers: the socket is
# an AF_MRC one), then "ready", and hold the connections until stdin ends.
import socket
import sys

SOL_MRC, MRC_INFO = 300, 1
socks = []
for target in sys.argv[1:]:
    host, port = target.rsplit(":", 1)
    s = socket.create_connection((host.strip("[]"), int(port)), timeout=30)
    s.sendall(b"hello\n")
    assert s.recv(100) == b"hello\n"
    try:
        s.getsockopt(SOL_MRC, MRC_INFO, 64)
        kind = "mrc"
    except OSError:
        kind = "tcp"
    print(port, kind, flush=True)
    socks.append(s)
print("ready", flush=True)
sys.stdin.read()
EOF

cat > "$tmp/options.py" << 'EOF'
# options.py FAMILY HOST PORT LOCAL: connect an AF_INET (4) or AF_INET6 (6)
# socket to the echo server at HOST PORT with TCP and IP options set before
# and after, and check what the options and addresses read.  LOCAL: the
# expected local address.
import errno
import socket
import struct
import sys

fam = socket.AF_INET if sys.argv[1] == "4" else socket.AF_INET6
host, port, local = sys.argv[2], int(sys.argv[3]), sys.argv[4]
SOL_MRC, MRC_INFO = 300, 1
MRC_USER_TIMEOUT, MRC_KEEPIDLE, MRC_KEEPINTVL, MRC_TCLASS = 4, 5, 6, 8
TCP, IP = socket.IPPROTO_TCP, socket.IPPROTO_IP
failed = 0

def check(what, got, want):
    global failed
    if got != want:
        print("FAIL: %s: got %r, expected %r" % (what, got, want))
        failed = 1

def geti(level, name):
    return struct.unpack("i", s.getsockopt(level, name, 4))[0]

s = socket.socket(fam, socket.SOCK_STREAM)
s.setsockopt(TCP, socket.TCP_NODELAY, 1)
s.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
s.setsockopt(TCP, socket.TCP_KEEPIDLE, 30)
if fam == socket.AF_INET:
    s.setsockopt(IP, socket.IP_TOS, 0x20)
else:
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_TCLASS, 0x20)
s.settimeout(30)
s.connect((host, port))
check("TCP_USER_TIMEOUT before it is set", geti(TCP, socket.TCP_USER_TIMEOUT), 0)
s.setsockopt(TCP, socket.TCP_USER_TIMEOUT, 5000)
s.setsockopt(TCP, socket.TCP_KEEPINTVL, 7)
s.setsockopt(TCP, socket.TCP_QUICKACK, 1)
s.setsockopt(TCP, socket.TCP_CONGESTION, b"cubic")
for i in range(20):
    s.sendall(b"x" * 1000 + b"\n")
    got = b""
    while len(got) < 1001:
        got += s.recv(4096)

# It is an MRC socket, that tells the program it is TCP.
try:
    s.getsockopt(SOL_MRC, MRC_INFO, 64)
except OSError as e:
    check("SOL_MRC MRC_INFO", e.errno, 0)
check("SO_DOMAIN", geti(socket.SOL_SOCKET, socket.SO_DOMAIN), fam)
check("SO_PROTOCOL", geti(socket.SOL_SOCKET, socket.SO_PROTOCOL), 6)
check("SO_TYPE", geti(socket.SOL_SOCKET, socket.SO_TYPE), socket.SOCK_STREAM)
check("SO_KEEPALIVE", geti(socket.SOL_SOCKET, socket.SO_KEEPALIVE), 1)
check("TCP_NODELAY", geti(TCP, socket.TCP_NODELAY), 1)
check("TCP_KEEPIDLE", geti(TCP, socket.TCP_KEEPIDLE), 30)
check("TCP_KEEPINTVL", geti(TCP, socket.TCP_KEEPINTVL), 7)
check("TCP_USER_TIMEOUT", geti(TCP, socket.TCP_USER_TIMEOUT), 5000)
# ... and the kernel has them, as SOL_MRC options.
check("MRC_USER_TIMEOUT", geti(SOL_MRC, MRC_USER_TIMEOUT), 5000)
check("MRC_KEEPIDLE", geti(SOL_MRC, MRC_KEEPIDLE), 30)
check("MRC_KEEPINTVL", geti(SOL_MRC, MRC_KEEPINTVL), 7)
check("MRC_TCLASS", geti(SOL_MRC, MRC_TCLASS), 0x20)
if fam == socket.AF_INET:
    check("IP_TOS", geti(IP, socket.IP_TOS), 0x20)
else:
    check("IPV6_TCLASS", geti(socket.IPPROTO_IPV6, socket.IPV6_TCLASS), 0x20)
check("TCP_CONGESTION", s.getsockopt(TCP, socket.TCP_CONGESTION, 16).rstrip(b"\0"),
      b"cubic")
try:
    s.setsockopt(TCP, socket.TCP_KEEPIDLE, 0)
    check("TCP_KEEPIDLE 0", "accepted", "EINVAL")
except OSError as e:
    check("TCP_KEEPIDLE 0", e.errno, errno.EINVAL)

mss = geti(TCP, socket.TCP_MAXSEG)
info = s.getsockopt(TCP, socket.TCP_INFO, 256)
state = info[0]
rto, ato, snd_mss, rcv_mss = struct.unpack_from("IIII", info, 8)
rtt, rttvar = struct.unpack_from("II", info, 68)
total_retrans = struct.unpack_from("I", info, 100)[0]
segs_out, segs_in = struct.unpack_from("II", info, 136)
print("# TCP_INFO: state %d rto %d us rtt %d us mss %d segs out %d in %d retrans %d"
      % (state, rto, rtt, snd_mss, segs_out, segs_in, total_retrans))
check("tcpi_state", state, 1)
check("TCP_MAXSEG > 500", mss > 500, True)
check("tcpi_snd_mss", snd_mss, mss)
check("tcpi_rtt > 0", rtt > 0, True)
check("tcpi_rto >= tcpi_rtt", rto >= rtt, True)
check("tcpi_segs_out >= 20", segs_out >= 20, True)
check("tcpi_segs_in >= 20", segs_in >= 20, True)
check("TCP_INFO in 8 bytes", len(s.getsockopt(TCP, socket.TCP_INFO, 8)), 8)

name, peer = s.getsockname(), s.getpeername()
print("# local %r peer %r" % (name, peer))
check("getsockname address", name[0], local)
check("getsockname port > 0", name[1] > 0, True)
check("getpeername", peer[:2], (host, port))
if fam == socket.AF_INET6:
    check("getpeername length", len(peer), 4)
s.close()
sys.exit(failed)
EOF

# nsx NS COMMAND...: COMMAND in NS.  Programs in the background are
# started by "ip netns exec" itself, which execs them: $! is their pid, to
# kill them and to read their namespace's /proc/PID/net/dev.
nsx()
{
	local ns=$1

	shift
	ip netns exec "$ns" "$@"
}

# has_size FILE SIZE: FILE has SIZE bytes.
has_size()
{
	[ "$(stat -c %s "$1" 2> /dev/null)" = "$2" ]
}

# listening NS PORT KIND: a listener on PORT in NS, MRC (mrcctl sock show)
# for KIND "mrc", TCP (ss) for "tcp".
listening()
{
	if [ "$3" = mrc ]; then
		"$MRCCTL" -n "$1" sock show 2> /dev/null |
			grep -qE "^listen .*:$2 "
	else
		nsx "$1" ss -tlnH "sport = :$2" | grep -q .
	fi
}

# wait_listen NS PORT KIND: until listening, or fail.
wait_listen()
{
	mrc_wait_for 30 listening "$@" ||
		mrc_fail "nothing listens on port $2 of $1 ($3)"
}

# conn_listed NS PATTERN: "mrcctl conn show" of NS has an established
# connection whose line matches PATTERN.
conn_listed()
{
	"$MRCCTL" -n "$1" conn show | grep "state established" | grep -qE "$2"
}

############################################################################

no_plane()
{
	local rc

	nsx "$C" "$MRCIZE" run true 2> "$tmp/err"
	rc=$?
	mrc_info "$(cat "$tmp/err")"
	mrc_expect "exit status" "$rc" 1 || return 1
	mrc_expect "lines on stderr" "$(wc -l < "$tmp/err")" 1 || return 1
	grep -q "no MRC plane" "$tmp/err" ||
		mrc_fail "the message does not name the missing plane"
}

# -f runs the program; its connection to a TCP server of the host itself
# (not loopback) fails instead of going over TCP.
forced()
{
	local srv rc=0 code

	ip netns exec "$C" socat TCP-LISTEN:7001,bind=192.0.2.1,reuseaddr,fork EXEC:cat &
	srv=$!
	wait_listen "$C" 7001 tcp || return 1
	code='import socket, sys
s = socket.socket()
try:
    s.connect(("192.0.2.1", 7001))
    print("connected")
except OSError as e:
    print("error", e.errno)'
	nsx "$C" python3 -c "$code" > "$tmp/plain" 2>&1
	nsx "$C" "$MRCIZE" run -f python3 -c "$code" > "$tmp/forced" 2> "$tmp/err"
	kill "$srv"
	wait "$srv" 2> /dev/null
	mrc_info "without mrcize: $(cat "$tmp/plain"); under mrcize -f: $(cat "$tmp/forced")"
	mrc_expect "plain TCP" "$(cat "$tmp/plain")" connected || rc=1
	grep -q "^error [0-9]" "$tmp/forced" ||
		mrc_fail "the connection did not fail under mrcize -f" || rc=1
	return "$rc"
}

# socat_xfer FAMILY PORT: $SIZE of random bytes from a socat of $A to a
# socat server of $B, held open until both hosts listed the connection.
socat_xfer()
{
	local fam=$1 port=$2 srv cli rc=0 peer listen connect

	if [ "$fam" = 4 ]; then
		peer=10.0.1.2 listen=TCP-LISTEN connect=TCP:$peer:$port
	else
		peer=fd00:3::2 listen=TCP6-LISTEN connect=TCP6:[$peer]:$port
	fi
	head -c "$SIZE" /dev/urandom > "$tmp/data" || return 1
	bytes "$SIZE"
	rm -f "$tmp/recv" "$tmp/go"
	mkfifo "$tmp/go" || return 1
	ip netns exec "$B" "$MRCIZE" run socat -u "$listen:$port,reuseaddr" \
		"CREATE:$tmp/recv" 2> "$tmp/s.err" &
	srv=$!
	wait_listen "$B" "$port" mrc || { kill "$srv"; return 1; }
	# The sender's input ends when the test writes to the FIFO.
	{ cat "$tmp/data"; read -r _ < "$tmp/go"; } |
		ip netns exec "$A" "$MRCIZE" run socat -u - "$connect" 2> "$tmp/c.err" &
	cli=$!
	mrc_wait_for 60 has_size "$tmp/recv" "$nbytes" ||
		mrc_fail "received $(stat -c %s "$tmp/recv" 2> /dev/null) of $nbytes bytes" ||
		rc=1
	if [ "$rc" = 0 ]; then
		"$MRCCTL" -n "$A" conn show | sed 's/^/#   A: /'
		"$MRCCTL" -n "$B" conn show | sed 's/^/#   B: /'
		conn_listed "$A" " peer \[?$peer\]?:$port( |$)" ||
			mrc_fail "no connection to port $port in mrcctl conn show of A" || rc=1
		conn_listed "$B" " port $port " ||
			mrc_fail "no connection on port $port in mrcctl conn show of B" || rc=1
	fi
	echo > "$tmp/go"
	wait "$cli" || mrc_fail "client exited $?: $(cat "$tmp/c.err")" || rc=1
	wait "$srv" || mrc_fail "server exited $?: $(cat "$tmp/s.err")" || rc=1
	[ "$rc" = 0 ] || return 1
	mrc_expect "sha256 received" "$(sha256sum < "$tmp/recv")" \
		"$(sha256sum < "$tmp/data")"
}

# bytes SIZE: SIZE (with a K or M suffix) in bytes, in $nbytes.
bytes()
{
	case "$1" in
	*K) nbytes=$((${1%K} << 10)) ;;
	*M) nbytes=$((${1%M} << 20)) ;;
	*) nbytes=$1 ;;
	esac
}

# http.server on $B's ::, fetched by curl from $A over IPv4 and IPv6.
http()
{
	local srv rc=0 url opens

	mkdir -p "$tmp/www" && head -c 300K /dev/urandom > "$tmp/www/file" ||
		return 1
	mrc_stats_delta "$B" "$tmp" > /dev/null
	ip netns exec "$B" "$MRCIZE" run python3 -m http.server 8000 --bind :: \
		--directory "$tmp/www" > "$tmp/http.out" 2> "$tmp/http.err" &
	srv=$!
	wait_listen "$B" 8000 mrc || { kill "$srv"; return 1; }
	for url in http://10.0.1.2:8000/file "http://[fd00:3::2]:8000/file"; do
		rm -f "$tmp/got"
		nsx "$A" "$MRCIZE" run curl -sS -g --max-time 60 -o "$tmp/got" "$url" ||
			mrc_fail "curl $url failed" || rc=1
		cmp -s "$tmp/got" "$tmp/www/file" ||
			mrc_fail "$url: not the file served" || rc=1
	done
	mrc_stats_delta "$B" "$tmp" > "$tmp/stats"
	kill "$srv"
	wait "$srv" 2> /dev/null
	mrc_show "$tmp/http.err"
	opens=$(mrc_stat PassiveOpens "$tmp/stats")
	mrc_expect "MRC connections accepted by the server" "$opens" 2 || rc=1
	# An AF_INET6 listener sees an IPv4 peer as an IPv4-mapped address.
	grep -q '^::ffff:10\.0\.1\.1 .*"GET /file' "$tmp/http.err" ||
		mrc_fail "the server did not log ::ffff:10.0.1.1" || rc=1
	grep -q '^fd00:[0-9a-f:]* .*"GET /file' "$tmp/http.err" ||
		mrc_fail "the server did not log an IPv6 peer" || rc=1
	return "$rc"
}

# dev_tx FILE: the packets that veth1-4 sent, in TX[1..4], from FILE, the
# /proc/net/dev of their namespace: that of a process in it, so that no
# process is started while iperf3 takes the CPUs.
dev_tx()
{
	local name tx

	TX=()
	while read -r name _ _ _ _ _ _ _ _ _ tx _; do
		[[ "$name" == veth[1-4]: ]] && TX[${name:4:1}]=$tx
	done < "$1"
	[ "${#TX[@]}" = 4 ]
}

# started: each of $A's planes sent $STARTED packets since TX0.
started()
{
	local k

	dev_tx "/proc/$cli/net/dev" 2> /dev/null || return 1
	for k in 1 2 3 4; do
		[ $((TX[k] - TX0[k])) -ge "$STARTED" ] || return 1
	done
}

# iperf3 between the hosts, plane 2 down after every plane carried data.
iperf()
{
	local srv cli rc=0 k recv rtt mss host
	local TX0=()

	ip netns exec "$B" "$MRCIZE" run iperf3 -s -1 -p 5201 > "$tmp/iperf-s.out" 2>&1 &
	srv=$!
	wait_listen "$B" 5201 mrc || { kill "$srv"; return 1; }
	nsx "$A" cat /proc/net/dev > "$tmp/dev" && dev_tx "$tmp/dev" || return 1
	TX0=("" "${TX[1]}" "${TX[2]}" "${TX[3]}" "${TX[4]}")
	ip netns exec "$A" "$MRCIZE" run iperf3 -c 10.0.1.2 -p 5201 -t "$IPERF_SECONDS" -J \
		> "$tmp/iperf.json" 2> "$tmp/iperf.err" &
	cli=$!
	if mrc_wait_for 20 started; then
		mrc_info "packets sent on planes 1-4 before the failure:" \
			"$((TX[1] - TX0[1])) $((TX[2] - TX0[2])) $((TX[3] - TX0[3]))" \
			"$((TX[4] - TX0[4]))"
	else
		mrc_fail "not every plane carried data: ${TX[*]}"
		rc=1
	fi
	ip -n "$A" link set veth2 down || rc=1
	TX0=("" "${TX[1]}" "${TX[2]}" "${TX[3]}" "${TX[4]}")
	wait "$cli" || mrc_fail "iperf3 -c exited $?: $(cat "$tmp/iperf.err")" ||
		{ rc=1; kill "$srv"; }
	nsx "$A" cat /proc/net/dev > "$tmp/dev" && dev_tx "$tmp/dev" || rc=1
	ip -n "$A" link set veth2 up
	wait "$srv" || mrc_fail "iperf3 -s exited $?: $(tail -5 "$tmp/iperf-s.out")" ||
		rc=1
	mrc_info "packets sent on planes 1-4 after: $((TX[1] - TX0[1]))" \
		"$((TX[2] - TX0[2])) $((TX[3] - TX0[3])) $((TX[4] - TX0[4]))"
	for k in 1 3 4; do
		[ $((TX[k] - TX0[k])) -ge "$STARTED" ] ||
			mrc_fail "plane $k did not carry on" || rc=1
	done
	recv=$(jq -r '.end.sum_received.bytes' "$tmp/iperf.json")
	rtt=$(jq -r '.end.streams[0].sender.max_rtt' "$tmp/iperf.json")
	mss=$(jq -r '.start.tcp_mss_default' "$tmp/iperf.json")
	host=$(jq -r '.start.connected[0].remote_host' "$tmp/iperf.json")
	mrc_info "iperf3: received $recv bytes," \
		"$(jq -r '.end.sum_received.bits_per_second / 1e6 | floor' "$tmp/iperf.json") Mbit/s," \
		"retransmits $(jq -r '.end.sum_sent.retransmits' "$tmp/iperf.json")," \
		"max rtt $rtt us, mss $mss, congestion" \
		"$(jq -r '.end.sender_tcp_congestion' "$tmp/iperf.json")"
	[[ "$recv" =~ ^[0-9]+$ ]] && [ "$recv" -gt 1000000 ] ||
		mrc_fail "iperf3 received $recv bytes" || rc=1
	[[ "$rtt" =~ ^[0-9]+$ ]] && [ "$rtt" -gt 0 ] ||
		mrc_fail "no round trip in TCP_INFO: $rtt" || rc=1
	[[ "$mss" =~ ^[0-9]+$ ]] && [ "$mss" -gt 500 ] ||
		mrc_fail "no MSS from TCP_MAXSEG: $mss" || rc=1
	mrc_expect "iperf3 peer" "$host" 10.0.1.2 || rc=1
	return "$rc"
}

# client_start NS OPTIONS TARGET...: client.py under mrcize with OPTIONS
# in NS, in the background (pid in $cli), until it is ready.
client_start()
{
	local ns=$1 opts=$2

	shift 2
	go=
	rm -f "$tmp/go" "$tmp/client.out"
	mkfifo "$tmp/go" || return 1
	# shellcheck disable=SC2086 # $opts is a list of options
	ip netns exec "$ns" "$MRCIZE" run $opts python3 "$tmp/client.py" "$@" \
		< "$tmp/go" > "$tmp/client.out" 2> "$tmp/client.err" &
	cli=$!
	exec {go}> "$tmp/go"
	mrc_wait_said "$tmp/client.out" ready "$cli"
}

client_stop()
{
	[ -z "$go" ] || exec {go}>&-
	go=
	wait "$cli" 2> /dev/null
}

# ss_conn NS PORT: an established TCP connection to PORT in NS.
ss_conn()
{
	nsx "$1" ss -tnH state established "dport = :$2" | grep -q .
}

# With -p 7200: port 7200 over MRC, port 7201 over TCP, on both sides.
policy_ports()
{
	local s1 s2 cli rc=0

	ip netns exec "$B" "$MRCIZE" run -p 7200 socat TCP-LISTEN:7200,reuseaddr,fork EXEC:cat &
	s1=$!
	ip netns exec "$B" "$MRCIZE" run -p 7200 socat TCP-LISTEN:7201,reuseaddr,fork EXEC:cat &
	s2=$!
	wait_listen "$B" 7200 mrc && wait_listen "$B" 7201 tcp || rc=1
	if [ "$rc" = 0 ] && client_start "$A" "-p 7200" 10.0.1.2:7200 10.0.1.2:7201; then
		mrc_show "$tmp/client.out"
		grep -qx "7200 mrc" "$tmp/client.out" && grep -qx "7201 tcp" "$tmp/client.out" ||
			mrc_fail "not MRC for 7200 and TCP for 7201" || rc=1
		conn_listed "$A" " peer 10\.0\.1\.2:7200( |$)" ||
			mrc_fail "mrcctl conn show lists no connection to 7200" || rc=1
		! conn_listed "$A" ":7201( |$)" ||
			mrc_fail "mrcctl conn show lists a connection to 7201" || rc=1
		ss_conn "$A" 7201 || mrc_fail "ss shows no TCP connection to 7201" || rc=1
		! ss_conn "$A" 7200 || mrc_fail "ss shows a TCP connection to 7200" || rc=1
	else
		rc=1
	fi
	client_stop
	# -a: by address; the MRC listener answers on every plane's address.
	if [ "$rc" = 0 ] &&
	   client_start "$A" "-a 10.0.2.0/24" 10.0.2.2:7200 10.0.1.2:7201; then
		mrc_show "$tmp/client.out"
		grep -qx "7200 mrc" "$tmp/client.out" && grep -qx "7201 tcp" "$tmp/client.out" ||
			mrc_fail "-a 10.0.2.0/24: not MRC to 10.0.2.2 and TCP to 10.0.1.2" ||
			rc=1
	else
		rc=1
	fi
	client_stop
	kill "$s1" "$s2"
	wait "$s1" "$s2" 2> /dev/null
	return "$rc"
}

# Loopback stays on TCP, server and client under mrcize without a policy.
loopback()
{
	local srv rc=0

	ip netns exec "$A" "$MRCIZE" run socat TCP-LISTEN:7300,bind=127.0.0.1,reuseaddr,fork \
		EXEC:cat &
	srv=$!
	wait_listen "$A" 7300 tcp || rc=1
	if [ "$rc" = 0 ] && client_start "$A" "" 127.0.0.1:7300; then
		mrc_show "$tmp/client.out"
		grep -qx "7300 tcp" "$tmp/client.out" ||
			mrc_fail "the loopback connection is not TCP" || rc=1
		ss_conn "$A" 7300 || mrc_fail "ss shows no TCP connection to 7300" ||
			rc=1
	else
		rc=1
	fi
	client_stop
	kill "$srv"
	wait "$srv" 2> /dev/null
	return "$rc"
}

# options FAMILY HOST LOCAL: options.py against an echo server of $B.
options()
{
	local srv rc=0

	ip netns exec "$B" "$MRCIZE" run socat TCP6-LISTEN:7400,reuseaddr,fork EXEC:cat &
	srv=$!
	wait_listen "$B" 7400 mrc || rc=1
	if [ "$rc" = 0 ]; then
		nsx "$A" "$MRCIZE" run python3 "$tmp/options.py" "$@" > "$tmp/opt.out" 2>&1
		rc=$?
		mrc_show "$tmp/opt.out"
	fi
	kill "$srv"
	wait "$srv" 2> /dev/null
	return "$rc"
}

options_4()
{
	options 4 10.0.1.2 7400 10.0.1.1
}

# An AF_INET6 socket: to an IPv4-mapped address, then to an IPv6 one.
options_6()
{
	options 6 ::ffff:10.0.1.2 7400 ::ffff:10.0.1.1 &&
		options 6 fd00:3::2 7400 fd00:3::1
}

systemd_dropin()
{
	local dir=$tmp/systemd out lib rc=0

	export MRCIZE_SYSTEMD_DIR=$dir
	mkdir -p "$dir"
	out=$("$MRCIZE" enable -p 5201 iperf3 2> "$tmp/err") ||
		mrc_fail "mrcize enable failed: $(cat "$tmp/err")" || return 1
	mrc_info "$out; $(cat "$tmp/err")"
	mrc_expect "drop-in" "$out" "$dir/iperf3.service.d/mrcize.conf" || return 1
	mrc_show "$out"
	lib=$(sed -n 's/^Environment="LD_PRELOAD=\(.*\)"$/\1/p' "$out")
	[ -f "$lib" ] && [ "$lib" = "$("$MRCIZE" lib)" ] ||
		mrc_fail "LD_PRELOAD is not the library: $lib" || return 1
	grep -qx 'Environment="MRCIZE_PORTS=5201"' "$out" ||
		mrc_fail "no MRCIZE_PORTS in the drop-in" || return 1
	grep -qx '\[Service\]' "$out" || mrc_fail "no [Service] section" || return 1
	"$MRCIZE" disable iperf3.service > /dev/null 2>&1 ||
		mrc_fail "mrcize disable failed" || return 1
	[ ! -e "$dir/iperf3.service.d" ] ||
		mrc_fail "the drop-in directory is left" || return 1
	"$MRCIZE" disable iperf3 2> "$tmp/err"
	mrc_expect "disable when not enabled" "$?" 1 || rc=1
	grep -q "not enabled" "$tmp/err" || mrc_fail "no message: $(cat "$tmp/err")" ||
		rc=1
	# Another drop-in of the operator's stays, and its directory.
	mkdir -p "$dir/foo.service.d" && touch "$dir/foo.service.d/local.conf"
	"$MRCIZE" enable foo > /dev/null 2>&1 && "$MRCIZE" disable foo > /dev/null 2>&1 ||
		mrc_fail "enable and disable of foo failed" || rc=1
	[ -e "$dir/foo.service.d/local.conf" ] && [ ! -e "$dir/foo.service.d/mrcize.conf" ] ||
		mrc_fail "foo.service.d not as it was" || rc=1
	unset MRCIZE_SYSTEMD_DIR
	return "$rc"
}

# check DESCRIPTION COMMAND...: mrc_check, and how long the case took.
if ! setup; then
	echo "# FAIL: cannot set the hosts up"
	exit "$KSFT_FAIL"
fi

mrc_check "no plane: mrcize run refuses, with one line, exit 1" no_plane
mrc_check "mrcize run -f: runs, and a connection fails rather than fall back to TCP" forced
mrc_check "socat over IPv4: $SIZE intact, listed by mrcctl conn show on both hosts" \
	socat_xfer 4 7100
mrc_check "socat over IPv6: $SIZE intact, listed by mrcctl conn show on both hosts" \
	socat_xfer 6 7101
mrc_check "python3 http.server on :: and curl, over IPv4 and IPv6" http
mrc_check "iperf3 over 4 planes, one failed midway: JSON report, every plane used" iperf
mrc_check "policy -p 7200: port 7200 over MRC, port 7201 over TCP; -a by address" \
	policy_ports
mrc_check "loopback stays on TCP" loopback
mrc_check "AF_INET socket: TCP and IP options, TCP_INFO, addresses" options_4
mrc_check "AF_INET6 socket: IPv4-mapped and IPv6 peers, options, addresses" options_6
mrc_check "mrcize enable and disable write and remove a systemd drop-in" systemd_dropin

mrc_finish
