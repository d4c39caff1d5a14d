#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What a local user can and cannot make the kernel do with MRC:
#  - threads that read one socket at once, some with MSG_PEEK, get the
#    stream as it was sent (mrc_peek_race);
#  - connections reset in the middle of sendmsg() leave no memory behind
#    (mrc_churn rst);
#  - connections closed with data queued for a peer that never reads end
#    within a bound, and their memory with them (mrc_churn orphan);
#  - an unprivileged user does not see the ids of other users'
#    connections, cannot change planes, and can build its own namespaces
#    with planes and connections under a user namespace;
#  - a storm of socket calls on shared sockets (mrc_storm), namespaces
#    deleted with live connections, random netlink requests as root and
#    unprivileged (mrc_nlfuzz), and rmmod after all that.
# A case that leaves a kernel report (WARNING, BUG, KASAN...) in the log
# fails, and so does the whole run (tools/testing/vm/run).
#
# MRC_DEBUG_KERNEL=1 (a slow debug kernel) shortens the loops and lengthens
# the waits; LOCALUSER_SKIP="N..." skips cases by number.

. "$(dirname "$0")/mrc_lib.sh"

mrc_require_root

mrc_need_mrcctl
mrc_need_bin mrc_peek_race mrc_churn mrc_storm mrc_nlfuzz mrc_conn_hold mrc_xfer
mrc_need_cmd jq setpriv unshare nsenter
mrc_module_loaded || modprobe mrc || exit "$KSFT_FAIL"

# How long an orphaned connection may outlive close() against a peer that
# never reads: the fix ends it about 10 s after close.
ORPHAN_WAIT=${MRC_ORPHAN_WAIT:-20}
# How long rmmod may take to succeed once the last socket is closed.
RMMOD_WAIT=${MRC_RMMOD_WAIT:-15}
# How long connections may take to go once both ends are closed.
GONE_WAIT=15
# Memory that may stay after a case, for noise: skbs and kB of
# unreclaimable slab.
SKB_MARGIN=128
SLAB_MARGIN_KB=4096

PEEK_SECS=8
SEQ_SECS=3
PEEK_WAIT=3
RST_CONNS=6
RST_SEQ_CONNS=3
RST_UFFD=8
RST_SEQ_UFFD=3
RST_READ=4M
RST_SEQ=(-S 64M -M 4M)
ORPHAN_CONNS=8
# Connections held open: each client sends LIVE_SIZE, the server reads
# LIVE_READ and leaves the rest unread.
LIVE_SIZE=1M
LIVE_READ=256K
STORM_SECS=10
NLFUZZ=2000
if [ "${MRC_DEBUG_KERNEL:-0}" = 1 ]; then
	# The peeks keep their time: a peek waits too long only once four
	# times its length went by, which a slow kernel takes longer to send.
	SEQ_SECS=2
	RST_CONNS=4
	RST_SEQ_CONNS=2
	RST_UFFD=4
	RST_SEQ_UFFD=2
	RST_READ=512K
	RST_SEQ=(-S 16M -M 1M)
	ORPHAN_CONNS=2
	LIVE_SIZE=128K
	LIVE_READ=32K
	STORM_SECS=6
	NLFUZZ=300
	GONE_WAIT=40
	RMMOD_WAIT=$((RMMOD_WAIT * 3))
	ORPHAN_WAIT=${MRC_ORPHAN_WAIT:-30}
	# KASAN, kmemleak and lockdep keep memory of their own.
	SLAB_MARGIN_KB=16384
fi

mrc_plan 19

NOBODY=65534
suffix=$(printf '%04x' $RANDOM)
A=mrcu-$suffix-a
B=mrcu-$suffix-b
tmp=$(mktemp -d)
chmod 755 "$tmp"
mkdir -m 1777 "$tmp/u"
pids=()

# reap PID...: kill, then SIGKILL after 5 s; a process stuck in the
# kernel is left behind rather than waited for.
reap()
{
	local pid left i

	kill "$@" 2> /dev/null
	for i in $(seq 50); do
		left=0
		for pid in "$@"; do
			kill -0 "$pid" 2> /dev/null && left=1
		done
		[ "$left" = 0 ] && break
		sleep 0.1
	done
	for pid in "$@"; do
		if kill -0 "$pid" 2> /dev/null; then
			kill -9 "$pid" 2> /dev/null
			sleep 0.5
		fi
		if kill -0 "$pid" 2> /dev/null; then
			mrc_info "process $pid ($(cat "/proc/$pid/comm" 2> /dev/null)) does not die:" \
				"$(tr '\n' ' ' < "/proc/$pid/wchan" 2> /dev/null)"
			disown "$pid" 2> /dev/null
		else
			wait "$pid" 2> /dev/null
		fi
	done
}

