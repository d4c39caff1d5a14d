#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# AF_MRC sockets over sock_diag, with "mrcctl sock show" and "mrcctl sock
# kill": two hosts (network namespaces) joined by an IPv4 plane and an
# IPv6 plane, a listener and a connection over each plane, one client run
# by an unprivileged user; the listing (states, ports, peers, uids, inodes
# as /proc/PID/fd has them, the processes of -p, connection ids for their
# owner and root only), each filter, a third namespace's socket kept
# apart, thousands of sockets each listed once though read in parts;
# kill refused without CAP_NET_ADMIN, then the abort of a
# connection at either end (ECONNABORTED there, ECONNRESET at the peer,
# an RST counted, the connection gone), of a listener blocked in accept()
# and of a connect() in progress.  First, without the module loaded,
# sock_diag lists nothing and does not load it.

. "$(dirname "$0")/mrc_lib.sh"

mrc_require_root

mrc_need_mrcctl
mrc_need_bin mrc_conn_hold
mrc_need_cmd jq setpriv
HOLD=$MRC_BIN/mrc_conn_hold

mrc_plan 18

NOBODY=65534
OTHER=65533
suffix=$(printf '%04x' $RANDOM)
tmp=$(mktemp -d)
chmod 755 "$tmp"
A=mrcd-$suffix-a
B=mrcd-$suffix-b
C=mrcd-$suffix-c
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

# socks NS [FILTER...]: the sockets of NS as JSON.
socks()
{
	local ns=$1

	shift
	ctl "$ns" -j sock show "$@"
}

# q NS JQ [FILTER...]: the values of jq JQ over socks NS FILTER..., on
# one line.
q()
{
	local ns=$1 prog=$2

	shift 2
	socks "$ns" "$@" | jq -r "[$prog] | map(tostring) | join(\" \")"
}

# qs NS JQ [FILTER...]: the same, sorted.
qs()
{
	local ns=$1 prog=$2

	shift 2
	socks "$ns" "$@" | jq -r "[$prog] | map(tostring) | sort | join(\" \")"
}

# as UID NS COMMAND...: COMMAND in NS as the user UID, without groups.
as()
{
	local uid=$1 ns=$2

	shift 2
	ip netns exec "$ns" setpriv --reuid="$uid" --regid="$uid" \
		--clear-groups "$@"
}

# hold NAME NS [WRAPPER...] -- ARGS: mrc_conn_hold ARGS in NS in the
# background (through WRAPPER), output in $tmp/NAME.out and .err; its pid
# in $pid.
hold()
{
	local name=$1 ns=$2 wrap=()

	shift 2
	while [ "$1" != -- ]; do
		wrap+=("$1")
		shift
	done
	shift
	rm -f "$tmp/$name.out" "$tmp/$name.err"
	ip netns exec "$ns" "${wrap[@]}" "$HOLD" "$@" -T 60 \
		> "$tmp/$name.out" 2> "$tmp/$name.err" &
	pid=$!
	pids+=("$pid")
}

# said NAME TEXT: NAME printed a line that starts with TEXT.
said()
{
	grep -q "^$2" "$tmp/$1.out" 2> /dev/null
}

# gone PID: the process ended (a zombie has ended).
gone()
{
	[ ! -e "/proc/$1" ] || [ "$(awk '{ print $3 }' "/proc/$1/stat" 2> /dev/null)" = Z ]
}

said_or_gone()
{
	said "$1" "$2" || gone "$3"
}

# wait_said NAME TEXT PID: NAME printed TEXT, or failed.
wait_said()
{
	mrc_wait_for 30 said_or_gone "$1" "$2" "$3"
	said "$1" "$2" && return 0
	mrc_fail "$1 did not say \"$2\":"
	mrc_show "$tmp/$1.out"
	mrc_show "$tmp/$1.err"
	return 1
}

# wait_gone PID: the process ends.
wait_gone()
{
	mrc_wait_for 10 gone "$1" || mrc_fail "process $1 is still there"
}

