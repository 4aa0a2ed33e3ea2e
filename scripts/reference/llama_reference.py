#!/usr/bin/python3
"""Reference forward pass for Llama-architecture (Llama 3 / 3.1 / 3.2, SmolLM2) and Qwen2 models, in plain PyTorch.

Written for Ladder as an independent check of the Java engine: no transformers, no safetensors package. It reads a
Hugging Face model directory (config.json, model.safetensors or shards), runs the decoder on token ids and writes
the logits of every position, and optionally greedy continuation ids computed with a KV cache.

  llama_reference.py --model DIR --ids 1,2,3 [--generate 8] [--dtype float64] [--out FILE.json]
  llama_reference.py --model DIR --bench [--threads 4] [--prompt 128] [--steps 32]

For steady --bench timings set OPENBLAS_NUM_THREADS (Debian's torch calls OpenBLAS) to the --threads value; on a
shared machine timings vary a lot between runs.

--out FILE.json writes a JSON header (ids, logits shape, greedy ids, model sha256, ...) and FILE.f32 beside it with
the logits as raw little-endian float32, row-major [positions, vocab]. Without --out a summary is printed.
"""
import argparse
import hashlib
import json
import math
import os
import struct
import sys
import time

import numpy as np
import torch

DTYPES = {
    "F64": (np.float64, 8), "F32": (np.float32, 4), "F16": (np.float16, 2), "BF16": (np.uint16, 2),
    "I64": (np.int64, 8), "I32": (np.int32, 4), "I16": (np.int16, 2), "I8": (np.int8, 1), "U8": (np.uint8, 1),
}


# ----------------------------------------------------------------------------------------------------------------
# safetensors, by hand

