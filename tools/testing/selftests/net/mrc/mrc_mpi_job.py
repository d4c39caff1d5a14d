#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# One rank of an MPI job, for mpi.sh: MPI_Allreduce, MPI_Alltoall and
# MPI_Bcast of int buffers of SIZES bytes each, ROUNDS times, every element
# of every result checked against what the ranks put in.
#
#   mrc_mpi_job.py SIZES ROUNDS DIR [PAUSE]
#
# Prints "rank R of W netns NETNS" once MPI is up, "rank R round N ..."
# after each round and "rank R ok ..." at the end, on standard output and
# in DIR/rank.R (mpirun may mix the lines of the ranks); a wrong element
# ends it with "rank R wrong ..." and MPI_Abort.  With PAUSE, before round PAUSE it
# creates DIR/paused.R and waits until DIR/mark exists (the test fails a
# plane meanwhile).
#
# mpi4py asks for MPI_THREAD_MULTIPLE by default, with which Open MPI's
# free lists take a 16-byte compare-and-exchange (CMPXCHG16B) that not every
# CPU (nor every QEMU guest) has: one thread is all it needs.

import os
import sys
import time
from array import array

import mpi4py

mpi4py.rc.thread_level = "single"
from mpi4py import MPI  # noqa: E402

comm = MPI.COMM_WORLD
RANK = WORLD = -1
LOG = None
checked = 0


def say(line):
    print(f"rank {RANK} {line}", flush=True)
    LOG.write(f"rank {RANK} {line}\n")
    LOG.flush()


def check(what, got, want):
    global checked

    if got != want:
        bad = [i for i in range(len(want)) if got[i] != want[i]]
        say(f"wrong {what}: {len(bad)} of {len(want)} elements, first at "
            f"{bad[0]}: {got[bad[0]]} instead of {want[bad[0]]}")
        comm.Abort(1)
    checked += len(want)


def ramp(first, count, step=1):
    return array("i", range(first, first + count * step, step))


def one_round(rnd, size, base):
    n = max(size // 4, 1)

    # Allreduce: rank r gives i * (r + 1) + base, the sum is i * T + W * base
    # (T the sum of r + 1): a rank's part missing or counted twice shows.
    tri = WORLD * (WORLD + 1) // 2
    send, got = ramp(base, n, RANK + 1), array("i", bytes(4 * n))
    comm.Allreduce([send, MPI.INT], [got, MPI.INT], op=MPI.SUM)
    check(f"Allreduce of {size} B", got, ramp(WORLD * base, n, tri))

    # Alltoall: block d of rank r, for rank d, counts up from
    # (r * W + d) * m + base; rank r gets block r of each rank in turn.
    m = max(n // WORLD, 1)
    send = array("i")
    for d in range(WORLD):
        send += ramp((RANK * WORLD + d) * m + base, m)
    got = array("i", bytes(4 * m * WORLD))
    comm.Alltoall([send, MPI.INT], [got, MPI.INT])
    want = array("i")
    for s in range(WORLD):
        want += ramp((s * WORLD + RANK) * m + base, m)
    check(f"Alltoall of {m * WORLD * 4} B", got, want)

    # Bcast from a root that changes each round.
    root = rnd % WORLD
    want = ramp(3 * base + root, n, -1)
    buf = array("i", want) if RANK == root else array("i", bytes(4 * n))
    comm.Bcast([buf, MPI.INT], root=root)
    check(f"Bcast of {size} B from {root}", buf, want)


def main():
    global RANK, WORLD, LOG

    sizes = [int(s) for s in sys.argv[1].split(",")]
    rounds, where = int(sys.argv[2]), sys.argv[3]
    pause = int(sys.argv[4]) if len(sys.argv) > 4 else 0

    RANK, WORLD = comm.Get_rank(), comm.Get_size()
    LOG = open(os.path.join(where, f"rank.{RANK}"), "w")
    say(f"of {WORLD} netns {os.readlink('/proc/self/ns/net')}")
    for rnd in range(1, rounds + 1):
        if rnd == pause:
            open(os.path.join(where, f"paused.{RANK}"), "w").close()
            deadline = time.monotonic() + 120
            while not os.path.exists(os.path.join(where, "mark")):
                if time.monotonic() > deadline:
                    say("no mark in 120 s")
                    comm.Abort(1)
                time.sleep(0.05)
        start = time.monotonic()
        for k, size in enumerate(sizes):
            one_round(rnd, size, rnd * 1000 + k)
        comm.Barrier()
        say(f"round {rnd} {(time.monotonic() - start) * 1000:.0f} ms")
    MPI.Finalize()
    say(f"ok {rounds} rounds, {checked} elements checked")


main()
