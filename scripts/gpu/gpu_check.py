#!/usr/bin/env python3
"""The run half of scripts/gpu-check: everything a lent GPU machine can check of Ladder's GPU path, in one command.

  scripts/gpu-check run --out DIR [--bundle DIR] [--skip PART,...] [--budget SECONDS] [--device cuda|cpu] [--big SHAPE]

The machine has Python with torch (and, on the GPU machines this project is lent, transformers and peft), CMake and a
compiler, and no Java: the bundle that `scripts/gpu-check prepare` wrote (default: .gpu-check in the checkout) brings a
Java runtime, Ladder's jars, the JNI headers and DJL's bridge sources. Parts, in order (each can be skipped; each is
left out, and says so, when the budget cannot hold it):

  bridge     build DJL's bridge against this machine's torch (scripts/build-bridge), CUDA when torch has it
  env        `ladder env` through that bridge, next to what torch and nvidia-smi say
  parity     a small random Llama-3-layout checkpoint (bf16 safetensors, Hugging Face names): Ladder's logits and greedy
             tokens in f16 and int8 against transformers' LlamaForCausalLM in float32 (int8: on the dequantised
             weights), or scripts/reference/llama_reference.py where transformers is missing
  adapter    a LoRA adapter written by peft for that checkpoint: Ladder's load-time merge and `ladder adapters merge`
             against peft's merge_and_unload()
  e2e        `ladder run` of a few train items of ClassicModels in SQLite through prompt and agent rungs
  bench      a random checkpoint of the real Llama-3-8B shape (bf16): `ladder bench generate` in f16 and int8 (load
             time, host peak RSS, prefill and decode tok/s at batch 1, 4, 16, roofline share), the device's peak memory
             (nvidia-smi, sampled) against `ladder model plan`, and memory back to baseline once the model is closed

Writes DIR/gpu-check.json (every figure), DIR/gpu-check.md (the summary) and DIR/gpu-check.log (command output
tails) after each part, so a run cut short still leaves what it measured. The clock is the script's own: --budget
(default 540 s) bounds the whole run.
"""
import argparse
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time

PARTS = ["bridge", "env", "parity", "adapter", "e2e", "bench"]   # the long one last: it takes what is left
# seconds a part needs at least to be worth starting (measured on an H100-class machine, with slack)
NEEDS = {"bridge": 60, "env": 10, "parity": 45, "adapter": 45, "bench": 150, "e2e": 45}
LLAMA3_8B = dict(hidden_size=4096, intermediate_size=14336, num_hidden_layers=32, num_attention_heads=32,
                 num_key_value_heads=8, vocab_size=128256, max_position_embeddings=8192, rope_theta=500000.0)
# the parity model: Llama-3's vocabulary and attention layout (GQA 4:1), small enough for float32 references
SMALL = dict(hidden_size=512, intermediate_size=1536, num_hidden_layers=4, num_attention_heads=8,
             num_key_value_heads=2, vocab_size=128256, max_position_embeddings=8192, rope_theta=500000.0)
TINY = dict(hidden_size=128, intermediate_size=344, num_hidden_layers=2, num_attention_heads=4,
            num_key_value_heads=2, vocab_size=4096, max_position_embeddings=2048, rope_theta=500000.0)
PROMPT_IDS = [128000, 791, 4062, 14198, 39935, 35308, 927, 279, 16053, 5679, 13, 3639, 374, 1202]


class NotHere(Exception):
    """What this machine lacks for a part (a Python package, the bundle's benchmark): the part is skipped, not failed."""


