#!/usr/bin/python3
"""Reference numbers from PyTorch for the engine tests (development tool).

Reads a Stepformer checkpoint (safetensors, parsed here by hand), rebuilds the
model from torch.nn.TransformerEncoderLayer / TransformerDecoderLayer
(activation relu, dropout 0, batch_first, norm_first matching the checkpoint),
embeds with E[token] * sqrt(d_model) + the sinusoidal table, runs a padded
batch and writes a fixture that tests/test_torch_ref.c compares against:

    batch B S T
    src <B*S ids>          src_len <B>
    tgt <B*T ids>          tgt_len <B>
    logits <B*T*V floats>
    <stage> <layer> <B*H*Tq*Tk floats>   for enc.self / dec.self / dec.cross weights

With experiment flags (the engine's interventions, core/model/experiment.h)
the same pass is changed the same way, and the fixture starts with a line
`experiment FLAG...` naming them:

    --no-scale        Q is multiplied by sqrt(d_k) first, so that PyTorch's
                      QK^T/sqrt(d_k) is QK^T
    --no-pe           no positional encoding is added
    --no-causal       no causal mask in decoder self-attention
    --ablate K:L:H    head H of layer L of K (enc, dec, cross) contributes
                      nothing: its columns of W_O are zeroed, which equals
                      zeroing its output before W_O
    --hide-src I      source position I is masked as a key in encoder
                      self-attention and cross-attention, like padding
    --no-residual     every sub-layer without its residual connection:
                      post-LN LN(Sublayer(x)), pre-LN Sublayer(LN(x)); the
                      layers are then run from their own _sa_block,
                      _mha_block and _ff_block with the sum left out
    --no-ffn K:L      the feed-forward network of layer L of K (enc, dec)
                      adds nothing: its linear2 weight and bias are zeroed

The tests do not need Python: the fixtures are committed. Regenerate with
    build/stepformer init ... && tools/torch_reference.py MODEL OUT [FLAGS]
"""
import json
import math
import struct
import sys

import numpy as np
import torch
import torch.nn as nn


def load_safetensors(path):
    raw = open(path, "rb").read()
    (n,) = struct.unpack("<Q", raw[:8])
    hdr = json.loads(raw[8:8 + n])
    meta = hdr.pop("__metadata__")
    data = raw[8 + n:]
    tensors = {}
    for name, t in hdr.items():
        a, b = t["data_offsets"]
        tensors[name] = torch.from_numpy(
            np.frombuffer(data[a:b], dtype="<f4").reshape(t["shape"]).copy())
    return meta, tensors


def pe_table(max_len, d):
    pe = np.zeros((max_len, d), dtype=np.float64)
    for pos in range(max_len):
        for i in range(0, d, 2):
            ang = pos / 10000.0 ** (i / d)
            pe[pos, i] = math.sin(ang)
            if i + 1 < d:
                pe[pos, i + 1] = math.cos(ang)
    return torch.from_numpy(pe.astype(np.float32))


def parse_flags(args):
    exp = {"no_scale": False, "no_pe": False, "no_causal": False, "no_residual": False,
           "ablate": [], "hide": [], "no_ffn": []}
    words = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("--no-scale", "--no-pe", "--no-causal", "--no-residual"):
            exp[a[2:].replace("-", "_")] = True
            words.append(a[2:])
        elif a == "--ablate":
            k, l, h = args[i + 1].split(":")
            exp["ablate"].append((k, int(l), int(h)))
            words.append("ablate=" + args[i + 1])
            i += 1
        elif a == "--no-ffn":
            k, l = args[i + 1].split(":")
            exp["no_ffn"].append((k, int(l)))
            words.append("no-ffn=" + args[i + 1])
            i += 1
        elif a == "--hide-src":
            exp["hide"].append(int(args[i + 1]))
            words.append("hide-src=" + args[i + 1])
            i += 1
        else:
            raise SystemExit(f"unknown flag {a}")
        i += 1
    return exp, words


def apply_to_attention(mha, kind, layer, exp):
    """Change one nn.MultiheadAttention in place as the experiment says."""
    d = mha.embed_dim
    hd = d // mha.num_heads
    with torch.no_grad():
        if exp["no_scale"]:
            mha.in_proj_weight[:d] *= math.sqrt(hd)
            mha.in_proj_bias[:d] *= math.sqrt(hd)
        for k, l, h in exp["ablate"]:
            if k == kind and l == layer:
                mha.out_proj.weight[:, h * hd:(h + 1) * hd] = 0


