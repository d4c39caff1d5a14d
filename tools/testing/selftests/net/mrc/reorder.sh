#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A path that reorders the packets of an EV.  An EV is one path, which
# keeps its packets in order, so a packet that a later one of its EV
# outran is taken for lost a quarter of a round trip after the later one
# arrived.  A path (or a host: a sender's packets queued on the backlogs
# of two CPUs, one of them busy) that holds some packets back longer had
# each of them resent in vain, its EV retired, and the window cut.
#
# Two hosts joined by one plane whose DATA takes 5 to 15 ms (netem delay
# 10 ms, jitter 5 ms, uniform: the packets leave in the order of their
# delays), a 32 MiB transfer, IPv4 then IPv6:
#
# - the peer acknowledges each copy it had already with ECHO_DUP, which
#   the sender counts (SpuriousResends, at most the peer's InDuplicates);
# - the reorder window grows with them (a quarter of a round trip at
#   most once a round trip, up to a round trip: RACK's reo_wnd, RFC
#   8985): read every second during the transfer (mrcctl's reorder_us),
#   it reaches 40% of the round trip at least once, where it starts from
#   a quarter and grows by as much;
# - so the resends in vain stop within a few round trips: the peer gets
#   at most DUPS_MAX copies twice in the transfer, where a window that
#   never grew sent it 92-118 in six runs (6.12, TCG).  A guest that
#   stalls for longer than the round trip and the window has whole
#   windows resent after timeouts, which no window saves: those copies
#   are left out, and a run with more than TIMEOUTS_MAX losses found by
#   timeouts judges nothing (SKIP), so that a window that never grows
#   still fails.  Reading the window costs: the readers' processes take
#   the guest's two CPUs from the transfer, whose packets then wait
#   longer on a busy CPU's backlog.  Read every second, the peer got
#   4-16 copies twice in eight runs on 6.12 and 5-12 in six of eight on
#   6.1 (55 and 64 in runs with timeouts); 21-56, 87 once, while the
#   window delayed only what a packet's own EV found lost.

. "$(dirname "$0")/mrc_lib.sh"

mrc_require_root

mrc_need_mrcctl
mrc_need_bin mrc_xfer
mrc_need_cmd tc jq
mrc_module_loaded || modprobe mrc || exit "$KSFT_FAIL"
mrc_need_mod sch_netem

mrc_plan 8

DUPS_MAX=70
TIMEOUTS_MAX=20
suffix=$(printf '%04x' $RANDOM)
A=mrcro-$suffix-a
B=mrcro-$suffix-b
PORT=7400
XFER=$MRC_BIN/mrc_xfer
tmp=$(mktemp -d)

cleanup()
{
	mrc_kill_jobs
	mrc_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT

# transfer FAMILY: 32 MiB from $A to $B over the jittery plane; sets
# sums ("SHA-256 sent, received") and the sender's and the peer's counters.
# (netem's queue is made long enough for any window: its default of 1,000
# packets drops some at 10 ms on a host faster than TCG.)
transfer()
{
	local fam=$1 k lost

	mrc_kill_jobs
	mrc_cleanup
	sums='' spurious='' dups='' widest='' timeouts=''
	mrc_ns_add "$A" "$B" &&
		mrc_link_hosts "$A" "$B" "$fam" 1 1 &&
		tc -n "$A" qdisc add dev veth1 root netem delay 10ms 5ms \
			limit 100000 &&
		mrc_add_planes "$A" "$B" "$fam" 1 1 || return 1
	mrc_xfer_server "$B" "$PORT" "$tmp" || return 1
	ip netns exec "$A" "$XFER" -c "$(mrc_addr "$fam" 1 2)" -p "$PORT" \
		-s 32M -T 120 > "$tmp/c.out" 2> "$tmp/c.err" &
	cli=$!
	: > "$tmp/windows"
	while kill -0 "$cli" 2> /dev/null; do
		"$MRCCTL" -n "$A" -s -j conn show 2> /dev/null |
			jq -r '.[0].planes[0] | "\(.reorder_us) \(.srtt_us)"' \
			>> "$tmp/windows" 2> /dev/null
		sleep 1
	done
	wait "$cli" || mrc_fail "the transfer failed: $(cat "$tmp/c.err")" ||
		return 1
	# The widest window read, in hundredths of its round trip.
	widest=$(awk '$2 > 0 && 100 * $1 / $2 > w { w = int(100 * $1 / $2) }
		END { print w + 0 }' "$tmp/windows")
	wait "$srv" || mrc_fail "the server failed: $(cat "$tmp/s.err")" ||
		return 1
	for k in c s; do
		sums+=" $(awk '$1 == "conn" { print $8 }' "$tmp/$k.out")"
	done
	spurious=$(mrc_counter "$A" SpuriousResends)
	dups=$(mrc_counter "$B" InDuplicates)
	lost=$(mrc_counter "$A" LossTimeout)
	timeouts=$(mrc_counter "$A" LossSilence)
	mrc_is_number "$lost" && mrc_is_number "$timeouts" &&
		timeouts=$((lost + timeouts))
	mrc_info "Retrans $(mrc_counter "$A" Retrans) SpuriousResends $spurious LossGap $(mrc_counter "$A" LossGap) LossOtherEv $(mrc_counter "$A" LossOtherEv) LossTimeout+LossSilence $timeouts EvRetired $(mrc_counter "$A" EvRetired); the peer's InDuplicates $dups"
	mrc_info "reorder window: at most $widest% of the round trip, $(wc -l < "$tmp/windows") readings"
}

# told: the copies the peer had already were told, and no more.
told()
{
	[ "${spurious:-0}" -gt 0 ] ||
		mrc_fail "no resend told spurious (the peer had $dups twice)" ||
		return 1
	[ "$spurious" -le "$dups" ] ||
		mrc_fail "$spurious resends told spurious, the peer had $dups twice"
}

# grew: the window read grew past its first quarter of the round trip.
grew()
{
	[ "${widest:-0}" -ge 40 ] ||
		mrc_fail "the reorder window reached ${widest:-?}% of the round trip, 40% expected"
}

# learned: few copies sent in vain, but those of timeouts.
learned()
{
	mrc_is_number "$dups" && mrc_is_number "$timeouts" ||
		mrc_fail "counters unread: '$dups' '$timeouts'" || return 1
	if [ "$timeouts" -gt "$TIMEOUTS_MAX" ]; then
		mrc_info "the guest stalled: $timeouts losses found by timeouts"
		return "$KSFT_SKIP"
	fi
	[ $((dups - timeouts)) -le "$DUPS_MAX" ] ||
		mrc_fail "the peer got $dups copies twice, $timeouts losses were timeouts: at most $DUPS_MAX more expected"
}

for fam in 4 6; do
	name=IPv$fam
	mrc_check "$name: a 32 MiB transfer over a plane whose DATA takes 5-15 ms, same SHA-256" \
		eval 'transfer "$fam" && mrc_intact "$sums"'
	mrc_check "$name: the copies the peer had already told spurious (ECHO_DUP)" \
		told
	mrc_check "$name: the reorder window grows past a quarter of the round trip" \
		grew
	mrc_check "$name: the reorder window learns: at most $DUPS_MAX copies sent in vain but timeouts'" \
		learned
done
mrc_finish