cleanup()
{
	[ "${#pids[@]}" = 0 ] || reap "${pids[@]}"
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

# The unprivileged user, to run a command as: nobody with no groups.
nobody=(setpriv --reuid="$NOBODY" --regid="$NOBODY" --clear-groups)

# conns NS: the number of connections of NS.
conns()
{
	ctl "$1" -j conn show | jq length
}

no_conns()
{
	local ns

	for ns in "$@"; do
		[ "$(conns "$ns")" = 0 ] || return 1
	done
}

# wait_no_conns SECONDS NS...: the namespaces have no connection left.
wait_no_conns()
{
	local secs=$1 ns

	shift
	mrc_wait_for "$secs" no_conns "$@" && return 0
	for ns in "$@"; do
		mrc_info "left in $ns:"
		ctl "$ns" conn show | head -n 20 | sed 's/^/#   /'
	done
	return 1
}

# Kernel reports since the last call of kernel_mark; shown, and false if any.
kernel_mark()
{
	dmesg_lines=$(dmesg | wc -l)
}

bad='WARNING:|BUG:|Oops|general protection|lockdep|possible (recursive|circular) locking|'
bad+='inconsistent lock state|RCU stall|rcu.*detected stalls|refcount_t|KASAN|UBSAN|'
bad+='Kernel panic|blocked for more than|Call Trace|kmemleak|soft lockup|hard LOCKUP'

kernel_clean()
{
	local new

	new=$(dmesg | tail -n "+$((dmesg_lines + 1))")
	kernel_mark
	grep -qE "$bad" <<< "$new" || return 0
	mrc_fail "the kernel reported:"
	grep -E -A12 "$bad" <<< "$new" | head -n 40 | sed 's/^/#   kernel: /'
	return 1
}

# said FILE WORD: a line of FILE starts with WORD.
said()
{
	grep -q "^$2" "$1" 2> /dev/null
}

said_or_gone()
{
	said "$1" "$2" || ! kill -0 "$3" 2> /dev/null
}

# wait_said FILE WORD PID: PID printed WORD into FILE, or failed.
wait_said()
{
	mrc_wait_for 120 said_or_gone "$1" "$2" "$3"
	said "$1" "$2" && return 0
	mrc_fail "$(basename "$1") did not say $2:"
	mrc_show "$1"
	[ -e "${1%.out}.err" ] && mrc_show "${1%.out}.err"
	return 1
}

# hold NAME NS [WRAPPER...] -- ARGS: mrc_conn_hold ARGS in NS in the
# background (through WRAPPER, e.g. as_nobody), output in $tmp/u/NAME.out;
# its pid in $pid.
hold()
{
	local name=$1 ns=$2 wrap=()

	shift 2
	while [ "$1" != -- ]; do
		wrap+=("$1")
		shift
	done
	shift
	rm -f "$tmp/u/$name.out" "$tmp/u/$name.err"
	ip netns exec "$ns" "${wrap[@]}" "$MRC_BIN/mrc_conn_hold" "$@" \
		> "$tmp/u/$name.out" 2> "$tmp/u/$name.err" &
	pid=$!
	pids+=("$pid")
}

stop_all()
{
	[ "${#pids[@]}" = 0 ] || reap "${pids[@]}"
	pids=()
}

# bounded SECONDS OUT ERR COMMAND...: COMMAND with its output in OUT and
# ERR, given up (as failed) after SECONDS: a kernel that oopsed may leave
# it stuck for good.
bounded()
{
	local secs=$1 out=$2 err=$3 pid rc

	shift 3
	"$@" > "$out" 2> "$err" &
	pid=$!
	if ! mrc_wait_for "$secs" eval '! kill -0 '"$pid"' 2> /dev/null'; then
		echo "not finished after $secs s" >> "$err"
		reap "$pid"
		return 124
	fi
	wait "$pid"
	rc=$?
	return "$rc"
}

# Memory: skbs in use and unreclaimable slab, after the caches give back
# what they hold.
slab_shrink()
{
	local f

	for f in /sys/kernel/slab/*/shrink; do
		echo 1 > "$f"
	done 2> /dev/null
}

# mem_now: "SKBS SUNRECLAIM_KB" in $mem (0 for what the kernel does not
# tell).
mem_now()
{
	local skbs kb

	sync
	echo 3 > /proc/sys/vm/drop_caches
	slab_shrink
	skbs=$(awk '$1 == "skbuff_head_cache" { print $2 }' /proc/slabinfo 2> /dev/null)
	kb=$(awk '$1 == "SUnreclaim:" { print $2 }' /proc/meminfo)
	mem="${skbs:-0} ${kb:-0}"
}

mem_base()
{
	mem_now
	mem_base=$mem
}

# mem_back WHAT: the memory is back to the base, within the margins.
mem_back()
{
	local b_skbs b_kb skbs kb

	read -r b_skbs b_kb <<< "$mem_base"
	mem_now
	read -r skbs kb <<< "$mem"
	mrc_info "$1: skbuff_head_cache $b_skbs -> $skbs objects," \
		"SUnreclaim $b_kb -> $kb kB"
	[ $((skbs - b_skbs)) -le "$SKB_MARGIN" ] &&
		[ $((kb - b_kb)) -le "$SLAB_MARGIN_KB" ] ||
		mrc_fail "$1: $((skbs - b_skbs)) more skbs, $((kb - b_kb)) kB more slab" \
			"(margins $SKB_MARGIN and $SLAB_MARGIN_KB kB)"
}

mem_back_soon()
{
	local i

	# Freeing may trail the connections' end by a work item or RCU.
	for i in 1 2 3; do
		mem_back "$1" > "$tmp/mem.log" && { cat "$tmp/mem.log"; return 0; }
		sleep 1
	done
	cat "$tmp/mem.log"
	return 1
}

# Topology: hosts $A and $B, plane 1 IPv4 (veth1, 10.0.1.x) and plane 2
# IPv6 (veth2, fd00:2::x).
setup()
{
	mrc_ns_add "$A" "$B" &&
		mrc_link_hosts "$A" "$B" 4 1 1 &&
		mrc_link_hosts "$A" "$B" 6 2 2 &&
		mrc_add_planes "$A" "$B" 4 1 1 &&
		mrc_add_planes "$A" "$B" 6 2 2
}

############################################################################
# 1. MSG_PEEK beside plain readers

# peek TYPE SECONDS ARGS...: mrc_peek_race from A to B's address on plane 1.
peek()
{
	local type=$1 secs=$2 rc

	shift 2
	kernel_mark
	bounded $((secs + 60 + 2 * PEEK_WAIT)) "$tmp/peek.out" "$tmp/peek.err" \
		"$MRC_BIN/mrc_peek_race" -c "$A" -s "$B" -a 10.0.1.2 -t "$type" \
		-d "$secs" -W "$PEEK_WAIT" "$@"
	rc=$?
	mrc_show "$tmp/peek.out"
	mrc_show "$tmp/peek.err"
	kernel_clean || rc=1
	[ "$rc" = 0 ] && wait_no_conns "$GONE_WAIT" "$A" "$B"
}

############################################################################
# 2. A reset in the middle of sendmsg()

rst()
{
	local rc

	wait_no_conns "$GONE_WAIT" "$A" "$B" || return 1
	mem_base
	kernel_mark
	bounded 300 "$tmp/rst.out" "$tmp/rst.err" \
		"$MRC_BIN/mrc_churn" rst -c "$A" -s "$B" -a 10.0.1.2 "$@"
	rc=$?
	mrc_show "$tmp/rst.out"
	mrc_show "$tmp/rst.err"
	kernel_clean || rc=1
	wait_no_conns "$GONE_WAIT" "$A" "$B" || rc=1
	mem_back_soon "after the resets" || rc=1
	return "$rc"
}

############################################################################
# 3. Orphans against a peer that never reads

orphans()
{
	local t0 n

	wait_no_conns "$GONE_WAIT" "$A" "$B" || return 1
	mem_base
	kernel_mark
	rm -f "$tmp/orphan.out" "$tmp/orphan.err"
	"$MRC_BIN/mrc_churn" orphan -c "$A" -s "$B" -a 10.0.1.2 -n "$ORPHAN_CONNS" \
		> "$tmp/orphan.out" 2> "$tmp/orphan.err" &
	orphan_pid=$!
	pids+=("$orphan_pid")
	wait_said "$tmp/orphan.out" closed "$orphan_pid" || return 1
	mrc_show "$tmp/orphan.out"
	t0=$SECONDS
	n=$(conns "$A")
	mrc_info "$n orphans on $A at close"
	if ! mrc_wait_for "$ORPHAN_WAIT" no_conns "$A"; then
		mrc_fail "$(conns "$A") of $n orphans still there $ORPHAN_WAIT s after close:"
		ctl "$A" conn show | head -n 6 | sed 's/^/#   /'
		return 1
	fi
	mrc_info "the orphans were gone $((SECONDS - t0)) s after close"
}

orphans_freed()
{
	local rc=0

	kill "$orphan_pid" 2> /dev/null
	mrc_wait_for 10 eval '! kill -0 '"$orphan_pid"' 2> /dev/null'
	if kill -0 "$orphan_pid" 2> /dev/null; then
		mrc_fail "mrc_churn orphan does not end"
		reap "$orphan_pid"
		return 1
	fi
	wait "$orphan_pid" || mrc_fail "mrc_churn orphan: $(< "$tmp/orphan.err")" || rc=1
	wait_no_conns "$GONE_WAIT" "$A" "$B" || rc=1
	kernel_clean || rc=1
	mem_back_soon "after the orphans" || rc=1
	return "$rc"
}

# planes_of NS up|down: every plane of NS administratively up or down.
planes_of()
{
	local id

	for id in $(ctl "$1" -j plane show | jq -r '.[].id'); do
		ctl "$1" plane set id "$id" "$2" > /dev/null || return 1
	done
}

# Both ends closed while no plane of A can carry a packet: A's FIN waits
# in its queue, B's FIN goes unanswered.  Both connections end within
# ORPHAN_WAIT s all the same, and the planes carry a new one once up.
orphan_no_plane()
{
	local srv t0 rc=0

	wait_no_conns "$GONE_WAIT" "$A" "$B" || return 1
	kernel_mark
	hold nps "$B" -- -l -p 6006 -s 64K && srv=$pid
	wait_said "$tmp/u/nps.out" ready "$srv" || return 1
	hold npc "$A" -- -c 10.0.1.2 -p 6006 -s 64K
	wait_said "$tmp/u/nps.out" received "$srv" || return 1
	planes_of "$A" down || mrc_fail "planes of $A down" || return 1
	stop_all
	t0=$SECONDS
	if ! mrc_wait_for "$ORPHAN_WAIT" no_conns "$A" "$B"; then
		mrc_fail "connections left $ORPHAN_WAIT s after close:" \
			"$(conns "$A") on $A, $(conns "$B") on $B"
		ctl "$A" conn show | head -n 6 | sed 's/^/#   /'
		rc=1
	else
		mrc_info "both ends were gone $((SECONDS - t0)) s after close"
	fi
	planes_of "$A" up || mrc_fail "planes of $A up" || rc=1
	[ "$rc" = 0 ] || return 1
	hold nps "$B" -- -l -p 6007 -s 64K && srv=$pid
	wait_said "$tmp/u/nps.out" ready "$srv" || return 1
	hold npc "$A" -- -c 10.0.1.2 -p 6007 -s 64K
	wait_said "$tmp/u/nps.out" received "$srv" || rc=1
	stop_all
	wait_no_conns "$GONE_WAIT" "$A" "$B" || rc=1
	kernel_clean || rc=1
	return "$rc"
}

############################################################################
# 4. Unprivileged users and connections

# Connection ids as root sees them, in $A and $B: "ID PEER_ID" lines.
ids_of()
{
	ctl "$1" -j conn show | jq -r '.[] | "\(.id) \(.peer_id)"'
}

# hidden_from WHAT JSON: JSON (a conn show) names none of root's ids.
hidden_from()
{
	local what=$1 json=$2 id

	jq -e 'type == "array"' <<< "$json" > /dev/null ||
		mrc_fail "$what: not a JSON array: $json" || return 1
	for id in $root_ids; do
		if jq -e --argjson id "$id" 'any(.[]; .id == $id or .peer_id == $id)' \
			<<< "$json" > /dev/null; then
			mrc_fail "$what sees connection id $id of root's connection:"
			jq -c '.[]' <<< "$json" | head -n 4 | sed 's/^/#   /'
			return 1
		fi
	done
}

root_conn()
{
	local pid_s

	hold rs "$B" -- -l -p 6001 -s 64K && pid_s=$pid
	wait_said "$tmp/u/rs.out" ready "$pid_s" || return 1
	hold rc "$A" -- -c 10.0.1.2 -p 6001 -s 64K && root_pid=$pid
	wait_said "$tmp/u/rc.out" sent "$root_pid" &&
		wait_said "$tmp/u/rs.out" received "$pid_s" || return 1
	# Our ids on A and on B: each connection end is named by both.
	root_ids=$(ids_of "$A" | tr ' ' '\n' | sort -u | tr '\n' ' ')
	[ "$(wc -w <<< "$root_ids")" = 2 ] ||
		mrc_fail "root's connection ids on $A: '$root_ids'"
}

hidden_nobody()
{
	local json id

	root_conn || return 1
	json=$(ip netns exec "$A" "${nobody[@]}" "$MRCCTL" -j conn show) ||
		mrc_fail "mrcctl conn show as nobody failed" || return 1
	hidden_from "nobody's conn show" "$json" || return 1
	# Asking for the id itself.
	id=${root_ids%% *}
	json=$(ip netns exec "$A" "${nobody[@]}" "$MRCCTL" -j conn show id "$id" 2> /dev/null)
	[ -z "$json" ] || hidden_from "nobody's conn show id $id" "$json"
}

# userns: user namespaces can be made (CONFIG_USER_NS).
userns()
{
	unshare -U true 2> /dev/null
}

# nobody in a user namespace of its own, unmapped (its uid stays nobody's)
# or mapped to root in it: no more than nobody.
hidden_userns()
{
	local json mode

	if ! userns; then
		mrc_info "no user namespaces in this kernel"
		return "$KSFT_SKIP"
	fi
	for mode in -U -Ur; do
		json=$(ip netns exec "$A" "${nobody[@]}" unshare "$mode" "$MRCCTL" -j conn show) ||
			mrc_fail "mrcctl conn show as nobody under unshare $mode failed" || return 1
		hidden_from "nobody under unshare $mode" "$json" || return 1
	done
}

# A connection of nobody's, from A to B, accepted by nobody too: nobody
# sees its ids on both hosts, root sees every id.
owner_sees()
{
	local pid_s pid_c json a_id b_id

	hold ns "$B" "${nobody[@]}" -- -l -p 6002 -s 64K && pid_s=$pid
	wait_said "$tmp/u/ns.out" ready "$pid_s" || return 1
	hold nc "$A" "${nobody[@]}" -- -c 10.0.1.2 -p 6002 -s 64K && pid_c=$pid
	wait_said "$tmp/u/nc.out" sent "$pid_c" &&
		wait_said "$tmp/u/ns.out" received "$pid_s" || return 1
	a_id=$(ctl "$A" -j conn show | jq -r '.[] | select(.peer_port == 6002) | .id')
	b_id=$(ctl "$B" -j conn show | jq -r '.[] | select(.port == 6002) | .id')
	[ -n "$a_id" ] && [ -n "$b_id" ] ||
		mrc_fail "root does not see nobody's connection: '$a_id' '$b_id'" || return 1
	mrc_expect "connections root sees on $A" "$(conns "$A")" 2 || return 1
	json=$(ip netns exec "$A" "${nobody[@]}" "$MRCCTL" -j conn show) || return 1
	mrc_expect "nobody's own connection on $A" \
		"$(jq -r --argjson id "$a_id" '.[] | select(.id == $id) | "\(.id) \(.peer_id)"' <<< "$json")" \
		"$a_id $b_id" || return 1
	json=$(ip netns exec "$B" "${nobody[@]}" "$MRCCTL" -j conn show) || return 1
	mrc_expect "nobody's own connection on $B" \
		"$(jq -r --argjson id "$b_id" '.[] | select(.id == $id) | "\(.id) \(.peer_id)"' <<< "$json")" \
		"$b_id $a_id"
}

tables()
{
	ctl "$1" -j plane show && ctl "$1" -j config show
}

# refused WHO ARGS: mrcctl ARGS in $A as WHO ($wrap) fails with EPERM.
refused()
{
	local who=$1 err

	shift
	# shellcheck disable=SC2068 # the arguments are words
	if err=$(ip netns exec "$A" "${wrap[@]}" "$MRCCTL" $@ 2>&1 > /dev/null); then
		mrc_fail "$who: mrcctl $* succeeded"
		return 1
	fi
	[[ "$err" == *"Operation not permitted"* ]] ||
		mrc_fail "$who: mrcctl $*: '$err', not EPERM"
}

no_plane_changes()
{
	local before wrap who rc=0

	before=$(tables "$A")
	wrap=("${nobody[@]}")
	for args in "plane add dev veth1 id 7" "plane del id 1" "plane set id 2 down" \
		"plane set id 1 evs 8" "config set evs 16" "config set port 4800"; do
		refused nobody "$args" || rc=1
	done
	# Root in a user namespace of its own has no capability over $A.
	userns || mrc_info "no user namespaces in this kernel"
	userns && for who in "unshare -U" "unshare -Ur" "nobody unshare -Ur"; do
		case "$who" in
		"nobody unshare -Ur") wrap=("${nobody[@]}" unshare -Ur) ;;
		*) read -ra wrap <<< "$who" ;;
		esac
		refused "$who" "plane del id 1" || rc=1
		refused "$who" "config set evs 16" || rc=1
	done
	mrc_expect "planes and settings of $A" "$(tables "$A")" "$before" || rc=1
	return "$rc"
}

# As nobody, in user namespaces of its own: two network namespaces with a
# veth pair, a plane in each, a connection and 1 MiB over it.
own_userns()
{
	local out

	cat > "$tmp/userns.sh" <<-EOF
	set -e
	ip link set lo up
	unshare -n sleep 120 &
	peer=\$!
	until [ "\$(readlink /proc/\$peer/ns/net)" != "\$(readlink /proc/self/ns/net)" ]; do
		sleep 0.1
	done
	there() { nsenter -t "\$peer" -n "\$@"; }
	ip link add veth1 type veth peer name veth1 netns "\$peer"
	ip addr add 10.9.1.1/24 dev veth1
	ip link set veth1 up
	there ip link set lo up
	there ip addr add 10.9.1.2/24 dev veth1
	there ip link set veth1 up
	"$MRCCTL" plane add dev veth1 id 1
	there "$MRCCTL" plane add dev veth1 id 1
	for i in \$(seq 100); do
		"$MRCCTL" plane show | grep -q ' up ' &&
			there "$MRCCTL" plane show | grep -q ' up ' && break
		sleep 0.1
	done
	there "$MRC_BIN/mrc_xfer" -l -p 5000 > "$tmp/u/userns-s.out" &
	srv=\$!
	for i in \$(seq 100); do
		grep -q ready "$tmp/u/userns-s.out" && break
		sleep 0.1
	done
	"$MRC_BIN/mrc_xfer" -c 10.9.1.2 -p 5000 -s 1M
	wait \$srv
	cat "$tmp/u/userns-s.out"
	kill \$peer
	EOF
	chmod 644 "$tmp/userns.sh"
	if ! "${nobody[@]}" unshare -Urn true 2> /dev/null; then
		mrc_info "user namespaces are not available to nobody"
		return "$KSFT_SKIP"
	fi
	out=$(timeout -s KILL 300 "${nobody[@]}" unshare -Urn bash "$tmp/userns.sh" 2>&1) ||
		mrc_fail "as nobody under unshare -Urn:" || { echo "$out" | sed 's/^/#   /'; return 1; }
	echo "$out" | sed 's/^/#   /'
	# The client's line and the server's: the same bytes.
	[ "$(grep -c "^conn 0 bytes 1048576 " <<< "$out")" = 2 ] &&
		[ "$(awk '/^conn 0/ { print $NF }' <<< "$out" | sort -u | wc -l)" = 1 ] ||
		mrc_fail "the two ends do not agree"
}

############################################################################
# 5. A storm of calls, namespaces deleted, rmmod

storm()
{
	local rc

	stop_all
	wait_no_conns "$GONE_WAIT" "$A" "$B"
	kernel_mark
	bounded $((STORM_SECS + 90)) "$tmp/storm.out" "$tmp/storm.err" \
		"$MRC_BIN/mrc_storm" -a "$A" -b "$B" -4 10.0.1.1,10.0.1.2 \
		-6 fd00:2::1,fd00:2::2 -d "$STORM_SECS"
	rc=$?
	fold -w 160 "$tmp/storm.out" | sed 's/^/#   /'
	mrc_show "$tmp/storm.err"
	kernel_clean || rc=1
	return "$rc"
}

module_refs()
{
	cat /sys/module/mrc/refcnt
}

no_module_refs()
{
	[ "$(module_refs)" = 0 ]
}

# live_conns NS_A NS_B PORT: connections held from NS_A to NS_B, with data
# the server has not read (its pid in $pid too).
live_conns()
{
	local pid_s

	hold "ls$3" "$2" -- -l -p "$3" -n 8 -s "$LIVE_READ" && pid_s=$pid
	wait_said "$tmp/u/ls$3.out" ready "$pid_s" || return 1
	hold "lc$3" "$1" -- -c 10.0.1.2 -p "$3" -n 8 -s "$LIVE_SIZE"
	# The server reads a part of each and holds the rest unread.
	wait_said "$tmp/u/ls$3.out" received "$pid_s"
}

netns_del_live()
{
	local rc=0

	live_conns "$A" "$B" 6003 || return 1
	mrc_info "$(conns "$A") connections on $A, $(module_refs) module references"
	kernel_mark
	ip netns del "$A" && ip netns del "$B" || mrc_fail "ip netns del" || rc=1
	stop_all
	if ! mrc_wait_for "$GONE_WAIT" no_module_refs; then
		mrc_fail "$(module_refs) references to mrc $GONE_WAIT s after the namespaces and processes went"
		rc=1
	fi
	kernel_clean || rc=1
	return "$rc"
}

# Namespaces for the netlink fuzz: F1 and F2 joined like A and B, with a
# third pair without planes, and a connection held open.
F1=mrcu-$suffix-f1
F2=mrcu-$suffix-f2

fuzz_setup()
{
	mrc_ns_add "$F1" "$F2" &&
		mrc_link_hosts "$F1" "$F2" 4 1 1 &&
		mrc_link_hosts "$F1" "$F2" 6 2 2 &&
		mrc_link_hosts "$F1" "$F2" 4 3 3 &&
		mrc_add_planes "$F1" "$F2" 4 1 1 &&
		mrc_add_planes "$F1" "$F2" 6 2 2 || return 1
	hold fs "$F2" -- -l -p 6004 -s 64K && fuzz_srv=$pid
	wait_said "$tmp/u/fs.out" ready "$fuzz_srv" || return 1
	hold fc "$F1" -- -c 10.0.1.2 -p 6004 -s 64K
	wait_said "$tmp/u/fs.out" received "$fuzz_srv" || return 1
	fuzz_id=$(ctl "$F1" -j conn show | jq -r '.[0].id')
}

nlfuzz_unprivileged()
{
	local before rc=0 who wrap

	fuzz_setup || return 1
	before=$(tables "$F1"; tables "$F2")
	kernel_mark
	for who in nobody "unshare -Ur"; do
		if [ "$who" != nobody ] && ! userns; then
			mrc_info "no user namespaces in this kernel"
			continue
		fi
		case "$who" in
		nobody) wrap=("${nobody[@]}") ;;
		*) read -ra wrap <<< "$who" ;;
		esac
		bounded 300 "$tmp/nlfuzz.out" "$tmp/nlfuzz.err" \
			ip netns exec "$F1" "${wrap[@]}" "$MRC_BIN/mrc_nlfuzz" -u \
			-n $((NLFUZZ / 2)) -i "$fuzz_id" || rc=1
		mrc_info "as $who:"
		mrc_show "$tmp/nlfuzz.out"
		mrc_show "$tmp/nlfuzz.err"
	done
	kernel_clean || rc=1
	mrc_expect "planes and settings" "$(tables "$F1"; tables "$F2")" "$before" || rc=1
	return "$rc"
}

nlfuzz_root()
{
	local rc=0

	kernel_mark
	bounded 300 "$tmp/nlfuzz.out" "$tmp/nlfuzz.err" \
		ip netns exec "$F1" "$MRC_BIN/mrc_nlfuzz" -n "$NLFUZZ" -i "$fuzz_id" || rc=1
	mrc_show "$tmp/nlfuzz.out"
	mrc_show "$tmp/nlfuzz.err"
	mrc_info "planes of $F1 after: $(ctl "$F1" -j plane show | jq -c '[.[] | .id]')"
	kernel_clean || rc=1
	return "$rc"
}

# what_holds_mrc: the sockets and connections left in every namespace,
# to tell why rmmod fails.
what_holds_mrc()
{
	local ns

	for ns in $(ip netns list | awk '{ print $1 }'); do
		mrc_info "$ns: $(ip netns exec "$ns" awk '$1 == "MRC" { print $3 }' \
			/proc/net/protocols) sockets"
		[ "$(conns "$ns")" = 0 ] && continue
		mrc_info "connections of $ns:"
		ctl "$ns" conn show | sed 's/^/#   /'
		ctl "$ns" config show | sed 's/^/#   /'
	done
	mrc_info "connections of the initial namespace: $("$MRCCTL" -j conn show | jq -c .)"
	mrc_info "sockets of the initial namespace: $(awk '$1 == "MRC" { print $3 }' /proc/net/protocols)"
}

# Namespaces with live connections deleted, the processes gone: rmmod
# succeeds within RMMOD_WAIT s, even with F1 and F2 and their planes still
# there; modprobe brings the module back, without planes.
rmmod_after()
{
	local G1=mrcu-$suffix-g1 G2=mrcu-$suffix-g2 t0 rc=0

	mrc_ns_add "$G1" "$G2" && mrc_link_hosts "$G1" "$G2" 4 1 1 &&
		mrc_add_planes "$G1" "$G2" 4 1 1 || return 1
	live_conns "$G1" "$G2" 6005 || return 1
	kernel_mark
	ip netns del "$G1" && ip netns del "$G2" || mrc_fail "ip netns del" || rc=1
	stop_all
	t0=$SECONDS
	until timeout -s KILL 30 rmmod mrc 2> "$tmp/rmmod.err"; do
		if [ $((SECONDS - t0)) -ge "$RMMOD_WAIT" ]; then
			mrc_fail "rmmod mrc still fails after $RMMOD_WAIT s: $(< "$tmp/rmmod.err")," \
				"$(module_refs) references"
			what_holds_mrc
			return 1
		fi
		sleep 0.5
	done
	mrc_info "rmmod mrc succeeded after $((SECONDS - t0)) s"
	reloaded=1
	modprobe mrc || mrc_fail "modprobe mrc" || return 1
	mrc_expect "planes of $F1 after the module came back" \
		"$(ctl "$F1" -j plane show)" "[]" || rc=1
	kernel_clean || rc=1
	return "$rc"
}

after_reload()
{
	local srv

	if [ "$reloaded" != 1 ]; then
		mrc_info "the module was not unloaded"
		return "$KSFT_SKIP"
	fi
	mrc_add_planes "$F1" "$F2" 4 1 1 || return 1
	rm -f "$tmp/x-s.out"
	ip netns exec "$F2" "$MRC_BIN/mrc_xfer" -l -p 5001 > "$tmp/x-s.out" 2>&1 &
	srv=$!
	pids+=("$srv")
	wait_said "$tmp/x-s.out" ready "$srv" || return 1
	ip netns exec "$F1" "$MRC_BIN/mrc_xfer" -c 10.0.1.2 -p 5001 -s 1M \
		> "$tmp/x-c.out" 2>&1 || mrc_fail "client: $(< "$tmp/x-c.out")" || return 1
	wait "$srv" || mrc_fail "server: $(< "$tmp/x-s.out")" || return 1
	# conn 0 bytes B msgs M sha256 H: the same bytes and hash.
	mrc_expect "what the server got" "$(awk '/^conn/ { print $4, $8 }' "$tmp/x-s.out")" \
		"$(awk '/^conn/ { print $4, $8 }' "$tmp/x-c.out")"
}

############################################################################

# check DESCRIPTION COMMAND...: mrc_check;
# cases whose numbers are in $LOCALUSER_SKIP are skipped.
check()
{
	local desc=$1 rc

	shift
	if [[ " $LOCALUSER_SKIP " == *" $((mrc_case + 1)) "* ]]; then
		mrc_result "$KSFT_SKIP" "$desc"
		return
	fi
	"$@"
	rc=$?
	mrc_result "$rc" "$desc"
}

dmesg_lines=0
reloaded=0
if ! setup; then
	mrc_fail "cannot build the topology"
fi
mrc_info "hosts $A and $B: plane 1 10.0.1.1 - 10.0.1.2, plane 2 fd00:2::1 - fd00:2::2"

check "stream: 3 threads peek with MSG_WAITALL, 2 read: every byte read once, in order; peeks hold stream data and end" \
	peek stream "$PEEK_SECS"
check "seqpacket: 3 threads peek, 2 read: whole messages, peeks start messages" \
	peek seqpacket "$SEQ_SECS"
check "seqpacket: 2 threads read messages of up to 16 KiB: each gets whole messages" \
	peek seqpacket "$SEQ_SECS" -P 0 -m 16K
check "stream: resets in the middle of sendmsg(), $RST_CONNS at random, $RST_UFFD mid-copy: no memory left" \
	rst -n "$RST_CONNS" -R "$RST_READ" -u "$RST_UFFD"
check "seqpacket: resets in the middle of messages, $RST_SEQ_CONNS at random, $RST_SEQ_UFFD mid-copy: no memory left" \
	rst -t seqpacket -n "$RST_SEQ_CONNS" "${RST_SEQ[@]}" -R "$RST_READ" -u "$RST_SEQ_UFFD"
check "$ORPHAN_CONNS orphans with 40 MiB to send to a peer that never reads end within $ORPHAN_WAIT s" \
	orphans
check "the peer gone, the connections and their memory are gone" orphans_freed
check "an orphan whose planes are all down ends within $ORPHAN_WAIT s, its peer too" \
	orphan_no_plane
check "nobody does not see the ids of root's connection" hidden_nobody
check "nobody under unshare -U and -Ur does not see the ids of root's connection" hidden_userns
check "nobody sees the ids of its own connection on both hosts, root sees all" owner_sees
check "nobody, unshare -U, unshare -Ur, nobody under unshare -Ur cannot change planes or settings" \
	no_plane_changes
check "nobody under unshare -Urn: own namespaces, planes and a 1 MiB connection" \
	own_userns
check "a storm of calls on shared sockets for $STORM_SECS s" storm
check "namespaces deleted with live connections: every socket is freed" netns_del_live
check "$NLFUZZ random netlink requests as nobody and unshare -Ur: EPERM for changes, nothing changed" \
	nlfuzz_unprivileged
check "$NLFUZZ random netlink requests as root" nlfuzz_root
stop_all
check "rmmod mrc after namespaces with live connections are deleted; modprobe again" \
	rmmod_after
check "after modprobe: planes again and 1 MiB over a new connection" after_reload

mrc_finish
