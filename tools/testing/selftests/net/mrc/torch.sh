#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PyTorch over MRC: an unmodified torch.distributed job (Debian's
# python3-torch, gloo backend: TCP sockets) run by "mrcize run", one rank
# on each of four hosts (network namespaces) that share four planes, two
# IPv4 and two IPv6, through bridges in a fifth namespace, plus a link
# that is not a plane:
#
# - the ranks make two gloo groups over MRC, one dialled over IPv4 plane
#   addresses and one over IPv6 ones; every host lists the connections
#   (the rendezvous store of rank 0 stays on TCP by mrcize -x, on the
#   other link: rank 0 connects to it too, and MRC runs between hosts);
# - all_reduce, all_gather and broadcast of 1 KiB to 4 MiB on both
#   groups, every element checked (mrc_torch_job.py), and every plane of
#   every host carried the job's packets;
# - plane 1, over which the job was dialled, becomes a black hole (its
#   bridge drops everything; the hosts' devices stay up): the next round
#   still completes, every element right;
# - the control: a third group on the other link, left to TCP by mrcize's
#   policy, fails by its timeout once that link is down.
#
# MRC_TORCH_SIZES (bytes, comma separated) and MRC_TORCH_ROUNDS change
# the job: "make bench" runs bigger tensors.

. "$(dirname "$0")/mrc_lib.sh"

mrc_require_root

mrc_need_mrcctl
mrc_need_mrcize
mrc_need_cmd python3 jq
if ! python3 -c 'import importlib.util as u, sys; sys.exit(u.find_spec("torch") is None)'; then
	echo "# SKIP: needs python3-torch"
	exit "$KSFT_SKIP"
fi
mrc_module_loaded || modprobe mrc || exit "$KSFT_FAIL"

mrc_plan 7

suffix=$(printf '%04x' $RANDOM)
S=mrct-$suffix-s
HOSTS=()
for i in 0 1 2 3; do
	HOSTS+=("mrct-$suffix-$i")
done
JOB=$MRC_DIR/mrc_torch_job.py
SIZES=${MRC_TORCH_SIZES:-1024,65536,1048576,4194304}
ROUNDS=${MRC_TORCH_ROUNDS:-2}
PORT=$((29500 + RANDOM % 1000))
# What mrcize sends over MRC: the planes' addresses, not the fifth link's.
# The rendezvous store of rank 0 stays on TCP (-x), on that link: rank 0
# connects to it too, and a connection to the host itself cannot be MRC.
POLICY=10.0.1.0/24,10.0.2.0/24,fd00::/16
tmp=$(mktemp -d)
pids=()

