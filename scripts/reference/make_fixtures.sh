#!/usr/bin/env bash
# Rebuilds inference/src/test/resources/fixtures: writes each tiny random-weight model with TinyModels (Java),
# then runs the PyTorch reference (float64) on fixed ids and records logits, greedy ids and the model's sha256.
# Needs the JDK, Maven (offline) and /usr/bin/python3 with torch + numpy. Run from anywhere.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
out="$root/inference/src/test/resources/fixtures"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if [[ -z "${LADDER_CLASSES:-}" ]]; then
  mvn -B -o -q -pl inference -am compile
  LADDER_CLASSES="$root/inference/target/classes"
fi
mvn -B -o -q -pl inference dependency:build-classpath -Dmdep.includeScope=runtime -Dmdep.outputFile="$work/cp.txt" >/dev/null
cp="$LADDER_CLASSES:$(cat "$work/cp.txt")"

ref=(/usr/bin/python3 "$root/scripts/reference/llama_reference.py")
mkdir -p "$out"

fixture() {  # NAME SHAPE SEED IDS
  local name=$1 shape=$2 seed=$3 ids=$4
  java -cp "$cp" dev.ladder.inference.model.TinyModels "$work/$name" "$shape" "$seed" F32 >/dev/null
  "${ref[@]}" --model "$work/$name" --ids "$ids" --generate 8 --dtype float64 \
    --meta "shape=$shape" --meta "seed=$seed" --meta "dtype=F32" --out "$out/$name.json"
  echo "wrote $out/$name.json and $name.f32"
}

fixture tiny-seed1 TINY 1 "507,83,69,76,300,301,400,10,20,256,480,511"
fixture qwen2-tiny-seed2 QWEN2_TINY 2 "507,1,2,3,300,301,302,450,12,99,200,508"
# 80 ids: positions past original_max_position_embeddings (64) of the rope scaling
rope_ids="507$(for i in $(seq 1 79); do printf ',%d' $(( (i * 37 + 11) % 507 )); done)"
fixture llama3-rope-scaled-tiny-seed3 LLAMA3_ROPE_SCALED_TINY 3 "$rope_ids"