class Check:
    def __init__(self, args):
        self.args = args
        self.start = time.monotonic()
        self.out = os.path.abspath(args.out)
        os.makedirs(self.out, exist_ok=True)
        self.work = tempfile.mkdtemp(prefix="ladder-gpu-check.", dir=args.work)
        self.result = {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "budget_s": args.budget,
                       "device": args.device, "parts": {}}
        self.log_lines = []
        self.bridge_dir = os.path.join(self.work, "bridge")

    # ---- bookkeeping ------------------------------------------------------------------------------------------------
    def left(self):
        return self.args.budget - (time.monotonic() - self.start)

    def log(self, text):
        self.log_lines.append(text)
        print(text, flush=True)

    def save(self):
        self.result["elapsed_s"] = round(time.monotonic() - self.start, 1)
        write_atomic(os.path.join(self.out, "gpu-check.json"), json.dumps(self.result, indent=2, sort_keys=False))
        write_atomic(os.path.join(self.out, "gpu-check.md"), summary(self.result))
        text = "\n".join(self.log_lines)
        write_atomic(os.path.join(self.out, "gpu-check.log"), text[-4_000_000:])

    def part(self, name, fn):
        entry = {"status": "skipped"}
        self.result["parts"][name] = entry
        if name in self.args.skip:
            entry["why"] = "--skip"
        elif self.left() < NEEDS[name]:
            entry["why"] = f"out of time ({self.left():.0f} s left, needs about {NEEDS[name]} s)"
        elif name != "bridge" and self.result["parts"].get("bridge", {}).get("status") not in ("ok",):
            entry["why"] = "no bridge"
        else:
            t0 = time.monotonic()
            self.log(f"== {name} ({self.left():.0f} s left)")
            try:
                entry.update(fn() or {})
                entry["status"] = "ok"
            except NotHere as e:   # what this machine lacks (peft, a benchmark): not a failure of Ladder's
                entry["why"] = str(e)
                self.log(f"{name} skipped: {e}")
            except Exception as e:   # one part's failure must not cost the others
                entry["status"] = "failed"
                entry["error"] = str(e)[-2000:]
                self.log(f"{name} failed: {str(e)[-2000:]}")
            entry["seconds"] = round(time.monotonic() - t0, 1)
        self.save()

    # ---- running things ---------------------------------------------------------------------------------------------
    def run(self, cmd, timeout=None, env=None, check=True):
        timeout = max(5, min(timeout or self.left(), self.left()))
        t0 = time.monotonic()
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        self.log(f"$ {' '.join(cmd)}  [{time.monotonic() - t0:.1f} s, exit {p.returncode}]")
        tail = (p.stdout[-3000:] + ("\n" if p.stdout else "") + p.stderr[-3000:]).strip()
        if tail:
            self.log(tail)
        if check and p.returncode != 0:
            raise RuntimeError(f"{cmd[0] if cmd[0] != self.java else 'ladder'} {' '.join(cmd[-6:])}: exit {p.returncode}: "
                               + (p.stderr.strip().splitlines() or ["(no message)"])[-1])
        return p

    @property
    def java(self):
        return os.path.join(self.args.bundle, "java", "bin", "java")

    def ladder(self, *args, timeout=None, check=True):
        jna = cuda_runtime_dirs()
        cmd = [self.java, "-Dai.djl.offline=true", "-Dladder.torch=bridge", "-Dladder.torch.source=gpu-check",
               f"-Dladder.bridge.dir={self.bridge_dir}", f"-Dladder.home={self.args.root}",
               *([f"-Djna.library.path={os.pathsep.join(jna)}"] if jna else []),
               "-cp", os.path.join(self.args.bundle, "lib", "*"), "dev.ladder.cli.Ladder", *args]
        env = dict(os.environ, LADDER_CACHE_DIR=os.path.join(self.work, "cache"),
                   DJL_CACHE_DIR=os.path.join(self.work, "djl"), LADDER_NO_PROGRESS="1")
        return self.run(cmd, timeout=timeout, env=env, check=check)

    # ---- parts ------------------------------------------------------------------------------------------------------
    def bridge(self):
        env = dict(os.environ, LADDER_JNI_HEADERS=os.path.join(self.args.bundle, "jni"),
                   LADDER_DJL_SOURCES=os.path.join(self.args.bundle, "djl-0.35.1"))
        cuda = "on" if self.args.device == "cuda" else "auto"
        self.run([os.path.join(self.args.root, "scripts", "build-bridge"), "--python", sys.executable,
                  "--out", self.bridge_dir, "--cuda", cuda], env=env, timeout=300)
        props = read_properties(os.path.join(self.bridge_dir, "bridge.properties"))
        return {"bridge": props}

    def env(self):
        p = self.ladder("env", "--json")
        env = json.loads(p.stdout.strip().splitlines()[-1])
        import torch
        facts = {"ladder_env": env, "torch": torch.__version__, "torch_cuda": torch.version.cuda}
        if torch.cuda.is_available():
            props = torch.cuda.get_device_properties(0)
            facts.update(gpu=props.name, capability=f"{props.major}.{props.minor}", gpu_memory_bytes=props.total_memory,
                         bf16_supported_by_torch=torch.cuda.is_bf16_supported())
        smi = shutil.which("nvidia-smi")
        if smi:
            q = self.run([smi, "--query-gpu=name,driver_version,memory.total,memory.used", "--format=csv,noheader"],
                         check=False)
            facts["nvidia_smi"] = q.stdout.strip()
        if self.args.device == "cuda" and env.get("pytorch.cuda") != "true":
            raise RuntimeError("the bridge's libtorch loaded without CUDA: " + json.dumps(env))
        return facts

    def parity(self):
        model = os.path.join(self.work, "small")
        write_llama(model, SMALL, seed=11, head_std=0.5)
        ref = reference(model, PROMPT_IDS, steps=8, device=self.args.device)
        ref_i8 = reference(model, PROMPT_IDS, steps=8, device=self.args.device, int8=True)
        out = {"model": describe(SMALL), "reference": ref["by"], "prompt_tokens": len(PROMPT_IDS)}
        dtypes = ["f16", "int8"] if self.args.device == "cuda" else ["f32", "int8"]
        for dtype in dtypes:
            got = self.logits(model, dtype)
            out[dtype] = compare(got, ref_i8 if dtype == "int8" else ref, BOUNDS[dtype])
        bad = [d for d in dtypes if not out[d]["within_bound"]]
        if bad:
            raise RuntimeError("parity outside the stated bounds for " + ", ".join(bad) + ": " + json.dumps(
                {d: {k: out[d][k] for k in ("relative", "bound", "greedy_equal", "margin_at_first_difference")} for d in bad}))
        return out

    def adapter(self):
        try:
            import peft  # noqa: F401
        except ImportError:
            raise NotHere("peft is not installed here")
        model = os.path.join(self.work, "small")
        if not os.path.exists(os.path.join(model, "config.json")):
            write_llama(model, SMALL, seed=11, head_std=0.5)
        adapter_dir = os.path.join(self.work, "lora")
        merged_ref = peft_adapter(model, adapter_dir, PROMPT_IDS, 8, self.args.device)
        dtype = "f16" if self.args.device == "cuda" else "f32"
        out = {"reference": merged_ref["by"], "lora": merged_ref["lora"]}
        out["load_time_merge"] = compare(self.logits(model, dtype, adapter=adapter_dir), merged_ref, BOUNDS[dtype])
        merged = os.path.join(self.work, "merged")
        self.ladder("adapters", "merge", "--base", model, "--adapter", adapter_dir, "--out", merged, "--dtype", "f32")
        out["adapters_merge"] = compare(self.logits(merged, dtype), merged_ref, BOUNDS[dtype])
        # the adapter must change something, or the comparison above proves nothing
        base = reference(model, PROMPT_IDS, steps=0, device=self.args.device)
        out["adapter_effect_max_abs"] = max_abs_diff(base["logits"], merged_ref["logits"])
        bad = [k for k in ("load_time_merge", "adapters_merge") if not out[k]["within_bound"]]
        if bad or out["adapter_effect_max_abs"] <= 10 * max(out[k]["max_abs_diff"] for k in ("load_time_merge", "adapters_merge")):
            raise RuntimeError("adapter parity: " + json.dumps({k: out[k]["relative"] for k in ("load_time_merge", "adapters_merge")})
                               + f", the adapter's own effect {out['adapter_effect_max_abs']:.4g}")
        return out

    def logits(self, model, dtype, adapter=None):
        target = os.path.join(self.work, f"logits-{os.path.basename(model)}-{dtype}{'-lora' if adapter else ''}.json")
        args = ["model", "logits", "--model", model, "--dtype", dtype, "--device", self.args.device,
                "--prompt-ids", ",".join(map(str, PROMPT_IDS)), "--generate", "8", "--out", target]
        if adapter:
            args += ["--adapter", adapter]
        self.ladder(*args)
        with open(target) as f:
            head = json.load(f)
        import numpy as np
        data = np.fromfile(os.path.join(os.path.dirname(target), head["logits_file"]), dtype="<f4")
        head["logits"] = data.reshape(head["shape"])
        return head

    def bench(self):
        shape = LLAMA3_8B if self.args.big == "llama3-8b" else SMALL if self.args.big == "small" else TINY
        model = os.path.join(self.work, "big")
        t0 = time.monotonic()
        size = write_llama(model, shape, seed=5, head_std=0.02, device=self.args.device)
        out = {"model": describe(shape), "checkpoint_bytes": size, "checkpoint_write_s": round(time.monotonic() - t0, 1)}
        budget_arg = []
        if self.args.device == "cuda":
            import torch
            total = torch.cuda.get_device_properties(0).total_memory
            budget_arg = ["--gpu-memory", str(total)]
        for dtype in (["f16", "int8"] if self.args.device == "cuda" else ["f32", "int8"]):
            if self.left() < 60:
                out[dtype] = {"skipped": f"out of time ({self.left():.0f} s left)"}
                continue
            sampler = GpuSampler() if self.args.device == "cuda" else None
            try:
                p = self.ladder("bench", "generate", "--model", model, "--device", self.args.device, "--dtype", dtype,
                                "--batches", self.args.bench_batches, "--prompt-tokens", str(self.args.bench_prompt),
                                "--new-tokens", str(self.args.bench_new), "--json")
            finally:
                peak = sampler.stop() if sampler else None
            r = json.loads(p.stdout.strip().splitlines()[-1])
            plan_args = ["model", "plan", model, "--device", self.args.device, "--dtype", dtype,
                         "--rows", str(max(int(b) for b in self.args.bench_batches.split(","))),
                         "--context", str(self.args.bench_prompt + self.args.bench_new)] + budget_arg
            plan = self.ladder(*plan_args, check=False)
            r["plan"] = parse_plan(plan.stdout)
            if peak is not None:
                r["nvidia_smi_peak_used_bytes"] = peak["peak"]
                r["nvidia_smi_baseline_used_bytes"] = peak["baseline"]
                r["measured_process_peak_bytes"] = peak["peak"] - peak["baseline"]
                if r["plan"].get("total_bytes"):
                    r["plan_over_measured"] = r["plan"]["total_bytes"] / max(1, peak["peak"] - peak["baseline"])
            before, after = r.get("gpu_used_before_load_bytes"), r.get("gpu_used_after_close_bytes")
            if before is not None and after is not None:
                r["resident_after_close_bytes"] = after - before
            if before is not None and r.get("gpu_used_after_run_bytes") is not None:
                # what PyTorch holds after the run (its cache keeps the peak) beside the plan less its CUDA-context share
                r["torch_reserved_after_run_bytes"] = r["gpu_used_after_run_bytes"] - before
                if r["plan"].get("total_bytes") and r["plan"].get("overhead_bytes") is not None:
                    r["plan_without_overhead_bytes"] = r["plan"]["total_bytes"] - r["plan"]["overhead_bytes"]
            out[dtype] = r
        return out

    def e2e(self):
        bench = os.path.join(self.args.bundle, "bench", "classicmodels")
        if not os.path.isdir(bench):
            raise NotHere(f"no SQLite benchmark in the bundle ({bench}): prepare could not export it")
        tiny = os.path.join(self.work, "tiny-chat")
        self.ladder("model", "make-tiny", tiny, "--shape", "tiny", "--seed", "7")
        run_dir = os.path.join(self.work, "e2e-run")
        yaml = os.path.join(self.work, "e2e.yaml")
        with open(yaml, "w") as f:
            f.write(E2E_YAML.format(bench=bench, model=tiny, device=self.args.device, out=run_dir))
        t0 = time.monotonic()
        p = self.ladder("run", yaml, "--shard", "1/1", timeout=240)
        seconds = time.monotonic() - t0
        rungs = {m.group(1): {"items": int(m.group(2)), "seconds": float(m.group(3))}
                 for m in re.finditer(r"^(prompt-k\d|agent-\d): (\d+) items in ([\d.]+) s", p.stdout + p.stderr, re.M)}
        if not rungs:
            raise RuntimeError("ladder run printed no rung: " + (p.stdout + p.stderr)[-500:])
        return {"seconds": round(seconds, 1), "rungs": rungs, "stdout_tail": p.stdout[-1500:]}