def read_safetensors(path, wanted=None):
    """Returns {name: float32 torch tensor} for one .safetensors file (bf16 and f16 widened exactly)."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        if n <= 0 or 8 + n > size:
            raise SystemExit(f"corrupt safetensors header length {n} in {path}")
        header = json.loads(f.read(n).decode("utf-8"))
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + n)
    out = {}
    for name, entry in header.items():
        if name == "__metadata__" or (wanted is not None and name not in wanted):
            continue
        np_dtype, width = DTYPES[entry["dtype"]]
        begin, end = entry["data_offsets"]
        shape = tuple(entry["shape"])
        count = int(np.prod(shape)) if shape else 1
        if end - begin != count * width or end > data.shape[0]:
            raise SystemExit(f"bad data_offsets for {name} in {path}")
        raw = np.frombuffer(data[begin:end], dtype=np_dtype, count=count)
        if entry["dtype"] == "BF16":
            # bf16 bits are the top half of a float32: widen through int32
            t = torch.from_numpy(raw.astype(np.int32) << 16).view(torch.float32)
        else:
            t = torch.from_numpy(raw.astype(np.float32) if entry["dtype"] in ("F16", "F64") else raw.copy())
        out[name] = t.reshape(shape)
    return out


def load_weights(model_dir):
    index = os.path.join(model_dir, "model.safetensors.index.json")
    single = os.path.join(model_dir, "model.safetensors")
    tensors = {}
    if os.path.exists(index):
        with open(index) as f:
            weight_map = json.load(f)["weight_map"]
        for shard in sorted(set(weight_map.values())):
            tensors.update(read_safetensors(os.path.join(model_dir, shard)))
    elif os.path.exists(single):
        tensors = read_safetensors(single)
    else:
        files = sorted(p for p in os.listdir(model_dir) if p.endswith(".safetensors"))
        if not files:
            raise SystemExit(f"no .safetensors weights in {model_dir}")
        for p in files:
            tensors.update(read_safetensors(os.path.join(model_dir, p)))
    return tensors


# ----------------------------------------------------------------------------------------------------------------
# config

class Config:
    def __init__(self, model_dir):
        with open(os.path.join(model_dir, "config.json")) as f:
            c = json.load(f)
        arch = (c.get("architectures") or [c.get("model_type", "?")])[0]
        if arch in ("LlamaForCausalLM", "llama"):
            self.qwen2 = False
        elif arch in ("Qwen2ForCausalLM", "qwen2"):
            self.qwen2 = True
        else:
            raise SystemExit(f"unsupported architecture {arch!r}")
        self.hidden = c["hidden_size"]
        self.intermediate = c["intermediate_size"]
        self.layers = c["num_hidden_layers"]
        self.heads = c["num_attention_heads"]
        self.kv_heads = c.get("num_key_value_heads") or self.heads
        self.head_dim = c.get("head_dim") or self.hidden // self.heads
        self.vocab = c["vocab_size"]
        self.eps = c.get("rms_norm_eps", 1e-6)
        self.theta = c.get("rope_theta", 10000.0)
        self.tied = c.get("tie_word_embeddings", False)
        self.bias = c.get("attention_bias", self.qwen2)
        scaling = c.get("rope_scaling")
        self.rope_scaling = None
        if scaling:
            kind = scaling.get("rope_type", scaling.get("type"))
            if kind == "llama3":
                self.rope_scaling = scaling
            elif kind != "default":
                raise SystemExit(f"unsupported rope_scaling {kind!r}")


# ----------------------------------------------------------------------------------------------------------------
# model

def inverse_frequencies(cfg, dtype):
    """theta^(-2i/d) for i < d/2, with Llama 3 scaling: short wavelengths kept, long ones divided by factor,
    a linear blend (in 1/wavelength) between the two bands."""
    d = cfg.head_dim
    inv = 1.0 / (cfg.theta ** (torch.arange(0, d, 2, dtype=torch.float64) / d))
    s = cfg.rope_scaling
    if s is not None:
        factor, low, high = s["factor"], s["low_freq_factor"], s["high_freq_factor"]
        original = s["original_max_position_embeddings"]
        long_wave = original / low      # wavelengths above this are scaled fully
        short_wave = original / high    # wavelengths below this are untouched
        scaled = []
        for f in inv.tolist():
            wavelength = 2 * math.pi / f
            if wavelength < short_wave:
                scaled.append(f)
            elif wavelength > long_wave:
                scaled.append(f / factor)
            else:
                t = (original / wavelength - low) / (high - low)
                scaled.append((1 - t) * f / factor + t * f)
        inv = torch.tensor(scaled, dtype=torch.float64)
    return inv.to(dtype)


class Model:
    def __init__(self, model_dir, dtype=torch.float32):
        self.cfg = Config(model_dir)
        self.dtype = dtype
        w = load_weights(model_dir)
        self.w = {k: v.to(dtype) for k, v in w.items()}
        self.embed = self.w["model.embed_tokens.weight"]
        self.head = self.embed if self.cfg.tied or "lm_head.weight" not in self.w else self.w["lm_head.weight"]
        self.inv_freq = inverse_frequencies(self.cfg, dtype)

    def rms_norm(self, x, weight):
        xf = x.to(torch.float64 if self.dtype == torch.float64 else torch.float32)
        xf = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.cfg.eps)
        return weight * xf.to(self.dtype)

    def rope(self, x, positions):
        # x: [B, H, T, D]; rotate-half convention: pairs (i, i + D/2)
        angles = positions.to(self.dtype)[:, None] * self.inv_freq[None, :]      # [T, D/2]
        angles = torch.cat([angles, angles], dim=-1)                             # [T, D]
        cos, sin = angles.cos(), angles.sin()
        half = x.shape[-1] // 2
        rotated = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
        return x * cos + rotated * sin

    def linear(self, x, name, bias=False):
        y = x @ self.w[name + ".weight"].T
        if bias:
            y = y + self.w[name + ".bias"]
        return y

    def forward(self, ids, cache, start):
        """ids: [B, T] long; cache: list of (k, v) per layer or None entries; returns logits [B, T, V]."""
        cfg = self.cfg
        b, t = ids.shape
        x = self.embed[ids]
        positions = torch.arange(start, start + t)
        group = cfg.heads // cfg.kv_heads
        for i in range(cfg.layers):
            p = f"model.layers.{i}."
            h = self.rms_norm(x, self.w[p + "input_layernorm.weight"])
            q = self.linear(h, p + "self_attn.q_proj", cfg.bias).view(b, t, cfg.heads, cfg.head_dim).transpose(1, 2)
            k = self.linear(h, p + "self_attn.k_proj", cfg.bias).view(b, t, cfg.kv_heads, cfg.head_dim).transpose(1, 2)
            v = self.linear(h, p + "self_attn.v_proj", cfg.bias).view(b, t, cfg.kv_heads, cfg.head_dim).transpose(1, 2)
            q = self.rope(q, positions)
            k = self.rope(k, positions)
            if cache[i] is not None:
                k = torch.cat([cache[i][0], k], dim=2)
                v = torch.cat([cache[i][1], v], dim=2)
            cache[i] = (k, v)
            kk = k.repeat_interleave(group, dim=1)
            vv = v.repeat_interleave(group, dim=1)
            scores = (q @ kk.transpose(-1, -2)) / math.sqrt(cfg.head_dim)          # [B, H, T, S]
            s = kk.shape[2]
            key_pos = torch.arange(s)
            mask = key_pos[None, :] > positions[:, None]                           # [T, S]: future keys
            scores = scores.masked_fill(mask, float("-inf"))
            probs = torch.softmax(scores.float() if self.dtype != torch.float64 else scores, dim=-1).to(self.dtype)
            attn = (probs @ vv).transpose(1, 2).reshape(b, t, cfg.heads * cfg.head_dim)
            x = x + self.linear(attn, p + "self_attn.o_proj")
            h = self.rms_norm(x, self.w[p + "post_attention_layernorm.weight"])
            gate = self.linear(h, p + "mlp.gate_proj")
            up = self.linear(h, p + "mlp.up_proj")
            x = x + self.linear(torch.nn.functional.silu(gate) * up, p + "mlp.down_proj")
        x = self.rms_norm(x, self.w["model.norm.weight"])
        return x @ self.head.T

    def new_cache(self):
        return [None] * self.cfg.layers

    @torch.no_grad()
    def logits(self, ids):
        return self.forward(torch.tensor([ids], dtype=torch.long), self.new_cache(), 0)[0]

    @torch.no_grad()
    def greedy(self, ids, steps, margins=None):
        """Greedy continuation with a KV cache; margins (a list) receives top-1 minus top-2 logit per step."""
        cache = self.new_cache()
        logits = self.forward(torch.tensor([ids], dtype=torch.long), cache, 0)
        out = []
        pos = len(ids)
        for _ in range(steps):
            nxt = int(torch.argmax(logits[0, -1]))
            out.append(nxt)
            if margins is not None:
                top = torch.topk(logits[0, -1], 2).values
                margins.append(float(top[0] - top[1]))
            logits = self.forward(torch.tensor([[nxt]], dtype=torch.long), cache, pos)
            pos += 1
        return out


# ----------------------------------------------------------------------------------------------------------------
# CLI

def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def bench(model, prompt_len, steps, batches):
    vocab = model.cfg.vocab
    g = torch.Generator().manual_seed(0)
    print(f"threads={torch.get_num_threads()} dtype={model.dtype} prompt={prompt_len} steps={steps}")
    print(f"{'batch':>5} {'prefill tok/s':>14} {'decode ms/step':>15} {'decode tok/s':>13}")
    with torch.no_grad():
        for b in batches:
            ids = torch.randint(0, vocab, (b, prompt_len), generator=g)
            model.forward(ids[:, :8], model.new_cache(), 0)                       # warm up
            cache = model.new_cache()
            t0 = time.perf_counter()
            logits = model.forward(ids, cache, 0)
            t1 = time.perf_counter()
            nxt = logits[:, -1].argmax(-1, keepdim=True)
            t2 = time.perf_counter()
            for s in range(steps):
                logits = model.forward(nxt, cache, prompt_len + s)
                nxt = logits[:, -1].argmax(-1, keepdim=True)
            t3 = time.perf_counter()
            step_ms = (t3 - t2) * 1000 / steps
            print(f"{b:>5} {b * prompt_len / (t1 - t0):>14.1f} {step_ms:>15.2f} {b * 1000 / step_ms:>13.1f}")


class OneLineParser(argparse.ArgumentParser):
    """A usage error is one line and exit status 2, like every Ladder command's (argparse prints the usage first)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: {message} (see --help)\n")