def main(model_path, out_path, flags=(), seed=0):
    exp, words = parse_flags(list(flags))
    meta, t = load_safetensors(model_path)
    d = int(meta["d_model"]); h = int(meta["n_heads"]); ff = int(meta["d_ff"])
    ne = int(meta["n_enc_layers"]); nd = int(meta["n_dec_layers"])
    pre = meta["norm"] == "pre"
    tie = meta["tie_embeddings"]
    sv = len(json.loads(meta["src_vocab"])); tv = len(json.loads(meta["tgt_vocab"]))
    tgt_embed = t["tgt_embed.weight"]
    src_embed = tgt_embed if tie == "all" else t["src_embed.weight"]
    gen_w = tgt_embed if tie != "none" else t["generator.weight"]
    gen_b = t["generator.bias"]

    def layer_state(prefix):
        return {k[len(prefix):]: v for k, v in t.items() if k.startswith(prefix)}

    def layers(cls, n, prefix, attention):
        """n PyTorch layers of class cls with our weights, the experiment
        applied to each (attribute, kind) of attention: the layer's
        nn.MultiheadAttention and whose it is (enc, dec, cross)."""
        out = []
        for i in range(n):
            l = cls(d, h, ff, dropout=0.0, activation="relu", batch_first=True, norm_first=pre)
            l.load_state_dict(layer_state(f"{prefix}.layers.{i}."))
            for attr, kind in attention:
                apply_to_attention(getattr(l, attr), kind, i, exp)
            if (prefix[:3], i) in exp["no_ffn"]:
                with torch.no_grad():
                    l.linear2.weight.zero_()
                    l.linear2.bias.zero_()
            l.eval(); out.append(l)
        return out

    enc = layers(nn.TransformerEncoderLayer, ne, "encoder", [("self_attn", "enc")])
    dec = layers(nn.TransformerDecoderLayer, nd, "decoder",
                 [("self_attn", "dec"), ("multihead_attn", "cross")])
    enc_norm = dec_norm = None
    if pre:
        enc_norm = nn.LayerNorm(d); enc_norm.load_state_dict(layer_state("encoder.norm."))
        dec_norm = nn.LayerNorm(d); dec_norm.load_state_dict(layer_state("decoder.norm."))

    rng = np.random.default_rng(seed)
    B, S, T = 3, 7, 6
    src_len = [7, 4, 1]
    tgt_len = [6, 3, 5]
    src = np.zeros((B, S), dtype=np.int64)
    tgt = np.zeros((B, T), dtype=np.int64)
    for b in range(B):
        src[b, :src_len[b]] = rng.integers(4, sv, src_len[b])
        tgt[b, 0] = 1
        tgt[b, 1:tgt_len[b]] = rng.integers(4, tv, tgt_len[b] - 1)
    src_t = torch.from_numpy(src); tgt_t = torch.from_numpy(tgt)
    src_kpm = torch.tensor([[j >= src_len[b] or j in exp["hide"] for j in range(S)] for b in range(B)])
    tgt_kpm = torch.tensor([[j >= tgt_len[b] for j in range(T)] for b in range(B)])
    causal = torch.triu(torch.full((T, T), float("-inf")), diagonal=1)
    if exp["no_causal"]:
        causal = torch.zeros((T, T))
    pe = pe_table(max(S, T), d)
    if exp["no_pe"]:
        pe = torch.zeros_like(pe)

    def add(x, out):
        return out if exp["no_residual"] else x + out

    def enc_layer(l, x):
        """l(x) as PyTorch computes it, or without the residual sums."""
        if not exp["no_residual"]:
            return l(x, src_key_padding_mask=src_kpm)
        if pre:
            x = add(x, l._sa_block(l.norm1(x), None, src_kpm))
            return add(x, l._ff_block(l.norm2(x)))
        x = l.norm1(add(x, l._sa_block(x, None, src_kpm)))
        return l.norm2(add(x, l._ff_block(x)))

    def dec_after_self(l, y):
        """The state after the first block: the query of cross-attention
        (pre-LN: before its norm2)."""
        if pre:
            return add(y, l._sa_block(l.norm1(y), causal, tgt_kpm))
        return l.norm1(add(y, l._sa_block(y, causal, tgt_kpm)))

    def dec_layer(l, y, mem):
        if not exp["no_residual"]:
            return l(y, mem, tgt_mask=causal, tgt_key_padding_mask=tgt_kpm,
                     memory_key_padding_mask=src_kpm)
        y = dec_after_self(l, y)
        if pre:
            y = add(y, l._mha_block(l.norm2(y), mem, None, src_kpm))
            return add(y, l._ff_block(l.norm3(y)))
        y = l.norm2(add(y, l._mha_block(y, mem, None, src_kpm)))
        return l.norm3(add(y, l._ff_block(y)))

    weights = []
    # grad mode with parameters requiring grad keeps PyTorch off its fused
    # fast path, so padded positions are computed like every other.
    with torch.enable_grad():
        x = src_embed[src_t] * math.sqrt(d) + pe[:S]
        for i, l in enumerate(enc):
            a_in = l.norm1(x) if pre else x
            _, w = l.self_attn(a_in, a_in, a_in, key_padding_mask=src_kpm,
                               need_weights=True, average_attn_weights=False)
            weights.append(("enc.self.weights", i, w))
            x = enc_layer(l, x)
        mem = enc_norm(x) if pre else x
        y = tgt_embed[tgt_t] * math.sqrt(d) + pe[:T]
        for i, l in enumerate(dec):
            s_in = l.norm1(y) if pre else y
            _, w = l.self_attn(s_in, s_in, s_in, attn_mask=causal,
                               key_padding_mask=tgt_kpm, need_weights=True,
                               average_attn_weights=False)
            weights.append(("dec.self.weights", i, w))
            # the query of cross-attention is the state after the first block
            y1 = dec_after_self(l, y)
            c_in = l.norm2(y1) if pre else y1
            _, w = l.multihead_attn(c_in, mem, mem, key_padding_mask=src_kpm,
                                    need_weights=True, average_attn_weights=False)
            weights.append(("dec.cross.weights", i, w))
            y = dec_layer(l, y, mem)
        if pre:
            y = dec_norm(y)
        logits = y @ gen_w.T + gen_b

    with open(out_path, "w") as f:
        if words:
            f.write("experiment " + " ".join(words) + "\n")
        f.write(f"batch {B} {S} {T}\n")
        f.write("src " + " ".join(map(str, src.flatten())) + "\n")
        f.write("src_len " + " ".join(map(str, src_len)) + "\n")
        f.write("tgt " + " ".join(map(str, tgt.flatten())) + "\n")
        f.write("tgt_len " + " ".join(map(str, tgt_len)) + "\n")
        f.write("logits " + " ".join(f"{v:.9g}" for v in logits.detach().numpy().flatten()) + "\n")
        for name, i, w in weights:
            f.write(f"{name} {i} " + " ".join(f"{v:.9g}" for v in w.detach().numpy().flatten()) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
