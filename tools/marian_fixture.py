#!/usr/bin/python3
"""marian_fixture.py - small random MarianMT directories and their numbers.

A PyTorch port of MarianMTModel written from the semantics (README,
"MarianMT"; no `transformers` here): halves sinusoidal positions 0..n-1,
embeddings x sqrt(d_model) only with scale_embedding, one shared matrix for
encoder input, decoder input and output (+ final_logits_bias), separate
q/k/v/out projections with biases, scores x head_dim^-1/2, post-LN (eps
1e-5), FFN activation from activation_function, decoder self-attention with
the causal mask only, source padding masking encoder and cross keys.
Greedy decoding: the decoder starts with decoder_start_token_id (= pad),
pad is never generated, </s> is forced at max_length - 1, ties go to the
lowest index.

Writes, for each variant, DIR/{config.json, generation_config.json,
vocab.json, model.safetensors} and DIR/forward.ref (tests/.../torch_ref.h
format: a padded batch padded with pad_token_id, logits, every head's
weights, padded query rows included) and DIR/greedy.ref.

    /usr/bin/python3 tools/marian_fixture.py /tmp/marian-try   # a scratch folder
    /usr/bin/python3 tools/marian_fixture.py --fixtures        # rewrite tests/fixtures/marian

With no folder it writes into a new temporary folder and prints its name:
the tracked fixtures are rewritten only with --fixtures.
"""
import collections
import json
import math
import os
import struct
import sys

import numpy as np
import torch

V, C, NH, F, L, MAXPOS = 48, 32, 4, 32, 2, 64
PAD = V - 1
MAX_LENGTH = 12


def pe_halves(n, d):
    half = (d + 1) // 2
    out = np.zeros((n, d))
    for pos in range(n):
        for j in range(d):
            k = j if j < half else j - half
            a = pos / 10000 ** (2 * k / d)
            out[pos, j] = math.sin(a) if j < half else math.cos(a)
    return torch.tensor(out, dtype=torch.float32)


def random_state(seed):
    g = torch.Generator().manual_seed(seed)

    def r(*shape, s=0.3):
        return torch.randn(*shape, generator=g) * s

    sd = {"model.shared.weight": r(V, C, s=0.5), "final_logits_bias": r(1, V, s=0.2)}

    def attn(pre):
        for p in ("q_proj", "k_proj", "v_proj", "out_proj"):
            sd[f"{pre}.{p}.weight"] = r(C, C)
            sd[f"{pre}.{p}.bias"] = r(C, s=0.1)

    def ln(pre):
        sd[f"{pre}.weight"] = 1 + r(C, s=0.1)
        sd[f"{pre}.bias"] = r(C, s=0.1)

    def ffn(pre):
        sd[f"{pre}.fc1.weight"] = r(F, C)
        sd[f"{pre}.fc1.bias"] = r(F, s=0.1)
        sd[f"{pre}.fc2.weight"] = r(C, F)
        sd[f"{pre}.fc2.bias"] = r(C, s=0.1)

    for l in range(L):
        p = f"model.encoder.layers.{l}"
        attn(p + ".self_attn")
        ln(p + ".self_attn_layer_norm")
        ffn(p)
        ln(p + ".final_layer_norm")
    for l in range(L):
        p = f"model.decoder.layers.{l}"
        attn(p + ".self_attn")
        ln(p + ".self_attn_layer_norm")
        attn(p + ".encoder_attn")
        ln(p + ".encoder_attn_layer_norm")
        ffn(p)
        ln(p + ".final_layer_norm")
    return sd


ACT = {"relu": torch.relu, "swish": torch.nn.functional.silu, "silu": torch.nn.functional.silu,
       "gelu": lambda x: torch.nn.functional.gelu(x)}