E2E_YAML = """# scripts/gpu-check e2e: a random tiny model through prompt and agent rungs on CUDA (not a measurement of quality)
name: gpu-check-e2e
benchmark: {bench}
split: train
limit: 3
output: {out}
models:
  tiny:
    path: {model}
    device: {device}
settings:
  max_new_tokens: 24
  candidates: 2
strategies:
  - prompt-k0
  - prompt-k3
  - agent-1
  - agent-3
"""


def cuda_runtime_dirs():
    """Folders holding libcudart: DJL counts GPUs through JNA, which must find it (pip's NVIDIA packages, a toolkit)."""
    import glob
    try:
        import torch
        site = os.path.dirname(os.path.dirname(torch.__file__))
    except ImportError:
        site = None
    candidates = (glob.glob(os.path.join(site, "nvidia", "*", "lib")) if site else []) + ["/usr/local/cuda/lib64"]
    return [d for d in candidates if glob.glob(os.path.join(d, "libcudart.so*"))]


# ---- checkpoints ------------------------------------------------------------------------------------------------------
def describe(shape):
    return {k: shape[k] for k in ("hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
                                  "num_key_value_heads", "vocab_size")} | {"parameters": parameters(shape)}


def parameters(s):
    d, i, l, h, kv, v = (s["hidden_size"], s["intermediate_size"], s["num_hidden_layers"], s["num_attention_heads"],
                         s["num_key_value_heads"], s["vocab_size"])
    hd = d // h
    return 2 * v * d + l * (d * h * hd + 2 * d * kv * hd + h * hd * d + 3 * d * i + 2 * d) + d