cleanup()
{
	mrc_kill_jobs
	mrc_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT

# Planes 1 and 2 on 10.0.K.H, 3 and 4 on fd00:K::H, the TCP link on
# 10.0.5.H, H from 1.  Gloo takes the first address of a device: veth3
# and veth4 keep only their plane addresses.
setup()
{
	local ns

	mrc_ns_add "$S" "${HOSTS[@]}" &&
		mrc_switch_hosts "$S" 4 1 2 "${HOSTS[@]}" &&
		mrc_switch_hosts "$S" 6 3 4 "${HOSTS[@]}" &&
		mrc_switch_hosts "$S" 4 5 5 "${HOSTS[@]}" || return 1
	for ns in "${HOSTS[@]}"; do
		ip -n "$ns" addr flush dev veth3 scope link &&
			ip -n "$ns" addr flush dev veth4 scope link || return 1
	done
	mrc_switch_planes 4 1 2 "${HOSTS[@]}" &&
		mrc_switch_planes 6 3 4 "${HOSTS[@]}"
}

# tx_packets NS DEV
tx_packets()
{
	ip -n "$1" -j -s link show dev "$2" | jq '.[0].stats64.tx.packets'
}

# counters FILE: "NS DEV PACKETS" for every plane device of every host.
counters()
{
	local ns k

	for ns in "${HOSTS[@]}"; do
		for k in 1 2 3 4; do
			echo "$ns veth$k $(tx_packets "$ns" "veth$k")"
		done
	done > "$1"
}

start_ranks()
{
	local i

	for i in 0 1 2 3; do
		rm -f "$tmp/rank$i"
		ip netns exec "${HOSTS[$i]}" "$MRCIZE" run -a "$POLICY" -x "$PORT" \
			python3 "$JOB" "$i" 4 10.0.5.1 "$PORT" "$SIZES" \
			"$ROUNDS" "$tmp" > "$tmp/rank$i" 2>&1 &
		pids+=($!)
	done
}

# all_said WORD: every rank printed a line starting with WORD (with "rank
# R" first for a WORD that starts with a space), or one is gone.
all_said()
{
	local i word

	for i in 0 1 2 3; do
		word=$1
		[ "${word:0:1}" = " " ] && word="rank $i$word"
		mrc_said "$tmp/rank$i" "$word" && continue
		kill -0 "${pids[$i]}" 2> /dev/null || return 0
		return 1
	done
}

# ranks_said SECONDS WORD: every rank says WORD within SECONDS, or the
# ranks' output is shown.
ranks_said()
{
	local i word ok=0

	mrc_wait_for "$1" all_said "$2"
	for i in 0 1 2 3; do
		word=$2
		[ "${word:0:1}" = " " ] && word="rank $i$word"
		mrc_said "$tmp/rank$i" "$word" && continue
		ok=1
		mrc_fail "rank $i did not say \"$word\":"
		tail -n 15 "$tmp/rank$i" > "$tmp/tail"
		mrc_show "$tmp/tail"
	done
	return "$ok"
}

# Every host holds the job's connections: one to each other rank in both
# groups, of which three dialled over IPv6.
connections_listed()
{
	local ns out all v6 ok=0

	for ns in "${HOSTS[@]}"; do
		out=$("$MRCCTL" -n "$ns" conn show | grep '^conn .* state established')
		all=$(grep -c . <<< "$out")
		v6=$(grep -c 'peer \[fd00:3::' <<< "$out")
		mrc_info "$ns: $all connections, $v6 over IPv6"
		[ "$all" -ge 6 ] && [ "$v6" -ge 3 ] && continue
		mrc_fail "$ns: expected at least 6 connections, 3 of them over IPv6"
		ok=1
	done
	return "$ok"
}

# Every plane device of every host sent at least 100 packets between the
# two snapshots.
planes_carried()
{
	local ns dev before after ok=0

	while read -r ns dev before && read -r _ _ after <&3; do
		[ "$((after - before))" -ge 100 ] && continue
		mrc_fail "$ns $dev sent $((after - before)) packets"
		ok=1
	done < "$tmp/before" 3< "$tmp/after"
	return "$ok"
}

# The ranks' timings, for the log.
show_rounds()
{
	mrc_info "rank 0: $(grep -E '^(round|  )' "$tmp/rank0" | tr '\n' ' ')"
}

tcp_failed()
{
	! grep -q 'tcp ok' "$tmp"/rank* || mrc_fail "a TCP collective completed"
}

ranks_exited()
{
	local i rc ok=0

	for i in 0 1 2 3; do
		wait "${pids[$i]}"
		rc=$?
		[ "$rc" = 0 ] && continue
		mrc_fail "rank $i exited with status $rc"
		ok=1
	done
	return "$ok"
}

mrc_check "4 hosts on 4 shared planes, IPv4 and IPv6" setup
counters "$tmp/before"
started=$SECONDS
start_ranks
mrc_check "4 ranks make gloo groups over MRC, dialled over IPv4 and IPv6" \
	eval 'ranks_said 300 " ready" && connections_listed'
mrc_info "the ranks were ready after $((SECONDS - started)) s"
mrc_check "round 1: every collective right on every rank, 1 KiB to 4 MiB" \
	eval 'ranks_said 300 "round 1" && show_rounds'
counters "$tmp/after"
mrc_check "every plane of every host carried the job's packets" planes_carried
ip -n "$S" link set br1 down
touch "$tmp/failed"
mrc_check "plane 1 black-holed: round 2 (to $ROUNDS) right on every rank" \
	eval 'ranks_said 300 " ok" && show_rounds'
ranks_said 120 " tcp ready" > "$tmp/tcp" || cat "$tmp/tcp"
ip -n "$S" link set br5 down
touch "$tmp/tcp-failed"
mrc_check "control: over TCP, the collectives fail once their link is down" \
	eval 'ranks_said 60 " tcp failed" && tcp_failed'
mrc_check "every rank exits with status 0" ranks_exited
mrc_finish