class Port:
    def __init__(self, sd, cfg):
        self.sd = {k: v.double() for k, v in sd.items()}
        self.act = ACT[cfg["activation_function"]]
        self.scale = math.sqrt(C) if cfg["scale_embedding"] else 1.0
        self.E = self.sd["model.shared.weight"]
        self.bias = self.sd.get("final_logits_bias", torch.zeros(1, V))[0]
        self.pe_enc = self.sd.get("model.encoder.embed_positions.weight", pe_halves(MAXPOS, C).double())
        self.pe_dec = self.sd.get("model.decoder.embed_positions.weight", pe_halves(MAXPOS, C).double())
        self.weights = {"enc.self.weights": [], "dec.self.weights": [], "dec.cross.weights": []}

    def lin(self, x, name):
        return x @ self.sd[name + ".weight"].T + self.sd[name + ".bias"]

    def ln(self, x, name):
        return torch.nn.functional.layer_norm(x, (C,), self.sd[name + ".weight"], self.sd[name + ".bias"], 1e-5)

    def attn(self, x, kv, name, key_mask, causal, record):
        B, Tq, _ = x.shape
        Tk = kv.shape[1]
        hd = C // NH
        q = (self.lin(x, name + ".q_proj") * hd ** -0.5).view(B, Tq, NH, hd).transpose(1, 2)
        k = self.lin(kv, name + ".k_proj").view(B, Tk, NH, hd).transpose(1, 2)
        v = self.lin(kv, name + ".v_proj").view(B, Tk, NH, hd).transpose(1, 2)
        s = q @ k.transpose(-1, -2)
        mask = torch.zeros(B, 1, Tq, Tk, dtype=torch.bool)
        if key_mask is not None:
            mask |= ~key_mask[:, None, None, :]
        if causal:
            mask |= torch.triu(torch.ones(Tq, Tk, dtype=torch.bool), 1)[None, None]
        s = s.masked_fill(mask, float("-inf"))
        w = torch.softmax(s, -1)
        if record is not None:
            self.weights[record].append(w)
        o = (w @ v).transpose(1, 2).reshape(B, Tq, C)
        return self.lin(o, name + ".out_proj")

    def ffn(self, x, pre):
        return self.lin(self.act(self.lin(x, pre + ".fc1")), pre + ".fc2")

    def encode(self, src, src_len, record=True):
        B, S = src.shape
        key = torch.arange(S)[None, :] < src_len[:, None]
        x = self.E[src] * self.scale + self.pe_enc[:S]
        for l in range(L):
            p = f"model.encoder.layers.{l}"
            x = self.ln(x + self.attn(x, x, p + ".self_attn", key, False,
                                      "enc.self.weights" if record else None), p + ".self_attn_layer_norm")
            x = self.ln(x + self.ffn(x, p), p + ".final_layer_norm")
        return x, key

    def decode(self, mem, key, tgt, record=True):
        T = tgt.shape[1]
        x = self.E[tgt] * self.scale + self.pe_dec[:T]
        for l in range(L):
            p = f"model.decoder.layers.{l}"
            x = self.ln(x + self.attn(x, x, p + ".self_attn", None, True,
                                      "dec.self.weights" if record else None), p + ".self_attn_layer_norm")
            x = self.ln(x + self.attn(x, mem, p + ".encoder_attn", key, False,
                                      "dec.cross.weights" if record else None), p + ".encoder_attn_layer_norm")
            x = self.ln(x + self.ffn(x, p), p + ".final_layer_norm")
        return x @ self.E.T + self.bias

    def greedy(self, src):
        s = torch.tensor([src])
        mem, key = self.encode(s, torch.tensor([len(src)]), record=False)
        out = [PAD]  # decoder_start_token_id
        while len(out) < MAX_LENGTH:
            lg = self.decode(mem, key, torch.tensor([out]), record=False)[0, -1].clone()
            lg[PAD] = float("-inf")
            if len(out) == MAX_LENGTH - 1:
                keep = lg[0].clone()
                lg[:] = float("-inf")
                lg[0] = keep
            nxt = int(torch.argmax(lg))  # the first maximum: lowest index
            out.append(nxt)
            if nxt == 0:
                break
        return out[1:]


def f16(t):
    return t.half().float()


def bf16(t):
    return t.bfloat16().float()