no_module()
{
	local out rc

	if ! rmmod mrc 2> "$tmp/rmmod.err"; then
		mrc_info "mrc.ko cannot be unloaded here: $(cat "$tmp/rmmod.err")"
		return "$KSFT_SKIP"
	fi
	out=$("$MRCCTL" -j sock show)
	rc=$?
	mrc_expect "exit status without the module" "$rc" 0 &&
		mrc_expect "sockets without the module" "$out" "[]" &&
		mrc_expect "text without the module" "$("$MRCCTL" sock show)" "" ||
		rc=1
	# The kernel asks for a family's diag module only once the family
	# is registered: the request loaded nothing.
	if mrc_module_loaded; then
		mrc_fail "sock_diag loaded mrc.ko"
		rc=1
	fi
	modprobe mrc || return 1
	return "$rc"
}

# Hosts A and B: plane 1 IPv4 on veth1 (10.0.1.x), plane 2 IPv6 on veth2
# (fd00:2::x); C, a namespace of its own.
setup()
{
	mrc_ns_add "$A" "$B" "$C" &&
		mrc_link_hosts "$A" "$B" 4 1 1 &&
		mrc_link_hosts "$A" "$B" 6 2 2 &&
		mrc_add_planes "$A" "$B" 4 1 1 &&
		mrc_add_planes "$A" "$B" 6 2 2
}

# Servers on B, clients on A: srv4/cli4 over plane 1 (the client run by
# nobody), srv6/cli6 over plane 2; each end waits in recv().
start_pairs()
{
	hold srv4 "$B" -- -l -p 5001 -w
	srv4=$pid
	hold srv6 "$B" -- -l -p 5002 -w
	srv6=$pid
	wait_said srv4 ready "$srv4" && wait_said srv6 ready "$srv6" ||
		return 1
	hold cli4 "$A" setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups \
		-- -c 10.0.1.2 -p 5001 -w
	cli4=$pid
	hold cli6 "$A" -- -c fd00:2::2 -p 5002 -w
	cli6=$pid
	wait_said cli4 sent "$cli4" && wait_said cli6 sent "$cli6" &&
		wait_said srv4 received "$srv4" &&
		wait_said srv6 received "$srv6" || return 1
	port4=$(awk '$1 == "conn" { print $4 }' "$tmp/cli4.out")
	port6=$(awk '$1 == "conn" { print $4 }' "$tmp/cli6.out")
	mrc_info "client ports: $port4 (IPv4), $port6 (IPv6)"
}

# expect_sock WHAT NS JQ FILTER EXPECTED: the fields JQ of the socket of
# NS that FILTER (a jq select) picks.
expect_sock()
{
	mrc_expect "$1" "$(q "$2" ".[] | select($4) | $3")" "$5"
}

listing_b()
{
	ctl "$B" sock show | mrc_show /dev/stdin
	mrc_expect "sockets on $B" "$(qs "$B" '.[] | "\(.state)/\(.port)"')" \
		"established/5001 established/5002 listen/5001 listen/5002" &&
		expect_sock "listener 5001" "$B" \
			'[.type, .uid, .recv_q, .send_q, .peer_address, .peer_port, .id] | @tsv' \
			'.state == "listen" and .port == 5001' \
			"$(printf 'stream\t0\t0\t1\t\t\t')" &&
		expect_sock "accepted IPv4 connection" "$B" \
			'[.peer_family, .peer_address, .peer_port, .uid, .planes[]] | @tsv' \
			'.state == "established" and .port == 5001' \
			"$(printf 'inet\t10.0.1.1\t%s\t0\t1\t2' "$port4")" &&
		expect_sock "accepted IPv6 connection" "$B" \
			'[.peer_family, .peer_address, .peer_port] | @tsv' \
			'.state == "established" and .port == 5002' \
			"$(printf 'inet6\tfd00:2::1\t%s' "$port6")"
}

