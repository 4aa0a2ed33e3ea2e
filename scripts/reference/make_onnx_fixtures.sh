#!/usr/bin/env bash
# Rebuilds inference/src/test/resources/onnx: writes the tiny random-weight model TINY seed 1 with TinyModels (Java)
# and exports it with export_onnx.py, once in Optimum's layout (float32) and once in ONNX Runtime GenAI's layout with
# int4 MatMulNBits weights (block 16). The tests write the same tiny model again and compare the engines on it.
# Needs the JDK, Maven (offline) and /usr/bin/python3 with torch + onnx (Debian: python3-torch python3-onnx).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
out="$root/inference/src/test/resources/onnx"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mvn -B -o -q -pl inference -am compile
mvn -B -o -q -pl inference dependency:build-classpath -Dmdep.includeScope=runtime -Dmdep.outputFile="$work/cp.txt" >/dev/null
java -cp "$root/inference/target/classes:$(cat "$work/cp.txt")" dev.ladder.inference.model.TinyModels "$work/tiny" TINY 1 F32 >/dev/null
rm -rf "$out"
/usr/bin/python3 "$root/scripts/reference/export_onnx.py" --model "$work/tiny" --out "$out/tiny-optimum"
/usr/bin/python3 "$root/scripts/reference/export_onnx.py" --model "$work/tiny" --out "$out/tiny-genai-int4" --layout genai --int4 --block 16
echo "wrote $out"
