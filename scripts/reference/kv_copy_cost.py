#!/usr/bin/env python3
"""Times what the onnx engine's missing IO binding costs on a GPU: a decoder's whole key/value cache copied host ->
device and device -> host once per decode step (ONNX Runtime's Java API feeds host tensors and returns host tensors).

  kv_copy_cost.py [--layers 32] [--kv-heads 8] [--head-dim 128] [--contexts 256,1000,4000] [--batches 1,16]

Defaults are Llama-3-8B's cache in float32. Prints, per context and batch, the cache size and the measured time of one
round trip (pageable and pinned host memory), next to the bandwidth it implies. Needs PyTorch with CUDA.
"""
import argparse
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from llama_reference import OneLineParser  # noqa: E402


def main():
    ap = OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--layers", type=int, default=32)
    ap.add_argument("--kv-heads", type=int, default=8)
    ap.add_argument("--head-dim", type=int, default=128)
    ap.add_argument("--contexts", default="256,1000,4000")
    ap.add_argument("--batches", default="1,16")
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args()
    dev = torch.device("cuda")
    print(f"device: {torch.cuda.get_device_name(0)}; torch {torch.__version__}")
    print(f"{'context':>7} {'batch':>5} {'cache MiB':>10} {'pageable ms':>12} {'pinned ms':>10} {'pinned GB/s':>12}")
    for ctx in [int(x) for x in a.contexts.split(",")]:
        for b in [int(x) for x in a.batches.split(",")]:
            n = 2 * a.layers * b * a.kv_heads * ctx * a.head_dim      # keys and values, every layer
            mib = n * 4 / 2**20
            times = {}
            for pinned in (False, True):
                host = torch.empty(n, dtype=torch.float32, pin_memory=pinned)
                gpu = torch.empty(n, dtype=torch.float32, device=dev)
                gpu.copy_(host)
                host.copy_(gpu)
                torch.cuda.synchronize()
                best = float("inf")
                for _ in range(a.repeats):
                    t0 = time.perf_counter()
                    gpu.copy_(host, non_blocking=pinned)
                    host.copy_(gpu, non_blocking=pinned)
                    torch.cuda.synchronize()
                    best = min(best, time.perf_counter() - t0)
                times[pinned] = best * 1000
                del host, gpu
                torch.cuda.empty_cache()
            gbs = 2 * n * 4 / (times[True] / 1000) / 1e9
            print(f"{ctx:>7} {b:>5} {mib:>10.1f} {times[False]:>12.2f} {times[True]:>10.2f} {gbs:>12.1f}")


if __name__ == "__main__":
    main()
