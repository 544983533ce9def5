#!/usr/bin/env python3
"""torch_train_bench.py - the PyTorch figure that `stepformer bench`'s
train_classroom_b32_s16 is compared with.

The same model and step as the C benchmark: preset classroom (d_model 64,
4 heads, d_ff 256, 2 encoder + 2 decoder layers, post-LN, ReLU), one shared
vocabulary of 32 tokens tied between both embeddings and the output
projection, embeddings scaled by sqrt(d_model) plus the sinusoidal table,
dropout 0.1, label-smoothed (0.1) cross-entropy ignoring <pad>, and one Adam
step (0.9, 0.98, 1e-9) with the paper's warmup schedule; batches of 32
sentences of 16 source tokens and 16 target positions (<bos> + 15 in, 15 +
<eos> out). tokens_per_s counts 32 x 16 = 512 tokens per step, as the C
benchmark does; tokens_per_s_src_tgt counts source and target tokens (1024
per step), as the C benchmark's second figure does.

It tries each thread count (torch.set_num_threads) and reports the median
step time of each, and the best. Not needed to build or test Stepformer:

    python3 tools/torch_train_bench.py [--seconds 5] [--threads 1,2]
"""
import argparse
import json
import math
import statistics
import time

import torch
import torch.nn as nn

V, C, NH, FF, L, B, T = 32, 64, 4, 256, 2, 32, 16
PAD, BOS, EOS = 0, 1, 2


def sinusoids(n, c):
    """The paper's table: PE(pos, 2i) = sin(pos / 10000^(2i/c)), PE(pos, 2i+1) = cos."""
    pos = torch.arange(n).unsqueeze(1)
    div = torch.pow(10000.0, torch.arange(0, c, 2) / c)
    pe = torch.zeros(n, c)
    pe[:, 0::2] = torch.sin(pos / div)
    pe[:, 1::2] = torch.cos(pos / div)
    return pe


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(V, C)
        self.enc = nn.ModuleList(nn.TransformerEncoderLayer(
            C, NH, FF, dropout=0.1, batch_first=True) for _ in range(L))
        self.dec = nn.ModuleList(nn.TransformerDecoderLayer(
            C, NH, FF, dropout=0.1, batch_first=True) for _ in range(L))
        self.gen_b = nn.Parameter(torch.zeros(V))
        self.drop = nn.Dropout(0.1)
        self.register_buffer("pe", sinusoids(256, C))

    def forward(self, src, tgt):
        S, Tt = src.shape[1], tgt.shape[1]
        x = self.drop(self.embed(src) * math.sqrt(C) + self.pe[:S])
        for layer in self.enc:
            x = layer(x, src_key_padding_mask=src == PAD)
        causal = torch.triu(torch.full((Tt, Tt), float("-inf")), 1)
        y = self.drop(self.embed(tgt) * math.sqrt(C) + self.pe[:Tt])
        for layer in self.dec:
            y = layer(y, x, tgt_mask=causal, tgt_key_padding_mask=tgt == PAD,
                      memory_key_padding_mask=src == PAD)
        return y @ self.embed.weight.t() + self.gen_b


def bench(threads, seconds):
    torch.set_num_threads(threads)
    torch.manual_seed(1)
    model = Model()
    opt = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
    warmup = 4000
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: C ** -0.5 * min((s + 1) ** -0.5, (s + 1) * warmup ** -1.5))
    loss_fn = nn.CrossEntropyLoss(ignore_index=PAD, label_smoothing=0.1)
    g = torch.Generator().manual_seed(7)
    src = torch.randint(4, V, (B, T), generator=g)
    body = torch.randint(4, V, (B, T - 1), generator=g)
    tgt_in = torch.cat([torch.full((B, 1), BOS), body], 1)
    tgt_out = torch.cat([body, torch.full((B, 1), EOS)], 1)

    def step():
        opt.zero_grad(set_to_none=True)
        logits = model(src, tgt_in)
        loss = loss_fn(logits.reshape(-1, V), tgt_out.reshape(-1))
        loss.backward()
        opt.step()
        sched.step()

    for _ in range(5):
        step()
    times = []
    start = time.perf_counter()
    while time.perf_counter() - start < seconds or len(times) < 10:
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    med = statistics.median(times)
    return {"name": "torch_train_classroom_b32_s16", "threads": threads,
            "median_ms": round(med * 1e3, 4), "reps": len(times),
            "tokens_per_s": round(B * T / med), "tokens_per_s_src_tgt": round(2 * B * T / med),
            "torch": torch.__version__}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--threads", default="1,2")
    a = ap.parse_args()
    results = [bench(int(t), a.seconds) for t in a.threads.split(",")]
    for r in results:
        print(json.dumps(r))
    best = max(results, key=lambda r: r["tokens_per_s"])
    print(json.dumps({"name": "torch_train_classroom_b32_s16_best", **{
        k: best[k] for k in ("threads", "median_ms", "tokens_per_s", "tokens_per_s_src_tgt")}}))


if __name__ == "__main__":
    main()
