"""An independent NumPy implementation of the BERT encoders RankLens runs with candle.

Reads the same safetensors and tokenizer.json files and prints the reference numbers the Rust tests
assert: all-MiniLM-L6-v2 sentence embeddings (mean pooling, L2 normalisation) and the top SPLADE
terms of splade-tiny (log(1 + ReLU(MLM logits)), max-pooled over tokens).

    python scripts/reference_encoders.py MINILM_DIR SPLADE_DIR
"""
import json
import struct
import sys

import numpy as np
from tokenizers import Tokenizer


def load_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        start, end = meta["data_offsets"]
        dtype = {"F32": np.float32, "I64": np.int64}[meta["dtype"]]
        out[name] = np.frombuffer(data[start:end], dtype=dtype).reshape(meta["shape"])
    return out


def layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def gelu(x):
    from math import erf, sqrt

    return 0.5 * x * (1.0 + np.vectorize(erf)(x / sqrt(2.0)))


def get(w, name):
    for prefix in ("", "bert."):
        for alt in (name, name.replace(".weight", ".gamma").replace(".bias", ".beta")):
            if prefix + alt in w:
                return w[prefix + alt].astype(np.float64)
    raise KeyError(name)


def bert(w, cfg, ids):
    h = cfg["hidden_size"]
    heads = cfg["num_attention_heads"]
    eps = cfg["layer_norm_eps"]
    x = get(w, "embeddings.word_embeddings.weight")[ids]
    x = x + get(w, "embeddings.position_embeddings.weight")[: len(ids)]
    x = x + get(w, "embeddings.token_type_embeddings.weight")[0]
    x = layer_norm(x, get(w, "embeddings.LayerNorm.weight"), get(w, "embeddings.LayerNorm.bias"), eps)
    d = h // heads
    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        lin = lambda name, v: v @ get(w, p + name + ".weight").T + get(w, p + name + ".bias")
        q = lin("attention.self.query", x).reshape(len(ids), heads, d).transpose(1, 0, 2)
        k = lin("attention.self.key", x).reshape(len(ids), heads, d).transpose(1, 0, 2)
        v = lin("attention.self.value", x).reshape(len(ids), heads, d).transpose(1, 0, 2)
        a = q @ k.transpose(0, 2, 1) / np.sqrt(d)
        a = np.exp(a - a.max(-1, keepdims=True))
        a = a / a.sum(-1, keepdims=True)
        ctx = (a @ v).transpose(1, 0, 2).reshape(len(ids), h)
        x = layer_norm(lin("attention.output.dense", ctx) + x, get(w, p + "attention.output.LayerNorm.weight"),
                       get(w, p + "attention.output.LayerNorm.bias"), eps)
        inter = gelu(lin("intermediate.dense", x))
        x = layer_norm(lin("output.dense", inter) + x, get(w, p + "output.LayerNorm.weight"),
                       get(w, p + "output.LayerNorm.bias"), eps)
    return x


def main():
    minilm, splade = sys.argv[1], sys.argv[2]
    cfg = json.load(open(f"{minilm}/config.json"))
    w = load_safetensors(f"{minilm}/model.safetensors")
    tok = Tokenizer.from_file(f"{minilm}/tokenizer.json")
    tok.no_padding()
    sentences = [
        "How long before saved results expire?",
        "Cached results stay valid for 15 minutes",
        "The desktop app loads plugins at start",
    ]
    embs = []
    for s in sentences:
        ids = tok.encode(s).ids
        e = bert(w, cfg, np.array(ids)).mean(0)
        e = e / np.linalg.norm(e)
        embs.append(e)
        print(json.dumps({"sentence": s, "ids": ids, "first8": [round(float(v), 6) for v in e[:8]],
                          "sum": round(float(e.sum()), 6)}))
    print(json.dumps({"cos01": float(embs[0] @ embs[1]), "cos02": float(embs[0] @ embs[2])}))

    cfg = json.load(open(f"{splade}/config.json"))
    w = load_safetensors(f"{splade}/model.safetensors")
    tok = Tokenizer.from_file(f"{splade}/tokenizer.json")
    tok.no_padding()
    text = "Cached results stay valid for 15 minutes"
    ids = tok.encode(text).ids
    x = bert(w, cfg, np.array(ids))
    t = x @ w["cls.predictions.transform.dense.weight"].T.astype(np.float64) + w["cls.predictions.transform.dense.bias"]
    t = layer_norm(gelu(t), get(w, "cls.predictions.transform.LayerNorm.weight"),
                   get(w, "cls.predictions.transform.LayerNorm.bias"), cfg["layer_norm_eps"])
    logits = t @ get(w, "embeddings.word_embeddings.weight").T + w["cls.predictions.bias"]
    sp = np.log1p(np.maximum(logits, 0)).max(0)
    top = np.argsort(-sp)[:10]
    print(json.dumps({"splade": [(tok.id_to_token(int(i)), round(float(sp[i]), 4)) for i in top]}))


if __name__ == "__main__":
    main()
