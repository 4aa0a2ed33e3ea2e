#!/usr/bin/python3
"""Exports a Llama-architecture (or Qwen2) model directory to ONNX in the layouts Ladder's onnx engine reads.

Written for Ladder as the reference exporter of its ONNX tests: the forward pass is the plain-PyTorch reference of
llama_reference.py (same folder), wrapped with the inputs and outputs Hugging Face Optimum's decoder exports use:

  inputs   input_ids [batch, seq] int64, attention_mask [batch, past + seq] int64, position_ids [batch, seq] int64,
           past_key_values.N.key / .value [batch, kv_heads, past, head_dim] float32
  outputs  logits [batch, seq, vocab] float32, present.N.key / .value [batch, kv_heads, past + seq, head_dim]

  export_onnx.py --model DIR --out DIR [--layout optimum|genai] [--int4] [--block 32]

--layout optimum writes model.onnx plus config.json, tokenizer files and generation_config.json copied from the model;
--layout genai writes the same graph as model.onnx with a genai_config.json in ONNX Runtime GenAI's form instead of
config.json. --int4 rewrites every MatMul whose weight is a constant into ONNX Runtime's com.microsoft MatMulNBits
(4-bit, symmetric per block of --block input rows, zero point 8), the way the GenAI model builder stores int4 weights.
Needs /usr/bin/python3 with torch (Debian python3-torch) and onnx (python3-onnx).
"""
import argparse
import json
import math
import os
import shutil
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import llama_reference as ref  # noqa: E402

import onnx  # noqa: E402
from onnx import helper, numpy_helper, TensorProto  # noqa: E402

MASKED = -1e9


class Decoder(torch.nn.Module):
    """The reference model with an attention mask, explicit positions and a key/value cache as inputs and outputs."""

    def __init__(self, model):
        super().__init__()
        self.cfg = model.cfg
        self.w = {k: torch.nn.Parameter(v, requires_grad=False) for k, v in model.w.items()}
        for i, (k, v) in enumerate(self.w.items()):
            self.register_parameter(f"w{i}", v)
        self.head = self.w["lm_head.weight"] if "lm_head.weight" in self.w and not self.cfg.tied \
            else self.w["model.embed_tokens.weight"]
        self.register_buffer("inv_freq", model.inv_freq.to(torch.float32))

    def linear(self, x, name, bias=False):
        y = torch.matmul(x, self.w[name + ".weight"].t())
        if bias:
            y = y + self.w[name + ".bias"]
        return y

    def norm(self, x, weight):
        return weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.cfg.eps))

    def rope(self, x, positions):
        # x [B, H, T, D]; positions [B, T]
        angles = positions.to(torch.float32)[..., None] * self.inv_freq[None, None, :]   # [B, T, D/2]
        angles = torch.cat([angles, angles], dim=-1)[:, None, :, :]                    # [B, 1, T, D]
        half = x.shape[-1] // 2
        rotated = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
        return x * angles.cos() + rotated * angles.sin()

    def forward(self, input_ids, attention_mask, position_ids, *past):
        cfg = self.cfg
        b, t = input_ids.shape
        x = self.w["model.embed_tokens.weight"][input_ids]
        past_len = past[0].shape[2]
        s = past_len + t
        # a key is hidden when it lies in a query's future or is padding
        key_index = torch.arange(s)[None, :]
        query_index = (torch.arange(t) + past_len)[:, None]
        future = (key_index > query_index)[None, None, :, :]
        padding = (attention_mask == 0)[:, None, None, :]
        hidden = torch.logical_or(future, padding)
        group = cfg.heads // cfg.kv_heads
        presents = []
        for i in range(cfg.layers):
            p = f"model.layers.{i}."
            h = self.norm(x, self.w[p + "input_layernorm.weight"])
            q = self.linear(h, p + "self_attn.q_proj", cfg.bias).view(b, t, cfg.heads, cfg.head_dim).transpose(1, 2)
            k = self.linear(h, p + "self_attn.k_proj", cfg.bias).view(b, t, cfg.kv_heads, cfg.head_dim).transpose(1, 2)
            v = self.linear(h, p + "self_attn.v_proj", cfg.bias).view(b, t, cfg.kv_heads, cfg.head_dim).transpose(1, 2)
            q = self.rope(q, position_ids)
            k = self.rope(k, position_ids)
            k = torch.cat([past[2 * i], k], dim=2)
            v = torch.cat([past[2 * i + 1], v], dim=2)
            presents += [k, v]
            # grouped-query attention: each key/value head serves `group` query heads (expand, not repeat_interleave:
            # the exporter keeps the batch and length dimensions dynamic this way)
            kk = k.unsqueeze(2).expand(-1, -1, group, -1, -1).reshape(k.shape[0], cfg.heads, k.shape[2], cfg.head_dim)
            vv = v.unsqueeze(2).expand(-1, -1, group, -1, -1).reshape(v.shape[0], cfg.heads, v.shape[2], cfg.head_dim)
            scores = torch.matmul(q, kk.transpose(-1, -2)) / math.sqrt(cfg.head_dim)
            scores = scores.masked_fill(hidden, MASKED)
            attn = torch.matmul(torch.softmax(scores, dim=-1), vv).transpose(1, 2).reshape(b, t, cfg.heads * cfg.head_dim)
            x = x + self.linear(attn, p + "self_attn.o_proj")
            h = self.norm(x, self.w[p + "post_attention_layernorm.weight"])
            x = x + self.linear(torch.nn.functional.silu(self.linear(h, p + "mlp.gate_proj")) * self.linear(h, p + "mlp.up_proj"),
                                p + "mlp.down_proj")
        x = self.norm(x, self.w["model.norm.weight"])
        return (torch.matmul(x, self.head.t()),) + tuple(presents)