def write_llama(path, shape, seed, head_std, device="cpu"):
    """A random Llama checkpoint in Hugging Face's layout and names, bf16 safetensors in shards of ~4 GB."""
    import torch
    os.makedirs(path, exist_ok=True)
    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_act": "silu",
              "attention_bias": False, "mlp_bias": False, "rms_norm_eps": 1e-5, "tie_word_embeddings": False,
              "bos_token_id": 128000, "eos_token_id": 128001, "torch_dtype": "bfloat16", "rope_scaling": None,
              "head_dim": shape["hidden_size"] // shape["num_attention_heads"], "initializer_range": 0.02, **shape}
    with open(os.path.join(path, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    g = torch.Generator(device=device).manual_seed(seed)
    d, inter, h, kv = shape["hidden_size"], shape["intermediate_size"], shape["num_attention_heads"], shape["num_key_value_heads"]
    hd = d // h
    specs = [("model.embed_tokens.weight", (shape["vocab_size"], d), 1.0)]
    for layer in range(shape["num_hidden_layers"]):
        p = f"model.layers.{layer}."
        specs += [(p + "input_layernorm.weight", (d,), None), (p + "post_attention_layernorm.weight", (d,), None),
                  (p + "self_attn.q_proj.weight", (h * hd, d), 0.02), (p + "self_attn.k_proj.weight", (kv * hd, d), 0.02),
                  (p + "self_attn.v_proj.weight", (kv * hd, d), 0.02), (p + "self_attn.o_proj.weight", (d, h * hd), 0.02),
                  (p + "mlp.gate_proj.weight", (inter, d), 0.02), (p + "mlp.up_proj.weight", (inter, d), 0.02),
                  (p + "mlp.down_proj.weight", (d, inter), 0.02)]
    specs += [("model.norm.weight", (d,), None), ("lm_head.weight", (shape["vocab_size"], d), head_std)]
    shards, current, size = [], [], 0
    for spec in specs:
        n = math.prod(spec[1]) * 2
        if current and size + n > 4 * 1024 ** 3:
            shards.append(current)
            current, size = [], 0
        current.append(spec)
        size += n
    shards.append(current)
    index, total = {}, 0
    for k, shard in enumerate(shards):
        name = "model.safetensors" if len(shards) == 1 else f"model-{k + 1:05d}-of-{len(shards):05d}.safetensors"
        tensors = {}
        for key, dims, std in shard:
            if std is None:   # norms: around 1, not exactly, so that a missing norm shows
                t = 1 + 0.1 * torch.randn(dims, generator=g, device=device)
            else:
                t = torch.randn(dims, generator=g, device=device) * std
            tensors[key] = t.to(torch.bfloat16).cpu()
            index[key] = name
        total += write_safetensors(os.path.join(path, name), tensors)
    if len(shards) > 1:
        with open(os.path.join(path, "model.safetensors.index.json"), "w") as f:
            json.dump({"metadata": {"total_size": total}, "weight_map": index}, f, indent=1)
    return total


def write_safetensors(path, tensors):
    """The safetensors format by hand (an 8-byte header length, a JSON header, the raw bytes): no package needed."""
    import torch
    names = {torch.bfloat16: "BF16", torch.float16: "F16", torch.float32: "F32"}
    header, offset, blobs = {}, 0, []
    for key, t in tensors.items():
        t = t.contiguous()
        raw = (t.view(torch.int16) if t.dtype in (torch.bfloat16, torch.float16) else t).numpy().tobytes()
        header[key] = {"dtype": names[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
        offset += len(raw)
        blobs.append(raw)
    header["__metadata__"] = {"format": "pt"}
    head = json.dumps(header, separators=(",", ":")).encode()
    head += b" " * (-len(head) % 8)
    with open(path + ".tmp", "wb") as f:
        f.write(struct.pack("<Q", len(head)))
        f.write(head)
        for b in blobs:
            f.write(b)
    os.replace(path + ".tmp", path)
    return offset


# ---- references -------------------------------------------------------------------------------------------------------
def dequantised(w):
    """Ladder's int8 round trip of one projection: per output row scale = max|w| / 127 (kept in f16 on a GPU)."""
    import torch
    scale = (w.abs().amax(dim=1, keepdim=True) / 127).clamp_min(1e-12)
    q = torch.round(w / scale).clamp(-127, 127)
    return q * scale.to(torch.float16).to(w.dtype)


PROJECTIONS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


def reference(model_dir, ids, steps, device, int8=False):
    """Logits of every prompt position and the greedy continuation, float32, from transformers when it is installed."""
    import torch
    try:
        from transformers import LlamaForCausalLM
    except ImportError:
        LlamaForCausalLM = None
    if LlamaForCausalLM is not None:
        m = LlamaForCausalLM.from_pretrained(model_dir, torch_dtype=torch.float32).to(device).eval()
        by = f"transformers LlamaForCausalLM, float32 on {device}"
        if int8:
            with torch.no_grad():
                for name, mod in m.named_modules():
                    if name.split(".")[-1] in PROJECTIONS:
                        mod.weight.copy_(dequantised(mod.weight))
            by += ", int8 round trip of the projections"
        return hf_run(m, ids, steps, device, by)
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))
    import llama_reference as ref
    m = ref.Model(model_dir, torch.float32)
    if int8:
        for k in list(m.w):
            if k.split(".")[-2] in PROJECTIONS:
                m.w[k] = dequantised(m.w[k])
    with torch.no_grad():
        logits = m.logits(ids).to(torch.float32).numpy()
        margins = []
        greedy = m.greedy(ids, steps, margins) if steps else []
    return {"by": "scripts/reference/llama_reference.py, float32 on cpu" + (", int8 round trip" if int8 else ""),
            "logits": logits, "greedy": list(greedy), "margins": [float(x) for x in margins]}


def hf_run(m, ids, steps, device, by):
    import torch
    with torch.no_grad():
        x = torch.tensor([ids], device=device)
        logits = m(x).logits[0].float().cpu().numpy()
        greedy, margins, seq = [], [], list(ids)
        for _ in range(steps):   # full recompute each step: slow but free of any cache subtlety
            last = m(torch.tensor([seq], device=device)).logits[0, -1].float()
            top = torch.topk(last, 2)
            greedy.append(int(top.indices[0]))
            margins.append(float(top.values[0] - top.values[1]))
            seq.append(greedy[-1])
    return {"by": by, "logits": logits, "greedy": greedy, "margins": margins}


def peft_adapter(model_dir, adapter_dir, ids, steps, device):
    """A LoRA adapter on every projection, written by peft with non-zero B, and peft's merged model's logits."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import LlamaForCausalLM
    base = LlamaForCausalLM.from_pretrained(model_dir, torch_dtype=torch.float32)
    cfg = LoraConfig(r=8, lora_alpha=16, target_modules=list(PROJECTIONS), lora_dropout=0.0, bias="none",
                     init_lora_weights=False, task_type="CAUSAL_LM")
    torch.manual_seed(3)
    pm = get_peft_model(base, cfg)
    pm.save_pretrained(adapter_dir)
    merged = pm.merge_and_unload().to(device).eval()
    r = hf_run(merged, ids, steps, device, f"peft merge_and_unload, float32 on {device}")
    r["lora"] = {"r": 8, "alpha": 16, "targets": list(PROJECTIONS)}
    return r


# the stated tolerances, as a share of the largest reference logit: docs/gpu.md and PrecisionParityTest's derivation
# (f16 rounding of weights and activations; int8 against its own round trip, so f16's error plus the int8 scales')
BOUNDS = {"f32": 1e-4, "f16": 5e-3, "int8": 5e-3}


def compare(got, ref, bound):
    """Logits within bound x the largest |logit|, and greedy tokens equal up to the first step whose top-2 margin in the
    reference is below twice the largest difference (where the two may legitimately part)."""
    import numpy as np
    a, b = np.asarray(got["logits"], dtype=np.float64), np.asarray(ref["logits"], dtype=np.float64)
    scale = float(np.abs(b).max())
    diff = float(np.abs(a - b).max())
    same = [x == y for x, y in zip(got["greedy"], ref["greedy"])]
    first_diff = same.index(False) if False in same else None
    margin = ref["margins"][first_diff] if first_diff is not None and ref.get("margins") else None
    relative = diff / scale if scale else 0.0
    greedy_ok = first_diff is None or (margin is not None and margin < 2 * diff)
    return {"max_abs_diff": diff, "max_abs_ref": scale, "relative": relative, "bound": bound,
            "greedy": got["greedy"], "reference_greedy": ref["greedy"], "greedy_equal": all(same),
            "first_difference": first_diff, "margin_at_first_difference": margin,
            "within_bound": relative <= bound and greedy_ok, "load_seconds": got.get("load_seconds")}


def max_abs_diff(a, b):
    import numpy as np
    return float(np.abs(np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)).max())


# ---- measuring ------------------------------------------------------------------------------------------------------
class GpuSampler:
    """The device's used memory as nvidia-smi reports it, every 50 ms, in a thread: the baseline and the peak."""

    def __init__(self):
        self.samples = []
        self.stopped = threading.Event()
        self.baseline = self.read()
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    @staticmethod
    def read():
        try:
            p = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits", "-i", "0"],
                               capture_output=True, text=True, timeout=5)
            return int(p.stdout.strip().splitlines()[0]) * 1024 * 1024
        except Exception:
            return None

    def loop(self):
        while not self.stopped.is_set():
            v = self.read()
            if v is not None:
                self.samples.append(v)
            self.stopped.wait(0.05)

    def stop(self):
        self.stopped.set()
        self.thread.join(timeout=10)
        return {"baseline": self.baseline or 0, "peak": max(self.samples or [0])}


def parse_plan(text):
    """The figures of `ladder model plan`'s table (sizes in bytes)."""
    out = {}
    units = {"B": 1, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3, "TiB": 1024 ** 4}
    for line in text.splitlines():
        m = re.match(r"^(weights|KV cache|workspace|overhead|total|budget)\s+([\d.]+)\s+(B|KiB|MiB|GiB|TiB)\b", line)
        if m:
            out[m.group(1).replace(" ", "_").lower() + "_bytes"] = float(m.group(2)) * units[m.group(3)]
        m = re.match(r"^fits\s+(\w+)", line)
        if m:
            out["fits"] = m.group(1)
    return out


def read_properties(path):
    out = {}
    with open(path) as f:
        for line in f:
            if "=" in line and not line.startswith("#"):
                k, _, v = line.strip().partition("=")
                out[k] = v
    return out


def write_atomic(path, text):
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def summary(r):
    """The Markdown summary: what ran, and the figures docs/gpu.md quotes."""
    lines = [f"# scripts/gpu-check run, {r['started']} ({r.get('elapsed_s', 0)} s of {r['budget_s']} s)", ""]
    lines += ["| part | status | seconds | note |", "|---|---|---|---|"]
    for name, p in r["parts"].items():
        note = p.get("why") or p.get("error", "")
        lines.append(f"| {name} | {p['status']} | {p.get('seconds', '')} | {str(note)[:200].replace('|', '/')} |")
    env = r["parts"].get("env", {})
    if env.get("status") == "ok":
        e = env.get("ladder_env", {})
        lines += ["", f"GPU: {env.get('gpu')} (capability {env.get('capability')}), torch {env.get('torch')} "
                      f"(CUDA {env.get('torch_cuda')}); Ladder loaded libtorch {e.get('pytorch.version')} "
                      f"{e.get('pytorch.flavor')}, cuda={e.get('pytorch.cuda')}, device.default={e.get('device.default')}"]
    par = r["parts"].get("parity", {})
    if par.get("status") == "ok":
        lines += ["", f"Parity ({par.get('reference')}):", "", "| dtype | max abs diff | / max abs logit | greedy equal |",
                  "|---|---|---|---|"]
        for k in ("f32", "f16", "int8"):
            if k in par:
                c = par[k]
                lines.append(f"| {k} | {c['max_abs_diff']:.4g} | {c['relative']:.3g} | {c['greedy_equal']} |")
    ad = r["parts"].get("adapter", {})
    if ad.get("status") == "ok":
        lines += ["", "Adapter (peft merge_and_unload as reference):", ""]
        for k in ("load_time_merge", "adapters_merge"):
            c = ad[k]
            lines.append(f"- {k}: max abs diff {c['max_abs_diff']:.4g} ({c['relative']:.3g} of the largest logit), "
                         f"greedy equal {c['greedy_equal']}")
        lines.append(f"- the adapter moves the logits by up to {ad['adapter_effect_max_abs']:.4g}")
    b = r["parts"].get("bench", {})
    if b.get("status") == "ok":
        rows = [(k, b[k]) for k in ("f32", "f16", "int8") if isinstance(b.get(k), dict) and "decode_tok_per_s" in b[k]]
        batches = sorted({int(x) for _, v in rows for x in v["decode_tok_per_s"]})
        lines += ["", f"Benchmark, {b['model']['parameters'] / 1e9:.2f}B parameters (checkpoint written in "
                      f"{b['checkpoint_write_s']} s):", "",
                  "| dtype | load s | host peak RSS MB | prefill tok/s | " + " | ".join(f"decode b{x}" for x in batches)
                  + " | b1/roofline | GB/s | peak GPU MB (smi) | plan MB | after close MB |",
                  "|---" * (9 + len(batches)) + "|"]
        for k, x in rows:
            d = x["decode_tok_per_s"]
            lines.append("| {} | {:.1f} | {:.0f} | {:.0f} | {} | {:.0%} | {:.0f} | {} | {} | {} |".format(
                k, x.get("load_seconds", float("nan")), x.get("peak_rss_bytes", 0) / 1e6, x["prefill_tok_per_s"],
                " | ".join(f"{d[str(n)]:.1f}" if str(n) in d else "" for n in batches), x["batch1_roofline_share"],
                x["bandwidth_gb_per_s"], mb(x.get("measured_process_peak_bytes")), mb(x.get("plan", {}).get("total_bytes")),
                mb(x.get("resident_after_close_bytes"))))
    e2e = r["parts"].get("e2e", {})
    if e2e.get("status") == "ok":
        lines += ["", f"End to end: `ladder run` of 3 train items in {e2e['seconds']} s: "
                  + ", ".join(f"{k} {v['items']} items in {v['seconds']} s" for k, v in e2e["rungs"].items())]
    return "\n".join(lines) + "\n"


def mb(v):
    return "" if v is None else f"{v / 1e6:.0f}"


class OneLineParser(argparse.ArgumentParser):
    """A user error is one line and exit status 2, like every Ladder command's."""

    def error(self, message):
        self.exit(2, f"gpu-check run: {message} (see --help)\n")


def main():
    ap = OneLineParser(prog="gpu-check run", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", required=True, help=argparse.SUPPRESS)
    ap.add_argument("--out", required=True, help="where gpu-check.json, .md and .log go")
    ap.add_argument("--bundle", help="the folder scripts/gpu-check prepare wrote (default: .gpu-check in the checkout)")
    ap.add_argument("--skip", default="", help="comma-separated parts to leave out: " + ",".join(PARTS))
    ap.add_argument("--budget", type=float, default=540, help="seconds for the whole run (default 540)")
    ap.add_argument("--device", choices=["cuda", "cpu"], default="cuda", help="cpu: a rehearsal on a machine without a GPU")
    ap.add_argument("--big", choices=["llama3-8b", "small", "tiny"], default="llama3-8b", help="the benchmark's shape")
    ap.add_argument("--bench-prompt", type=int, default=128, help="bench: prompt tokens (default 128)")
    ap.add_argument("--bench-new", type=int, default=32, help="bench: tokens decoded per row (default 32)")
    ap.add_argument("--bench-batches", default="1,4,16", help="bench: decode batch sizes (default 1,4,16)")
    ap.add_argument("--work", default=None, help="scratch folder (default: the system's temporary folder)")
    args = ap.parse_args()
    if not (0 < args.budget <= 86400):   # nan and inf fail too
        ap.error(f"--budget must be a number of seconds in (0, 86400], got {args.budget:g}")
    for flag, value in (("--bench-prompt", args.bench_prompt), ("--bench-new", args.bench_new)):
        if value < 1:
            ap.error(f"{flag} must be at least 1, got {value}")
    context = (LLAMA3_8B if args.big == "llama3-8b" else SMALL if args.big == "small" else TINY)["max_position_embeddings"]
    if args.bench_prompt + args.bench_new > context:
        ap.error(f"--bench-prompt + --bench-new must fit the {args.big} shape's {context} positions, "
                 f"got {args.bench_prompt + args.bench_new}")
    if not re.fullmatch(r"[1-9]\d{0,3}(,[1-9]\d{0,3})*", args.bench_batches) or \
            max(int(b) for b in args.bench_batches.split(",")) > 1024:
        ap.error(f"--bench-batches must be integers in 1..1024 separated by commas, got '{args.bench_batches}'")
    args.bundle = os.path.abspath(args.bundle or os.path.join(args.root, ".gpu-check"))
    args.skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    unknown = args.skip - set(PARTS)
    if unknown:
        ap.error(f"--skip: unknown part(s) {', '.join(sorted(unknown))} (parts: {', '.join(PARTS)})")
    archive = os.path.join(args.bundle, "bundle.tar.xz")
    if not os.path.isfile(archive) and not os.path.isfile(os.path.join(args.bundle, "java", "bin", "java")):
        print(f"gpu-check run: no bundle in {args.bundle} (run scripts/gpu-check prepare where Java is, and carry it)",
              file=sys.stderr)
        return 2
    check = Check(args)
    if os.path.isfile(archive):
        unpacked = os.path.join(check.work, "bundle")
        os.makedirs(unpacked)
        t0 = time.monotonic()
        subprocess.run(["tar", "-C", unpacked, "-xJf", archive], check=True)
        check.result["bundle_unpack_s"] = round(time.monotonic() - t0, 1)
        args.bundle = unpacked
    try:
        for name in PARTS:
            check.part(name, getattr(check, name))
    finally:
        check.save()
        shutil.rmtree(check.work, ignore_errors=True)
    failed = [n for n, p in check.result["parts"].items() if p["status"] == "failed"]
    print(f"gpu-check run: {check.out}/gpu-check.md" + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
