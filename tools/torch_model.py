#!/usr/bin/python3
"""Write a model built and initialised by PyTorch, the way the README says
(nn.TransformerEncoder/Decoder stacks, Embedding, Linear), in the safetensors
layout, plus the logits PyTorch computes for a padded batch (development tool).

    tools/torch_model.py tests/fixtures/torch/from_torch.safetensors tests/fixtures/torch/from_torch.ref

The safetensors package is not in Debian 12, so this writes the same layout
by hand: 8-byte little-endian header length, JSON header (space-padded to a
multiple of 8), then the tensors' little-endian F32 bytes in header order.
tests/test_forward.c loads the model and compares its logits with these."""
import json
import math
import struct
import sys

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(7)
d, h, ff, N = 32, 4, 48, 2
src_vocab = ["<pad>", "<bos>", "<eos>", "<unk>"] + [f"s{i}" for i in range(12)]
tgt_vocab = ["<pad>", "<bos>", "<eos>", "<unk>"] + [f"t{i}" for i in range(14)]


class Model(nn.Module):
    def __init__(self, vs, vt):
        super().__init__()
        self.src_embed = nn.Embedding(vs, d)
        self.tgt_embed = nn.Embedding(vt, d)
        self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(
            d, h, ff, dropout=0.0, batch_first=True), N, enable_nested_tensor=False)
        self.decoder = nn.TransformerDecoder(nn.TransformerDecoderLayer(
            d, h, ff, dropout=0.0, batch_first=True), N)
        self.generator = nn.Linear(d, vt)


def pe_table(n):
    pe = np.zeros((n, d))
    for pos in range(n):
        for i in range(0, d, 2):
            a = pos / 10000.0 ** (i / d)
            pe[pos, i], pe[pos, i + 1] = math.sin(a), math.cos(a)
    return torch.from_numpy(pe.astype(np.float32))


def save(state, meta, path):
    header = {"__metadata__": meta}
    blobs, off = [], 0
    for name in sorted(state):
        a = state[name].detach().contiguous().numpy().astype("<f4")
        b = a.tobytes()
        header[name] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def main(model_path, ref_path):
    m = Model(len(src_vocab), len(tgt_vocab)).eval()
    meta = {"format": "stepformer-1", "d_model": str(d), "n_heads": str(h), "d_ff": str(ff),
            "n_enc_layers": str(N), "n_dec_layers": str(N), "max_len": "16", "norm": "post",
            "tie_embeddings": "none", "src_vocab": json.dumps(src_vocab),
            "tgt_vocab": json.dumps(tgt_vocab), "src_tokenize": "word", "tgt_tokenize": "word"}
    save(m.state_dict(), meta, model_path)
    B, S, T = 2, 5, 4
    src = torch.tensor([[4, 5, 6, 7, 8], [9, 10, 0, 0, 0]])
    tgt = torch.tensor([[1, 4, 5, 6], [1, 7, 0, 0]])
    slen, tlen = [5, 2], [4, 2]
    skpm = src == 0
    tkpm = tgt == 0
    causal = torch.triu(torch.full((T, T), float("-inf")), diagonal=1)
    with torch.enable_grad():
        x = m.src_embed(src) * math.sqrt(d) + pe_table(S)
        mem = m.encoder(x, src_key_padding_mask=skpm)
        y = m.tgt_embed(tgt) * math.sqrt(d) + pe_table(T)
        y = m.decoder(y, mem, tgt_mask=causal, tgt_key_padding_mask=tkpm,
                      memory_key_padding_mask=skpm)
        logits = m.generator(y)
    with open(ref_path, "w") as f:
        f.write(f"batch {B} {S} {T}\n")
        f.write("src " + " ".join(map(str, src.flatten().tolist())) + "\n")
        f.write("src_len " + " ".join(map(str, slen)) + "\n")
        f.write("tgt " + " ".join(map(str, tgt.flatten().tolist())) + "\n")
        f.write("tgt_len " + " ".join(map(str, tlen)) + "\n")
        f.write("logits " + " ".join(f"{v:.9g}" for v in logits.detach().numpy().flatten()) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