def main():
    ap = OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True, help="Hugging Face model directory")
    ap.add_argument("--ids", help="comma-separated token ids")
    ap.add_argument("--generate", type=int, default=0, help="greedy continuation steps (KV cache)")
    ap.add_argument("--dtype", choices=["float32", "float64"], default="float32", help="compute dtype")
    ap.add_argument("--out", help="FILE.json: header JSON, logits in FILE.f32")
    ap.add_argument("--meta", action="append", default=[], help="KEY=VALUE added to the header")
    ap.add_argument("--bench", action="store_true", help="time prefill and KV-cached decode")
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0: torch default)")
    ap.add_argument("--prompt", type=int, default=128, help="bench prompt length")
    ap.add_argument("--steps", type=int, default=32, help="bench decode steps")
    ap.add_argument("--batches", default="1,4,16", help="bench batch sizes")
    args = ap.parse_args()
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    dtype = torch.float64 if args.dtype == "float64" else torch.float32
    model = Model(args.model, dtype)
    if args.bench:
        bench(model, args.prompt, args.steps, [int(b) for b in args.batches.split(",")])
        return
    if not args.ids:
        ap.error("--ids or --bench is required")
    ids = [int(x) for x in args.ids.split(",") if x.strip()]
    bad = [i for i in ids if not 0 <= i < model.cfg.vocab]
    if bad:
        raise SystemExit(f"ids outside the vocabulary of {model.cfg.vocab}: {bad}")
    logits = model.logits(ids).to(torch.float32)
    margins = []
    greedy = model.greedy(ids, args.generate, margins) if args.generate > 0 else []
    if args.out:
        base = args.out[:-5] if args.out.endswith(".json") else args.out
        data_file = base + ".f32"
        logits.numpy().astype("<f4").tofile(data_file)
        header = {}
        for kv in args.meta:
            k, _, v = kv.partition("=")
            header[k] = int(v) if v.lstrip("-").isdigit() else v
        weights = os.path.join(args.model, "model.safetensors")
        header.update({
            "model_sha256": sha256(weights) if os.path.exists(weights) else None,
            "reference": f"scripts/reference/llama_reference.py --dtype {args.dtype} (torch {torch.__version__})",
            "ids": ids,
            "logits_file": os.path.basename(data_file),
            "logits_shape": list(logits.shape),
            "logits_dtype": "float32 little-endian, row-major [position, vocab]",
            "generate_steps": args.generate,
            "greedy": greedy,
            "greedy_margins": [float(f"{m:.6g}") for m in margins],
        })
        with open(base + ".json", "w") as f:   # one key per line, lists kept on one line
            f.write("{\n" + ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in header.items()) + "\n}\n")
    else:
        last = logits[-1]
        top = torch.topk(last, 5)
        print(f"positions={logits.shape[0]} vocab={logits.shape[1]}")
        print("last-position top-5:", [(int(i), round(float(v), 5)) for v, i in zip(top.values, top.indices)])
        if greedy:
            print("greedy:", ",".join(map(str, greedy)))


if __name__ == "__main__":
    sys.exit(main())