def export(model_dir, out_path):
    model = ref.Model(model_dir, torch.float32)
    dec = Decoder(model).eval()
    cfg = model.cfg
    b, t, past = 2, 3, 2
    ids = torch.randint(0, cfg.vocab, (b, t))
    mask = torch.ones(b, past + t, dtype=torch.long)
    pos = torch.arange(past, past + t)[None, :].repeat(b, 1)
    pasts = [torch.zeros(b, cfg.kv_heads, past, cfg.head_dim) for _ in range(2 * cfg.layers)]
    past_names, present_names = [], []
    for i in range(cfg.layers):
        past_names += [f"past_key_values.{i}.key", f"past_key_values.{i}.value"]
        present_names += [f"present.{i}.key", f"present.{i}.value"]
    dynamic = {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "total"},
               "position_ids": {0: "batch", 1: "sequence"}, "logits": {0: "batch", 1: "sequence"}}
    for n in past_names:
        dynamic[n] = {0: "batch", 2: "past"}
    for n in present_names:
        dynamic[n] = {0: "batch", 2: "total"}
    with torch.no_grad():
        torch.onnx.export(dec, (ids, mask, pos, *pasts), out_path, opset_version=14,
                          input_names=["input_ids", "attention_mask", "position_ids"] + past_names,
                          output_names=["logits"] + present_names, dynamic_axes=dynamic, do_constant_folding=True)
    return cfg