listing_a()
{
	local ids

	ctl "$A" -s sock show | mrc_show /dev/stdin
	expect_sock "nobody's IPv4 client" "$A" \
		'[.state, .type, .uid, .peer_family, .peer_address, .peer_port, .recv_q, .send_q] | @tsv' \
		".port == $port4" \
		"$(printf 'established\tstream\t%s\tinet\t10.0.1.2\t5001\t0\t0' $NOBODY)" &&
		expect_sock "root's IPv6 client" "$A" \
			'[.state, .uid, .peer_family, .peer_address, .peer_port] | @tsv' \
			".port == $port6" \
			"$(printf 'established\t0\tinet6\tfd00:2::2\t5002')" || return 1
	# The ids, as "mrcctl conn show" has them.
	ids=$(ctl "$A" -j conn show | jq -r '[.[] | "\(.id)/\(.peer_id)"] | sort | join(" ")')
	mrc_expect "connection ids" \
		"$(socks "$A" | jq -r '[.[] | "\(.id)/\(.peer_id)"] | sort | join(" ")')" \
		"$ids" &&
		mrc_expect "skmem with -s" \
			"$(ctl "$A" -j -s sock show sport "$port4" | jq '.[].skmem | has("rcvbuf")')" \
			true
}

# inode_of NS PORT STATE: the inode of the socket of NS on PORT in STATE.
inode_of()
{
	q "$1" ".[] | select(.port == $2 and .state == \"$3\") | .ino"
}

