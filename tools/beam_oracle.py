#!/usr/bin/python3
"""beam_oracle.py - an independent float64 oracle of tensor2tensor's beam
search policy on one of our safetensors models (word-level, post-LN or
pre-LN, ReLU), checked against `stepformer translate --beam K --alpha A`.

The policy (tensor2tensor's): expand the alive hypotheses by every token; take the
2K best by log P; those ending in <eos> join the finished set (the K best by
log P / lp(|Y|), lp = ((5 + |Y|) / 6)^alpha, |Y| counting <eos>); the K best
others stay alive; stop at max_out (source length + 50, capped by max_len)
or when the worst finished score beats the best alive log P / lp(max_out);
at max_out the unfinished compete on log P / lp(max_out).

Usage: tools/beam_oracle.py [--model M] [--stepformer build/stepformer]
       [--sentences FILE] [--beams 4,8] [--alphas 0,0.6,1.0]
Needs numpy (the system /usr/bin/python3 has it); no test depends on it.
Prints one line per disagreement and the agreement count."""
import argparse
import json
import struct
import subprocess
import sys

import numpy as np

SENTENCES = """i love china
you like tea
he reads books
she drinks water
we eat rice
they watch movies
the teacher reads newspapers
the children eat apples
i drink coffee
you eat noodles
he likes music
she loves cats
we see dogs
they listen to music
i read books today
you drink tea every day
he eats rice at home
she watches tv tonight
we read books at school
they drink milk in the morning
the teacher likes red apples
the children love new books
i do not like coffee
you do not eat noodles
he does not drink tea
she is very good
we are at the park
they are at the library
what do you eat ?
where is the teacher ?
do you like tea ?
does he read books ?
i love you
he she they
what ?
china china china
the the the
i i i i
books
tea
love
you
?
read read
i love
the teacher
children eat
we drink hot tea
they eat cold rice
she likes good music"""


def read_model(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        head = json.loads(f.read(n))
        data = f.read()
    meta = head.pop("__metadata__", {})
    w = {}
    for k, v in head.items():
        if v["dtype"] != "F32":
            sys.exit(f"{path}: tensor {k} is {v['dtype']}; the oracle reads F32 only")
        a, b = v["data_offsets"]
        w[k] = np.frombuffer(data[a:b], dtype="<f4").astype(np.float64).reshape(v["shape"])
    return w, meta


def layernorm(x, g, b):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + 1e-5) * g + b