def quantize_int4(path, block):
    """Every MatMul with a constant 2-D weight [K, N] becomes com.microsoft MatMulNBits (bits 4, block_size block)."""
    m = onnx.load(path)
    g = m.graph
    inits = {i.name: i for i in g.initializer}
    new_nodes = []
    dropped = set()
    for node in g.node:
        if node.op_type == "MatMul" and node.input[1] in inits and len(inits[node.input[1]].dims) == 2:
            w = numpy_helper.to_array(inits[node.input[1]]).astype(np.float32)   # [K, N]
            k, n = w.shape
            blocks = (k + block - 1) // block
            padded = np.zeros((blocks * block, n), dtype=np.float32)
            padded[:k] = w
            wt = padded.T.reshape(n, blocks, block)                               # [N, blocks, block]
            scale = np.abs(wt).max(axis=2) / 7.0
            scale[scale == 0] = 1.0
            q = np.clip(np.round(wt / scale[:, :, None]) + 8, 0, 15).astype(np.uint8)
            packed = (q[:, :, 0::2] | (q[:, :, 1::2] << 4)).astype(np.uint8)     # [N, blocks, block/2]
            base = node.input[1]
            qname, sname = base + "_q4", base + "_scales"
            g.initializer.append(numpy_helper.from_array(packed, qname))
            g.initializer.append(numpy_helper.from_array(scale.astype(np.float32).reshape(-1), sname))
            dropped.add(base)
            new_nodes.append(helper.make_node("MatMulNBits", [node.input[0], qname, sname], list(node.output),
                                              name=node.name + "_q4", domain="com.microsoft",
                                              K=k, N=n, bits=4, block_size=block))
        else:
            new_nodes.append(node)
    del g.node[:]
    g.node.extend(new_nodes)
    used = {i for nd in g.node for i in nd.input}
    keep = [i for i in g.initializer if i.name not in dropped or i.name in used]
    del g.initializer[:]
    g.initializer.extend(keep)
    if not any(o.domain == "com.microsoft" for o in m.opset_import):
        m.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    onnx.save(m, path)
    return sum(1 for nd in g.node if nd.op_type == "MatMulNBits")


def genai_config(cfg, model_dir):
    with open(os.path.join(model_dir, "config.json")) as f:
        c = json.load(f)
    eos = c.get("eos_token_id", 0)
    return {
        "model": {
            "type": "qwen2" if cfg.qwen2 else "llama",
            "context_length": c.get("max_position_embeddings", 2048),
            "vocab_size": cfg.vocab,
            "bos_token_id": c.get("bos_token_id", 0),
            "eos_token_id": eos,
            "pad_token_id": c.get("pad_token_id", eos if isinstance(eos, int) else eos[0]),
            "decoder": {
                "filename": "model.onnx",
                "head_size": cfg.head_dim,
                "hidden_size": cfg.hidden,
                "num_attention_heads": cfg.heads,
                "num_key_value_heads": cfg.kv_heads,
                "num_hidden_layers": cfg.layers,
                "inputs": {"input_ids": "input_ids", "attention_mask": "attention_mask", "position_ids": "position_ids",
                           "past_key_names": "past_key_values.%d.key", "past_value_names": "past_key_values.%d.value"},
                "outputs": {"logits": "logits", "present_key_names": "present.%d.key",
                            "present_value_names": "present.%d.value"},
            },
        },
        "search": {"max_length": c.get("max_position_embeddings", 2048), "do_sample": False},
    }


def main():
    ap = ref.OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--layout", choices=["optimum", "genai"], default="optimum")
    ap.add_argument("--int4", action="store_true")
    ap.add_argument("--block", type=int, default=32)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "model.onnx")
    cfg = export(args.model, path)
    if args.int4:
        print(f"{quantize_int4(path, args.block)} MatMul nodes as MatMulNBits (4-bit, block {args.block})")
    for name in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "generation_config.json"):
        src = os.path.join(args.model, name)
        if os.path.exists(src):
            shutil.copy(src, os.path.join(args.out, name))
    if args.layout == "optimum":
        shutil.copy(os.path.join(args.model, "config.json"), os.path.join(args.out, "config.json"))
    else:
        with open(os.path.join(args.out, "genai_config.json"), "w") as f:
            json.dump(genai_config(cfg, args.model), f, indent=2)
    print(f"wrote {args.out} ({args.layout}{', int4' if args.int4 else ''}; torch {torch.__version__}, onnx {onnx.__version__})")


if __name__ == "__main__":
    main()