def write_safetensors(path, sd, dtype):
    hdr, blobs, off = {}, [], 0
    for k in sorted(sd):
        t = sd[k].contiguous()
        if dtype == "F32":
            b = t.float().numpy().astype("<f4").tobytes()
        elif dtype == "F16":
            b = t.half().numpy().astype("<f2").tobytes()
        else:
            b = (t.float().numpy().astype("<f4").view("<u4") >> 16).astype("<u2").tobytes()
        hdr[k] = {"dtype": dtype, "shape": list(t.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    hdr["__metadata__"] = {"format": "pt"}
    h = json.dumps(hdr, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def fmt(x):
    return " ".join("%.7g" % v for v in x.reshape(-1).tolist())


def make(out, name, act, dtype, hub, seed, torch_bin=False, pe_noise=0.0):
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    sd = random_state(seed)
    if hub:  # the Hub's files: tied names repeated, positions stored
        sd["model.encoder.embed_tokens.weight"] = sd["model.shared.weight"]
        sd["model.decoder.embed_tokens.weight"] = sd["model.shared.weight"]
        sd["lm_head.weight"] = sd["model.shared.weight"]
        g = torch.Generator().manual_seed(seed + 7)  # pe_noise: a table that is not the formula
        sd["model.encoder.embed_positions.weight"] = pe_halves(MAXPOS, C) + pe_noise * torch.randn(MAXPOS, C, generator=g)
        sd["model.decoder.embed_positions.weight"] = pe_halves(MAXPOS, C) + pe_noise * torch.randn(MAXPOS, C, generator=g)
    rnd = {"F32": lambda t: t, "F16": f16, "BF16": bf16}[dtype]
    sd = {k: rnd(v) for k, v in sd.items()}
    if torch_bin:  # torch.save(state_dict) as save_pretrained did before safetensors
        tdt = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}[dtype]
        od = collections.OrderedDict((k, sd[k].to(tdt).contiguous()) for k in sorted(sd))
        od._metadata = collections.OrderedDict({"": {"version": 1}})
        torch.save(od, os.path.join(d, "pytorch_model.bin"))
    else:
        write_safetensors(os.path.join(d, "model.safetensors"), sd, dtype)
    cfg = {"model_type": "marian", "architectures": ["MarianMTModel"], "d_model": C,
           "encoder_layers": L, "decoder_layers": L, "encoder_attention_heads": NH,
           "decoder_attention_heads": NH, "encoder_ffn_dim": F, "decoder_ffn_dim": F,
           "vocab_size": V, "max_position_embeddings": MAXPOS, "activation_function": act,
           "scale_embedding": True, "pad_token_id": PAD, "eos_token_id": 0,
           "decoder_start_token_id": PAD, "bad_words_ids": [[PAD]], "max_length": 512,
           "num_beams": 4, "share_encoder_decoder_embeddings": True}
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    with open(os.path.join(d, "generation_config.json"), "w") as f:
        json.dump({"bad_words_ids": [[PAD]], "decoder_start_token_id": PAD, "eos_token_id": 0,
                   "max_length": MAX_LENGTH, "num_beams": 4, "pad_token_id": PAD}, f, indent=2)
    vocab = {"</s>": 0, "<unk>": 1}
    for i in range(2, V - 1):
        vocab["\u2581w%d" % i if i % 3 else "p%d" % i] = i
    vocab["<pad>"] = PAD
    with open(os.path.join(d, "vocab.json"), "w") as f:
        json.dump(vocab, f, ensure_ascii=False, indent=1)

    port = Port(sd, cfg)
    g = torch.Generator().manual_seed(seed + 1)
    B, S, T = 3, 7, 6
    src_len = torch.tensor([7, 4, 1])
    tgt_len = torch.tensor([6, 3, 5])
    src = torch.randint(2, V - 1, (B, S), generator=g)
    tgt = torch.randint(2, V - 1, (B, T), generator=g)
    for b in range(B):
        src[b, src_len[b] - 1] = 0  # </s> ends the source
        src[b, src_len[b]:] = PAD
        tgt[b, 0] = PAD  # decoder start
        tgt[b, tgt_len[b]:] = PAD
    mem, key = port.encode(src, src_len)
    logits = port.decode(mem, key, tgt)
    with open(os.path.join(d, "forward.ref"), "w") as f:
        f.write("batch %d %d %d\n" % (B, S, T))
        f.write("src %s\nsrc_len %s\n" % (fmt(src), fmt(src_len)))
        f.write("tgt %s\ntgt_len %s\n" % (fmt(tgt), fmt(tgt_len)))
        f.write("logits %s\n" % fmt(logits))
        for k, ws in port.weights.items():
            for l, w in enumerate(ws):
                f.write("%s %d %s\n" % (k, l, fmt(w)))
    with open(os.path.join(d, "greedy.ref"), "w") as f:
        for i in range(8):
            n = int(torch.randint(1, 9, (1,), generator=g))
            s = torch.randint(2, V - 1, (n,), generator=g).tolist() + [0]
            f.write("%s | %s\n" % (" ".join(map(str, s)), " ".join(map(str, port.greedy(s)))))
    return port


def main(out):
    torch.set_grad_enabled(False)
    make(out, "swish_f32", "swish", "F32", False, 11)
    make(out, "relu_f16_hub", "relu", "F16", True, 12)
    make(out, "gelu_bf16", "gelu", "BF16", False, 13)
    make(out, "swish_f16_bin", "swish", "F16", False, 14, torch_bin=True)
    make(out, "pe_stored_other", "swish", "F32", True, 16, pe_noise=0.05)




# ---- tokenization: sentencepiece models trained on a few hundred sentences ----

WORDS_SRC = ("the cat dog bird sees likes eats small big red green house tree river today weather "
             "is nice very and a an old new man woman child book reads writes quickly slowly").split()
WORDS_TGT = ("le chat chien oiseau voit aime mange petit grand rouge vert maison arbre fleuve "
             "aujourd'hui temps est beau très et un une vieux nouveau homme femme enfant livre").split()


def sentences(words, n, rng):
    out = []
    for _ in range(n):
        k = rng.randint(2, 9)
        s = " ".join(rng.choice(words) for _ in range(k))
        if rng.random() < 0.5:
            s = s[0].upper() + s[1:]
        out.append(s + rng.choice([".", "!", "?", ""]))
    return out


def train_spm(path, lines, size):
    import sentencepiece as spm
    txt = path + ".txt"
    with open(txt, "w") as f:
        f.write("\n".join(lines) + "\n")
    spm.SentencePieceTrainer.train(input=txt, model_prefix=path, vocab_size=size, model_type="unigram",
                                   normalization_rule_name="identity", character_coverage=1.0,
                                   bos_id=-1, eos_id=1, unk_id=0, pad_id=-1, minloglevel=2)
    os.remove(txt)
    os.remove(path + ".vocab")
    os.replace(path + ".model", path)


def make_tokenizer(out):
    import random
    import re
    import sentencepiece as spm
    d = os.path.join(out, "spm")
    os.makedirs(d, exist_ok=True)
    rng = random.Random(5)
    train_spm(os.path.join(d, "source.spm"), sentences(WORDS_SRC, 300, rng), 90)
    train_spm(os.path.join(d, "target.spm"), sentences(WORDS_TGT, 300, rng), 90)
    src = spm.SentencePieceProcessor(model_file=os.path.join(d, "source.spm"))
    tgt = spm.SentencePieceProcessor(model_file=os.path.join(d, "target.spm"))
    pieces = []
    for sp in (src, tgt):
        for i in range(sp.get_piece_size()):
            p = sp.id_to_piece(i)
            if not sp.is_control(i) and not sp.is_unknown(i) and p not in pieces:
                pieces.append(p)
    dropped = set(pieces[5::17])  # pieces vocab.json leaves out: <unk>
    vocab = {"</s>": 0, "<unk>": 1, ">>fra<<": 2, ">>deu<<": 3}
    for p in pieces:
        if p not in dropped:
            vocab[p] = len(vocab)
    vocab["<pad>"] = len(vocab)
    with open(os.path.join(d, "vocab.json"), "w") as f:
        json.dump(vocab, f, ensure_ascii=False, indent=1)
    inv = {i: p for p, i in vocab.items()}
    code_re = re.compile(">>.+<<")

    def encode(text):  # MarianTokenizer's source side
        m = code_re.match(text)
        code = [m.group(0)] if m else []
        text = code_re.sub("", text)
        toks = code + src.encode(text, out_type=str)
        return [vocab.get(t, 1) for t in toks] + [0]

    def decode(ids):  # target side, special ids skipped
        toks = [inv[i] for i in ids if i not in (0, 1, vocab["<pad>"]) and not inv[i].startswith(">>")]
        return tgt.decode_pieces(toks)

    tests = sentences(WORDS_SRC, 90, rng) + ["Zebra quickly xylophone!", "  the  cat  ", "ünïcödé the dog",
                                             ">>fra<< the cat sees a bird.", ">>deu<< today", ">>fra<<the dog",
                                             "the >>fra<< tag", "", ">>xx<< unknown tag", "a\tb"]
    with open(os.path.join(d, "encode.ref"), "w") as f:
        for t in tests:
            f.write("%s\t%s\n" % (t.replace("\t", "\\t"), " ".join(map(str, encode(t)))))
    g = random.Random(9)
    with open(os.path.join(d, "decode.ref"), "w") as f:
        for _ in range(30):
            ids = [g.randrange(0, len(vocab)) for _ in range(g.randint(1, 12))]
            f.write("%s\t%s\n" % (" ".join(map(str, ids)), decode(ids)))


def make_spm_model(out):
    """spm_model: a random model over spm/'s vocabulary and sentencepiece
    models, and translate.ref: text, source ids, greedy ids and greedy text
    (tab-separated) as MarianTokenizer + the port + target.spm give them."""
    import re
    import shutil
    import sentencepiece as spm
    global V, PAD
    d = os.path.join(out, "spm")
    vocab = json.load(open(os.path.join(d, "vocab.json")))
    V, PAD = len(vocab), vocab["<pad>"]
    torch.set_grad_enabled(False)
    port = make(out, "spm_model", "swish", "F32", False, 15)
    m = os.path.join(out, "spm_model")
    for f in ("source.spm", "target.spm", "vocab.json"):
        shutil.copy(os.path.join(d, f), os.path.join(m, f))
    src = spm.SentencePieceProcessor(model_file=os.path.join(d, "source.spm"))
    tgt = spm.SentencePieceProcessor(model_file=os.path.join(d, "target.spm"))
    inv = {i: p for p, i in vocab.items()}
    code_re = re.compile(">>.+<<")
    lines = ["the cat sees a bird.", ">>fra<< the dog likes the house", ">>deu<< Today the weather is nice!",
             "a small red book", "Zebra quickly", "the old man reads a new book slowly.",
             ">>fra<< green tree and river", "child eats"]
    with open(os.path.join(m, "translate.ref"), "w") as f:
        for t in lines:
            mt = code_re.match(t)
            toks = ([mt.group(0)] if mt else []) + src.encode(code_re.sub("", t), out_type=str)
            ids = [vocab.get(x, 1) for x in toks] + [0]
            out_ids = port.greedy(ids)
            text = tgt.decode_pieces([inv[i] for i in out_ids
                                      if i not in (0, 1, PAD) and not inv[i].startswith(">>")])
            f.write("%s\t%s\t%s\t%s\n" % (t, " ".join(map(str, ids)), " ".join(map(str, out_ids)), text))


FIXTURES = "tests/fixtures/marian"


def out_folder(argv):
    """The output folder: --fixtures for the tracked fixtures, a folder
    given as the first non-option argument, or a new temporary folder."""
    import tempfile
    if "--fixtures" in argv:
        return FIXTURES
    given = [a for a in argv[1:] if not a.startswith("--")]
    if given:
        return given[0]
    d = tempfile.mkdtemp(prefix="marian_fixture-")
    print("writing into %s (give --fixtures to rewrite %s)" % (d, FIXTURES))
    return d


if __name__ == "__main__":
    out = out_folder(sys.argv)
    if "--pe-only" in sys.argv:
        torch.set_grad_enabled(False)
        make(out, "pe_stored_other", "swish", "F32", True, 16, pe_noise=0.05)
        sys.exit(0)
    if "--spm-model-only" in sys.argv:
        make_spm_model(out)
        sys.exit(0)
    if "--tokenizer-only" not in sys.argv:
        main(out)
    make_tokenizer(out)
    make_spm_model(out)