# has_fd PID INODE: process PID holds socket INODE.
has_fd()
{
	local fd

	for fd in /proc/"$1"/fd/*; do
		[ "$(readlink "$fd")" = "socket:[$2]" ] && return 0
	done
	mrc_fail "process $1 does not hold socket:[$2]:" \
		"$(cd /proc/"$1"/fd && for fd in *; do echo -n "$fd=$(readlink "$fd") "; done)"
}

inodes()
{
	local ino

	ino=$(inode_of "$A" "$port4" established) &&
		[ -n "$ino" ] && [ "$ino" != 0 ] && has_fd "$cli4" "$ino" &&
		has_fd "$cli6" "$(inode_of "$A" "$port6" established)" &&
		has_fd "$srv4" "$(inode_of "$B" 5001 listen)" &&
		has_fd "$srv4" "$(inode_of "$B" 5001 established)" &&
		has_fd "$srv6" "$(inode_of "$B" 5002 established)"
}

processes()
{
	local line fd

	line=$(ctl "$A" sock show -p sport "$port4" | tail -n +2)
	mrc_info "$line"
	fd=$(q "$A" '.[0].processes[0].fd' -p sport "$port4")
	mrc_expect "process of $port4" \
		"$(q "$A" '.[0].processes[] | "\(.name) \(.pid)"' -p sport "$port4")" \
		"mrc_conn_hold $cli4" &&
		mrc_expect "users in text" "${line##* }" \
			"users:((\"mrc_conn_hold\",pid=$cli4,fd=$fd))" &&
		has_fd "$cli4" "$(inode_of "$A" "$port4" established)" &&
		[ "$(readlink /proc/"$cli4"/fd/"$fd")" = \
		  "socket:[$(inode_of "$A" "$port4" established)]" ] ||
		mrc_fail "fd $fd of $cli4 is not the socket"
}

# Connection ids go to the socket's owner and to root only.
private_ids()
{
	mrc_expect "ids nobody sees" \
		"$(as $NOBODY "$A" "$MRCCTL" -j sock show | jq -r '[.[] | "\(.port):\(.id != null)"] | sort | join(" ")')" \
		"$(jq -nr --arg a "$port4:true" --arg b "$port6:false" '[$a, $b] | sort | join(" ")')" &&
		mrc_expect "ids another user sees" \
			"$(as $OTHER "$A" "$MRCCTL" -j sock show | jq '[.[] | select(.id or .peer_id)] | length')" \
			0
}

# count NS FILTER...: the number of sockets of NS that FILTER shows.
count()
{
	local ns=$1

	shift
	socks "$ns" "$@" | jq length
}

filters()
{
	local ino cookie

	ino=$(inode_of "$B" 5001 listen)
	cookie=$(q "$B" ".[] | select(.port == 5002 and .state == \"established\") | .cookie")
	mrc_expect "state listen" "$(qs "$B" '.[].port' state listen)" \
		"5001 5002" &&
		mrc_expect "state established" "$(count "$B" state established)" 2 &&
		mrc_expect "state listen state established" \
			"$(count "$B" state listen state established)" 4 &&
		mrc_expect "state syn-sent" "$(count "$B" state syn-sent)" 0 &&
		mrc_expect "state connected" "$(count "$A" state connected)" 2 &&
		mrc_expect "sport 5001" "$(qs "$B" '.[].state' sport 5001)" \
			"established listen" &&
		mrc_expect "dport $port4" "$(q "$B" '.[] | "\(.state) \(.port)"' dport "$port4")" \
			"established 5001" &&
		mrc_expect "dport 5002" "$(q "$A" '.[].port' dport 5002)" "$port6" &&
		mrc_expect "port 5002" "$(q "$A" '.[].port' port 5002)" "$port6" &&
		mrc_expect "port $port4" "$(q "$A" '.[].port' port "$port4")" "$port4" &&
		mrc_expect "peer 10.0.1.1" "$(q "$B" '.[].port' peer 10.0.1.1)" 5001 &&
		mrc_expect "peer fd00:2::1" "$(q "$B" '.[].port' peer fd00:2::1)" 5002 &&
		mrc_expect "peer fd00:2::1 sport 5001" "$(count "$B" peer fd00:2::1 sport 5001)" 0 &&
		mrc_expect "ino $ino" "$(q "$B" '.[] | "\(.state) \(.port)"' ino "$ino")" \
			"listen 5001" &&
		mrc_expect "cookie $cookie" "$(q "$B" '.[] | "\(.state) \(.port)"' cookie "$cookie")" \
			"established 5002" &&
		mrc_expect "ino $ino state established" "$(count "$B" ino "$ino" state established)" 0 &&
		mrc_expect "an unknown inode" "$(count "$B" ino 1)" 0 &&
		mrc_expect "an unknown cookie" "$(count "$B" cookie 0x7fffffff00000001)" 0 &&
		mrc_expect "ino $ino with the cookie of another" \
			"$(count "$B" ino "$ino" cookie "$cookie")" 0 &&
		mrc_expect "id of nobody's connection" \
			"$(q "$A" '.[].port' id "$(q "$A" ".[] | select(.port == $port4) | .id")")" \
			"$port4"
}

# The text table: a header, then a line per socket.
text()
{
	local out

	out=$(ctl "$B" sock show state listen sport 5001)
	mrc_show /dev/stdin <<< "$out"
	mrc_expect "header" "$(head -n 1 <<< "$out" | tr -s ' ')" \
		"STATE TYPE RECV-Q SEND-Q LOCAL PEER UID INODE" &&
		mrc_expect "listener line" "$(tail -n +2 <<< "$out" | tr -s ' ')" \
			"listen stream 0 1 *:5001 * 0 $(inode_of "$B" 5001 listen)"
}

isolation()
{
	hold lsnC "$C" -- -l -p 7000
	wait_said lsnC ready "$pid" || return 1
	mrc_expect "port 7000 in $C" "$(q "$C" '.[] | "\(.state) \(.port)"')" \
		"listen 7000" &&
		mrc_expect "port 7000 in $A" "$(count "$A" port 7000)" 0 &&
		mrc_expect "port 7000 in $B" "$(count "$B" port 7000)" 0 &&
		mrc_expect "sockets of $A" "$(count "$A")" 2
}

# many: enough sockets that /proc/net/mrc is read a page at a time and
# the dump comes in several messages; each part goes on from where the
# last stopped, and every socket is listed once.  First, half of them
# close between two reads of /proc/net/mrc, the one it stopped at among
# them: the second read goes on from the next, and every socket left is
# listed once.
many()
{
	local n=3000 src rc=0

	ip netns exec "$C" python3 -S -c '
import os, resource, socket, sys, time
n = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_NOFILE, (n + 64, n + 64))
held = [socket.socket(25, socket.SOCK_SEQPACKET) for _ in range(n)]
fd = os.open("/proc/net/mrc", os.O_RDONLY)
text = os.read(fd, 4096).decode()
for s in held[1::2]:
    s.close()
held = held[0::2]
while True:
    more = os.read(fd, 4096).decode()
    if not more:
        break
    text += more
os.close(fd)
seen = [int(ln.split()[0]) for ln in text.splitlines()[1:]]
print("cut", len(seen), "twice", len(seen) - len(set(seen)),
      "left_out", len({os.fstat(s.fileno()).st_ino for s in held} - set(seen)))
print("ready", flush=True)
time.sleep(60)' "$n" > "$tmp/many.out" 2> "$tmp/many.err" &
	pid=$!
	pids+=("$pid")
	wait_said many ready "$pid" || return 1
	mrc_show "$tmp/many.out"
	grep -q "^cut [0-9]* twice 0 left_out 0$" "$tmp/many.out" ||
		mrc_fail "a read that went on after sockets closed" || return 1
	find "/proc/$pid/fd" -lname 'socket:*' -printf '%l\n' |
		tr -dc '0-9\n' | sort > "$tmp/many.fds"
	ip netns exec "$C" dd if=/proc/net/mrc bs=100 2> /dev/null |
		awk 'NR > 1 && $1 != 0 { print $1 }' | sort > "$tmp/many.proc"
	socks "$C" | jq '.[].ino | select(. != 0)' | sort > "$tmp/many.dump"
	kill "$pid"
	mrc_expect "sockets held" "$(wc -l < "$tmp/many.fds")" $((n / 2)) ||
		return 1
	for src in proc dump; do
		mrc_expect "sockets held and not in $src" \
			"$(comm -23 "$tmp/many.fds" "$tmp/many.$src" | wc -l)" 0 &&
			mrc_expect "sockets in $src twice" \
				"$(uniq -d "$tmp/many.$src" | wc -l)" 0 || rc=1
	done
	return $rc
}

unprivileged_kill()
{
	local rc

	as $NOBODY "$A" "$MRCCTL" sock kill sport "$port4" > "$tmp/kill.out" \
		2> "$tmp/kill.err"
	rc=$?
	mrc_info "nobody: $(cat "$tmp/kill.err")"
	mrc_expect "exit status of kill as nobody" "$rc" 1 &&
		grep -q "needs CAP_NET_ADMIN: Operation not permitted" "$tmp/kill.err" ||
		mrc_fail "no CAP_NET_ADMIN message" || return 1
	mrc_expect "output of kill as nobody" "$(cat "$tmp/kill.out")" "" &&
		mrc_expect "connections after kill as nobody" \
			"$(count "$A" state established)" 2 &&
		kill -0 "$cli4" && kill -0 "$srv4" ||
		mrc_fail "a process of the connection is gone"
}

# id_gone NS ID: "mrcctl conn show" in NS no longer lists connection ID.
id_gone()
{
	[ "$(ctl "$1" -j conn show | jq "[.[] | select(.id == $2)] | length")" = 0 ]
}

# stats NS: the counters of NS since the last call, in $tmp/stats.NS.
stats()
{
	mrc_stats_delta "$1" "$tmp" > "$tmp/stats.$1"
}

# kill_conn NS FILTER NAME PEER: kill the connection of NS that FILTER
# picks, held by NAME, whose other end PEER holds; NAME must see
# ECONNABORTED, PEER ECONNRESET, and the connection go at both ends.
kill_conn()
{
	local ns=$1 filter=$2 name=$3 peer=$4 other id peer_id out

	[ "$ns" = "$A" ] && other=$B || other=$A
	id=$(q "$ns" '.[0].id' $filter)
	peer_id=$(q "$ns" '.[0].peer_id' $filter)
	stats "$ns"
	stats "$other"
	out=$(ctl "$ns" sock kill $filter) || mrc_fail "kill $filter failed" || return 1
	mrc_info "killed: $(tail -n +2 <<< "$out")"
	mrc_expect "sockets killed" "$(tail -n +2 <<< "$out" | wc -l)" 1 &&
		wait_said "$name" end "${!name}" &&
		wait_said "$peer" end "${!peer}" &&
		mrc_expect "$name's end" "$(cat "$tmp/$name.out" | tail -n 1)" \
			"end ECONNABORTED" &&
		mrc_expect "$peer's end" "$(cat "$tmp/$peer.out" | tail -n 1)" \
			"end ECONNRESET" || return 1
	mrc_wait_for 10 id_gone "$ns" "$id" ||
		mrc_fail "connection $id still in $ns" || return 1
	mrc_wait_for 10 id_gone "$other" "$peer_id" ||
		mrc_fail "connection $peer_id still in $other" || return 1
	stats "$ns"
	stats "$other"
	mrc_info "RstSent $(mrc_stat RstSent "$tmp/stats.$ns") in $ns," \
		"RstRcvd $(mrc_stat RstRcvd "$tmp/stats.$other") in $other"
	[ "$(mrc_stat RstSent "$tmp/stats.$ns")" -ge 1 ] &&
		[ "$(mrc_stat RstRcvd "$tmp/stats.$other")" -ge 1 ] ||
		mrc_fail "no RST counted"
}

kill_listener()
{
	hold lsn "$B" -- -l -p 5003 -n 2
	lsn=$pid
	wait_said lsn ready "$lsn" || return 1
	mrc_expect "listener 5003" "$(q "$B" '.[].state' sport 5003)" listen &&
		mrc_expect "killed" "$(ctl "$B" sock kill state listen sport 5003 |
			tail -n +2 | awk '{ print $1, $5 }')" "listen *:5003" &&
		wait_gone "$lsn" || return 1
	mrc_expect "accept() of the listener" "$(cat "$tmp/lsn.err")" \
		"accept: Software caused connection abort" &&
		mrc_expect "listener after kill" "$(count "$B" sport 5003)" 0
}

# connect() to an address on plane 1 where no host answers.
connecting()
{
	[ "$(q "$A" '.[] | "\(.state) \(.peer_address) \(.peer_port)"' state syn-sent)" = \
		"syn-sent 10.0.1.3 5004" ]
}

kill_connecting()
{
	hold syn "$A" -- -c 10.0.1.3 -p 5004
	syn=$pid
	mrc_wait_for 10 connecting ||
		mrc_fail "no connect() in progress: $(ctl "$A" sock show)" || return 1
	ctl "$A" sock kill state syn-sent dport 5004 > /dev/null &&
		wait_gone "$syn" || return 1
	mrc_expect "connect() killed" "$(cat "$tmp/syn.err")" \
		"connect: Software caused connection abort"
}

kill_usage()
{
	local rc

	ctl "$A" sock kill > /dev/null 2>&1
	rc=$?
	mrc_expect "exit status of kill without a filter" "$rc" 2 &&
		mrc_expect "kill that matches nothing" \
			"$(ctl "$A" sock kill port 1; echo "rc=$?")" "rc=0"
}

# check DESCRIPTION COMMAND...: mrc_check, and how long the case took.
check()
{
	local t=$SECONDS

	mrc_check "$@"
	mrc_info "$((SECONDS - t)) s"
}

check "without mrc.ko, sock_diag lists nothing and loads nothing" no_module
mrc_module_loaded || modprobe mrc || exit "$KSFT_FAIL"
failed=$mrc_failed
check "setup: hosts with an IPv4 and an IPv6 plane" setup
[ "$mrc_failed" = "$failed" ] || mrc_finish
check "listeners and connections over IPv4 and IPv6" start_pairs
check "the server's listeners and connections" listing_b
check "the clients' connections, their uids and ids" listing_a
check "inodes as /proc/PID/fd has them" inodes
check "-p names the process and its fd" processes
check "connection ids for their owner and root only" private_ids
check "filters: state, sport, dport, port, peer, ino, cookie, id" filters
check "the text table" text
check "a socket of another namespace is not listed" isolation
check "3000 sockets, half closed between reads: each listed once by /proc/net/mrc and by the dump" many
check "kill without CAP_NET_ADMIN: EPERM, nothing killed" unprivileged_kill
check "kill a client's connection (IPv4)" \
	kill_conn "$A" "sport $port4" cli4 srv4
check "kill a server's connection by cookie (IPv6)" \
	kill_conn "$B" "cookie $(q "$B" ".[] | select(.port == 5002 and .state == \"established\") | .cookie")" \
	srv6 cli6
check "kill a listener blocked in accept()" kill_listener
check "kill a connect() in progress" kill_connecting
check "kill needs a filter; no match is no error" kill_usage
mrc_info "the test took $SECONDS s"
mrc_finish
