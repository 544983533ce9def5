#!/usr/bin/python3
"""torch_decode_bench.py - the PyTorch figure that `stepformer bench`'s
decode_base_greedy_s32 is compared with.

The same shapes as the C benchmark: preset base (d_model 512, 8 heads, d_ff
2048, 6 encoder + 6 decoder layers, post-LN, ReLU), one shared vocabulary of
37000 tokens tied between the embeddings and the output projection,
embeddings scaled by sqrt(d_model) plus the sinusoidal table; one source
sentence of 32 tokens, exactly 32 generated tokens (<eos> ignored). The
loop is PyTorch's plain one for nn.Transformer (as its tutorials write it):
the encoder once, then at every step the decoder over the whole prefix
under the causal mask, the output projection of the last position, argmax.
Inference mode, no dropout.

    /usr/bin/python3 tools/torch_decode_bench.py [--seconds 5] [--threads 1,2]
    /usr/bin/python3 tools/torch_decode_bench.py --vs build/stepformer [--rounds 3]

--vs alternates this loop and `stepformer bench --only
decode_base_greedy_s32` for --rounds rounds and prints each ratio
(PyTorch's time over Stepformer's) and their median. Not needed to build or
test Stepformer."""
import argparse
import json
import math
import statistics
import subprocess
import time

import torch
import torch.nn as nn

V, C, NH, FF, L, S, N_OUT = 37000, 512, 8, 2048, 6, 32, 32
BOS = 1


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(V, C)
        self.tf = nn.Transformer(C, NH, L, L, FF, dropout=0.0, batch_first=True)
        self.gen_b = nn.Parameter(torch.zeros(V))
        pos = torch.arange(256).unsqueeze(1)
        div = torch.pow(10000.0, torch.arange(0, C, 2) / C)
        pe = torch.zeros(256, C)
        pe[:, 0::2] = torch.sin(pos / div)
        pe[:, 1::2] = torch.cos(pos / div)
        self.register_buffer("pe", pe)

    def emb(self, ids):
        return self.embed(ids) * math.sqrt(C) + self.pe[: ids.shape[1]]

    @torch.inference_mode()
    def greedy(self, src, n_out):
        memory = self.tf.encoder(self.emb(src))
        ys = torch.full((1, 1), BOS, dtype=torch.long)
        for _ in range(n_out):
            T = ys.shape[1]
            mask = self.tf.generate_square_subsequent_mask(T)
            out = self.tf.decoder(self.emb(ys), memory, tgt_mask=mask)
            logits = out[:, -1] @ self.embed.weight.t() + self.gen_b
            ys = torch.cat([ys, logits.argmax(-1, keepdim=True)], 1)
        return ys


def bench(threads, seconds):
    torch.set_num_threads(threads)
    torch.manual_seed(1)
    model = Model().eval()
    src = torch.tensor([[4 + (i * 7919) % (V - 4) for i in range(S)]])
    model.greedy(src, N_OUT)
    times = []
    start = time.perf_counter()
    while time.perf_counter() - start < seconds or len(times) < 3:
        t0 = time.perf_counter()
        model.greedy(src, N_OUT)
        times.append(time.perf_counter() - t0)
    med = statistics.median(times)
    return {"name": "torch_decode_base_greedy_s32", "threads": threads,
            "median_ms": round(med * 1e3, 3), "reps": len(times),
            "tokens_per_s": round(N_OUT / med, 2), "torch": torch.__version__}


def ours(stepformer):
    out = subprocess.run([stepformer, "bench", "--quick", "--only", "decode_base_greedy_s32"],
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        r = json.loads(line)
        if r.get("name") == "decode_base_greedy_s32":
            return r["median_ms"]
    raise SystemExit("stepformer bench printed no decode_base_greedy_s32")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--vs", help="a stepformer binary: alternate the two, --rounds times")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    threads = [int(t) for t in a.threads.split(",")]
    if not a.vs:
        for t in threads:
            print(json.dumps(bench(t, a.seconds)))
        return
    ratios = []
    for k in range(a.rounds):
        torch_ms = min(bench(t, a.seconds)["median_ms"] for t in threads)
        our_ms = ours(a.vs)
        ratios.append(torch_ms / our_ms)
        print(json.dumps({"round": k + 1, "torch_ms": torch_ms, "stepformer_ms": our_ms,
                          "ratio": round(torch_ms / our_ms, 3)}))
    print(json.dumps({"name": "decode_base_greedy_s32_vs_torch",
                      "median_ratio": round(statistics.median(ratios), 3),
                      "range": [round(min(ratios), 3), round(max(ratios), 3)]}))


if __name__ == "__main__":
    main()
