#!/usr/bin/python3
"""torch_forward_bench.py - the PyTorch figure that `stepformer bench`'s
forward_base_b1_s32 is compared with.

The same pass as the C benchmark: preset base (d_model 512, 8 heads, d_ff
2048, 6 encoder + 6 decoder layers, post-LN, ReLU), one shared vocabulary of
37000 tokens tied between both embeddings and the output projection,
embeddings scaled by sqrt(d_model) plus the sinusoidal table, no dropout
(eval mode, no autograd), the causal mask, the output projection and the
softmax over the vocabulary; one sentence of 32 source tokens and 32 target
positions. tokens_per_s counts 1 x 32 tokens per pass, as the C benchmark
does.

It tries each thread count (torch.set_num_threads) and reports the median
time of each, and the best. Not needed to build or test Stepformer:

    /usr/bin/python3 tools/torch_forward_bench.py [--seconds 5] [--threads 1,2]
        [--batch 1] [--len 32]
"""
import argparse
import json
import math
import os
import statistics
import sys
import time

import torch
import torch.nn as nn

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_train_bench import sinusoids  # noqa: E402  (the same table)

V, C, NH, FF, L = 37000, 512, 8, 2048, 6
PAD, BOS = 0, 1


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(V, C)
        self.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(
            C, NH, FF, dropout=0.0, batch_first=True), L, enable_nested_tensor=False)
        self.dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(
            C, NH, FF, dropout=0.0, batch_first=True), L)
        self.gen_b = nn.Parameter(torch.zeros(V))
        self.register_buffer("pe", sinusoids(256, C))

    def forward(self, src, tgt):
        S, Tt = src.shape[1], tgt.shape[1]
        x = self.embed(src) * math.sqrt(C) + self.pe[:S]
        mem = self.enc(x, src_key_padding_mask=src == PAD)
        causal = torch.triu(torch.full((Tt, Tt), float("-inf")), 1)
        y = self.embed(tgt) * math.sqrt(C) + self.pe[:Tt]
        y = self.dec(y, mem, tgt_mask=causal, tgt_key_padding_mask=tgt == PAD,
                     memory_key_padding_mask=src == PAD)
        return torch.softmax(y @ self.embed.weight.t() + self.gen_b, -1)


def bench(threads, seconds, B, T):
    torch.set_num_threads(threads)
    torch.manual_seed(1)
    model = Model().eval()
    g = torch.Generator().manual_seed(7)
    src = torch.randint(4, V, (B, T), generator=g)
    tgt = torch.cat([torch.full((B, 1), BOS), torch.randint(4, V, (B, T - 1), generator=g)], 1)
    with torch.no_grad():
        for _ in range(3):
            model(src, tgt)
        times = []
        start = time.perf_counter()
        while time.perf_counter() - start < seconds or len(times) < 5:
            t0 = time.perf_counter()
            model(src, tgt)
            times.append(time.perf_counter() - t0)
    med = statistics.median(times)
    return {"name": f"torch_forward_base_b{B}_s{T}", "threads": threads,
            "median_ms": round(med * 1e3, 4), "reps": len(times),
            "tokens_per_s": round(B * T / med), "torch": torch.__version__}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--len", type=int, default=32)
    a = ap.parse_args()
    results = [bench(int(t), a.seconds, a.batch, a.len) for t in a.threads.split(",")]
    for r in results:
        print(json.dumps(r))
    best = min(results, key=lambda r: r["median_ms"])
    print(json.dumps({"name": f"torch_forward_base_b{a.batch}_s{a.len}_best", **{
        k: best[k] for k in ("threads", "median_ms", "tokens_per_s")}}))


if __name__ == "__main__":
    main()
