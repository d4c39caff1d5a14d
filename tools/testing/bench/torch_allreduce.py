#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# One rank of the torch_allreduce benchmark: a torch.distributed job on
# the gloo backend (TCP sockets, turned into MRC or MPTCP by mrcize or
# mptcpize) that times all_reduce of a float32 tensor, on the device that
# GLOO_SOCKET_IFNAME names.
#
#   torch_allreduce.py RANK WORLD STORE_ADDR STORE_PORT BYTES ITERS DIR
#
# ITERS all_reduce, then "half" on standard output and a wait for the file
# DIR/failed (the benchmark fails a plane meanwhile), then ITERS more.  The
# sums are checked.  Rank 0 prints one JSON line at the end: the times of
# each half in ms; a collective that fails (by the group's timeout) ends
# the job with "complete": false.

import datetime
import json
import os
import sys
import time

import torch
import torch.distributed as dist


def main():
    rank, world = int(sys.argv[1]), int(sys.argv[2])
    addr, port = sys.argv[3], int(sys.argv[4])
    size, iters, tmp = int(sys.argv[5]), int(sys.argv[6]), sys.argv[7]
    n = size // 4
    times = [[], []]
    result = {"rank": rank, "bytes": size, "iters": iters, "complete": True}

    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://{addr}:{port}",
                            rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=60))
    want = torch.full((n,), float(world * (world + 1) // 2))
    try:
        for half in (0, 1):
            if half:
                print("half", flush=True)
                while not os.path.exists(f"{tmp}/failed"):
                    time.sleep(0.05)
            for _ in range(iters):
                t = torch.full((n,), float(rank + 1))
                start = time.monotonic()
                dist.all_reduce(t)
                times[half].append((time.monotonic() - start) * 1000)
                if not torch.equal(t, want):
                    result["complete"] = False
                    result["error"] = "wrong sum"
                    break
    except RuntimeError as e:
        result["complete"] = False
        result["error"] = str(e).splitlines()[0]
    result["ms_before"] = [round(x, 1) for x in times[0]]
    result["ms_after"] = [round(x, 1) for x in times[1]]
    print(json.dumps(result), flush=True)
    # Gloo's threads may hold pairs that can no longer end cleanly.
    os._exit(0)


if __name__ == "__main__":
    main()