def pe_table(n, c):
    pe = np.zeros((n, c))
    pos = np.arange(n)[:, None]
    div = np.power(10000.0, np.arange(0, c, 2) / c)
    pe[:, 0::2] = np.sin(pos / div)
    pe[:, 1::2] = np.cos(pos / div)[:, : c // 2]
    return pe


class Model:
    def __init__(self, path):
        self.w, meta = read_model(path)
        self.C = int(meta["d_model"])
        self.NH = int(meta["n_heads"])
        self.Le = int(meta["n_enc_layers"])
        self.Ld = int(meta["n_dec_layers"])
        self.max_len = int(meta["max_len"])
        self.pre = meta.get("norm", "post") == "pre"
        self.src_vocab = json.loads(meta["src_vocab"])
        self.tgt_vocab = json.loads(meta["tgt_vocab"])
        self.lower = meta.get("src_lowercase", "false") == "true"
        self.sidx = {t: i for i, t in enumerate(self.src_vocab)}
        self.pe = pe_table(self.max_len, self.C)
        w = self.w
        self.src_E = w.get("src_embed.weight", w.get("tgt_embed.weight"))
        self.tgt_E = w["tgt_embed.weight"]
        self.gen_w = w.get("generator.weight", self.tgt_E)
        self.gen_b = w.get("generator.bias", np.zeros(len(self.tgt_vocab)))

    def attn(self, p, q_in, kv_in, causal):
        """q_in (B, Tq, C), kv_in (B, Tk, C) -> (B, Tq, C)"""
        C, NH = self.C, self.NH
        W, b = self.w[p + ".in_proj_weight"], self.w[p + ".in_proj_bias"]
        q = q_in @ W[:C].T + b[:C]
        k = kv_in @ W[C:2 * C].T + b[C:2 * C]
        v = kv_in @ W[2 * C:].T + b[2 * C:]
        B, Tq, Tk, dk = q.shape[0], q.shape[1], k.shape[1], C // NH
        q = q.reshape(B, Tq, NH, dk).transpose(0, 2, 1, 3)
        k = k.reshape(B, Tk, NH, dk).transpose(0, 2, 1, 3)
        v = v.reshape(B, Tk, NH, dk).transpose(0, 2, 1, 3)
        s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(dk)
        if causal:
            s = s + np.triu(np.full((Tq, Tk), -np.inf), 1)
        s = s - s.max(-1, keepdims=True)
        e = np.exp(s)
        a = e / e.sum(-1, keepdims=True)
        h = (a @ v).transpose(0, 2, 1, 3).reshape(B, Tq, C)
        return h @ self.w[p + ".out_proj.weight"].T + self.w[p + ".out_proj.bias"]

    def ffn(self, p, x):
        h = np.maximum(0, x @ self.w[p + ".linear1.weight"].T + self.w[p + ".linear1.bias"])
        return h @ self.w[p + ".linear2.weight"].T + self.w[p + ".linear2.bias"]

    def sub(self, p, n, x, f):
        g, b = self.w[f"{p}.norm{n}.weight"], self.w[f"{p}.norm{n}.bias"]
        if self.pre:
            return x + f(layernorm(x, g, b))
        return layernorm(x + f(x), g, b)

    def encode(self, ids):
        T = len(ids)
        x = (self.src_E[ids] * np.sqrt(self.C) + self.pe[:T])[None]
        for l in range(self.Le):
            p = f"encoder.layers.{l}"
            x = self.sub(p, 1, x, lambda y: self.attn(p + ".self_attn", y, y, False))
            x = self.sub(p, 2, x, lambda y: self.ffn(p, y))
        if self.pre:
            x = layernorm(x, self.w["encoder.norm.weight"], self.w["encoder.norm.bias"])
        return x

    def next_logprobs(self, mem, prefixes):
        """log-softmax of the next token after each prefix (rows of equal length)"""
        ids = np.array(prefixes)
        B, T = ids.shape
        x = self.tgt_E[ids] * np.sqrt(self.C) + self.pe[:T]
        m = np.repeat(mem, B, axis=0)
        for l in range(self.Ld):
            p = f"decoder.layers.{l}"
            x = self.sub(p, 1, x, lambda y: self.attn(p + ".self_attn", y, y, True))
            x = self.sub(p, 2, x, lambda y: self.attn(p + ".multihead_attn", y, m, False))
            x = self.sub(p, 3, x, lambda y: self.ffn(p, y))
        if self.pre:
            x = layernorm(x, self.w["decoder.norm.weight"], self.w["decoder.norm.bias"])
        z = x[:, -1] @ self.gen_w.T + self.gen_b
        z = z - z.max(-1, keepdims=True)
        return z - np.log(np.exp(z).sum(-1, keepdims=True))

    def src_ids(self, text):
        words = (text.lower() if self.lower else text).split()
        return [self.sidx.get(t, 3) for t in words]


def lp(n, alpha):
    return ((5.0 + n) / 6.0) ** alpha


def beam(model, ids, K, alpha, bos=1, eos=2):
    S = len(ids)
    max_out = min(S + 50, model.max_len)
    mem = model.encode(ids)
    alive = [([bos], 0.0)]
    fin = []  # (score, tokens, logp), best first
    t = 0
    while t < max_out:
        lsm = model.next_logprobs(mem, [a[0] for a in alive])
        V = lsm.shape[1]
        flat = np.array([alive[r][1] + lsm[r, v] for r in range(len(alive)) for v in range(V)])
        order = np.argsort(-flat, kind="stable")[: 2 * K]
        new_alive = []
        for j in order:
            r, v = divmod(int(j), V)
            toks, logp = alive[r][0] + [v], float(flat[j])
            if v == eos:
                fin.append((logp / lp(t + 1, alpha), toks, logp))
                fin.sort(key=lambda f: -f[0])  # stable: the older first among equals
                fin = fin[:K]
            elif len(new_alive) < K:
                new_alive.append((toks, logp))
        alive = new_alive
        t += 1
        if t < max_out and fin and fin[-1][0] > alive[0][1] / lp(max_out, alpha):
            break
    pool = list(fin)
    if t == max_out:
        pool += [(a[1] / lp(max_out, alpha), a[0], a[1]) for a in alive]
    best = max(pool, key=lambda f: f[0])  # the first of equals: finished first
    out = best[1][1:]
    if out and out[-1] == eos:
        out = out[:-1]
    return out, best[0], best[2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="assets/models/en2zh.safetensors")
    ap.add_argument("--stepformer", default="build/stepformer")
    ap.add_argument("--sentences")
    ap.add_argument("--beams", default="4,8")
    ap.add_argument("--alphas", default="0,0.6,1.0")
    a = ap.parse_args()
    model = Model(a.model)
    sents = open(a.sentences).read() if a.sentences else SENTENCES
    sents = [s for s in sents.splitlines() if s.strip()]
    agree = total = 0
    for K in [int(k) for k in a.beams.split(",")]:
        for alpha in [float(x) for x in a.alphas.split(",")]:
            run = subprocess.run([a.stepformer, "translate", "--model", a.model, "--beam", str(K),
                                  "--alpha", str(alpha)], input="\n".join(sents) + "\n",
                                 capture_output=True, text=True)
            ours = run.stdout.split("\n")
            for i, s in enumerate(sents):
                toks, score, logp = beam(model, model.src_ids(s), K, alpha)
                want = " ".join(model.tgt_vocab[t] for t in toks)
                got = ours[i].strip() if i < len(ours) else "<missing>"
                total += 1
                if got == want:
                    agree += 1
                else:
                    print(f"K {K} alpha {alpha} {s!r}: oracle {want!r} (score {score:.4f}, "
                          f"log P {logp:.4f}), stepformer {got!r}")
    print(f"{agree} of {total} (sentence x beam x alpha) agree with the float64 oracle")
    return 0 if agree == total else 1


if __name__ == "__main__":
    sys.exit(main())
