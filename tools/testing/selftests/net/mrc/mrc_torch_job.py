#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# One rank of a torch.distributed job on the gloo backend, whose TCP
# sockets mrcize turns into MRC connections.  Three process groups, each
# made on the device named by GLOO_SOCKET_IFNAME when it is created:
#
#   v4   the default group, on veth1 (an IPv4 plane address);
#   v6   on veth3 (an IPv6 plane address);
#   tcp  on veth5, an address outside mrcize's policy: plain TCP.
#
#   mrc_torch_job.py RANK WORLD STORE_ADDR STORE_PORT SIZES ROUNDS DIR
#
# For each of ROUNDS rounds, all_reduce, all_gather and broadcast of
# float32 tensors of each of SIZES bytes (comma separated) on v4 and on v6,
# every element checked.  Before round 2 it waits for the file DIR/failed
# (the test fails a plane meanwhile).  Then one all_reduce on tcp, and
# after DIR/tcp-failed (the test takes the TCP link down) more of them,
# which should fail by the group's timeout.
#
# Prints "rank R ready", "round N" after each round (and the time of each
# size before it), "rank R ok" after the
# last; then "rank R tcp ready" and "rank R tcp failed: ERROR" or "rank R
# tcp ok".  A wrong element prints "rank R wrong ..." and exits with 1.

import datetime
import os
import sys
import time

import torch
import torch.distributed as dist

TCP_TIMEOUT = 10


def say(line):
    print(line, flush=True)


def wait_for(path):
    while not os.path.exists(path):
        time.sleep(0.1)


def check(rank, what, got, want):
    if torch.equal(got, want):
        return
    bad = (got != want).nonzero()
    say(f"rank {rank} wrong {what}: {bad.numel()} elements differ, "
        f"the first at {bad[0].tolist()}")
    sys.exit(1)


def collectives(rank, world, size, group, name):
    n = max(size // 4, 1)
    total = world * (world + 1) / 2
    what = f"{name} {size} B"

    # all_reduce: rank r gives r + 1 everywhere but the last element, r.
    t = torch.full((n,), float(rank + 1))
    t[-1] = float(rank)
    dist.all_reduce(t, group=group)
    want = torch.full((n,), total)
    want[-1] = total - world
    check(rank, f"all_reduce {what}", t, want)

    # all_gather: rank r gives r * n, r * n + 1, ...
    mine = torch.arange(n, dtype=torch.float32) + rank * n
    parts = [torch.empty(n) for _ in range(world)]
    dist.all_gather(parts, mine, group=group)
    for r in range(world):
        check(rank, f"all_gather {what} from rank {r}", parts[r],
              torch.arange(n, dtype=torch.float32) + r * n)

    # broadcast from the last rank, whose tensor alone is not zero.
    root = world - 1
    b = torch.arange(n, dtype=torch.float32)
    if rank != root:
        b.zero_()
    dist.broadcast(b, root, group=group)
    check(rank, f"broadcast {what}", b, torch.arange(n, dtype=torch.float32))


def new_group(ifname, seconds):
    os.environ["GLOO_SOCKET_IFNAME"] = ifname
    return dist.new_group(backend="gloo",
                          timeout=datetime.timedelta(seconds=seconds))


def main():
    rank, world = int(sys.argv[1]), int(sys.argv[2])
    addr, port = sys.argv[3], int(sys.argv[4])
    sizes = [int(s) for s in sys.argv[5].split(",")]
    rounds, tmp = int(sys.argv[6]), sys.argv[7]

    torch.set_num_threads(1)
    os.environ["GLOO_SOCKET_IFNAME"] = "veth1"
    dist.init_process_group("gloo", init_method=f"tcp://{addr}:{port}",
                            rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=120))
    v6 = new_group("veth3", 120)
    say(f"rank {rank} ready")

    for n in range(1, rounds + 1):
        if n == 2:
            wait_for(f"{tmp}/failed")
        start = time.monotonic()
        for size in sizes:
            at = time.monotonic()
            collectives(rank, world, size, None, "v4")
            collectives(rank, world, size, v6, "v6")
            say(f"  {size} B: {time.monotonic() - at:.2f} s")
        say(f"round {n} {time.monotonic() - start:.1f} s")
    dist.barrier()
    say(f"rank {rank} ok")

    tcp = new_group("veth5", TCP_TIMEOUT)
    collectives(rank, world, 1024, tcp, "tcp")
    say(f"rank {rank} tcp ready")
    wait_for(f"{tmp}/tcp-failed")
    try:
        for _ in range(3):
            collectives(rank, world, 1 << 20, tcp, "tcp")
    except RuntimeError as e:
        say(f"rank {rank} tcp failed: {str(e).splitlines()[0]}")
        # Gloo's threads may still hold the dead pairs: leave at once.
        os._exit(0)
    say(f"rank {rank} tcp ok")


if __name__ == "__main__":
    main()
