#!/usr/bin/env bash
# An experiment as a Slurm array: task i runs shard i of N, and a merge job that starts only when every task has
# succeeded joins the shards into the whole run (docs/scale.md).
#
#   scripts/slurm-shards.sh EXPERIMENT.yaml N OUT_DIR        # on the login node: submits the array and the merge
#
#   array task i:  ladder run EXPERIMENT --shard i/N --out OUT_DIR-shard-i-of-N
#   merge job:     ladder merge OUT_DIR-shard-1-of-N ... OUT_DIR-shard-N-of-N --out OUT_DIR
#
# OUT_DIR and its shards belong on the shared filesystem (a resubmitted task resumes its shard: sbatch --array=I this
# script again with the same arguments). Ladder's cache directory goes on node-local disk: the embedded MariaDB keeps its
# data there and must not share it with another machine; name models by a shared directory in the experiment file
# (pull once with 'ladder model pull ID'), not by hub id, or every task pulls its own copy.
#
# Environment: LADDER_SBATCH_ARGS  extra sbatch flags for both jobs (e.g. "--account=abc --partition=gpu")
#              LADDER_RUN_ARGS     extra 'ladder run' flags, the same for every shard (e.g. "--device cuda --dtype f16")
#              LADDER_CACHE_DIR    the tasks' cache directory (default: $TMPDIR/ladder-cache, node-local)
#
# Edit these for your cluster; they apply to the array tasks (the merge job sets its own on the command line).
#SBATCH --job-name=ladder-shard
#SBATCH --gres=gpu:1
#SBATCH --cpus-per-task=8
#SBATCH --mem=64G
#SBATCH --time=24:00:00
#SBATCH --output=slurm-%x-%A_%a.out
set -euo pipefail

if [[ -z "${SLURM_ARRAY_TASK_ID:-}" ]]; then
  # submitting, on the login node
  if [[ $# -ne 3 ]]; then
    echo "usage: $0 EXPERIMENT.yaml N OUT_DIR" >&2
    exit 2
  fi
  experiment="$(readlink -f "$1")"; n="$2"; out="$(readlink -m "$3")"
  if ! [[ "$n" =~ ^[1-9][0-9]*$ ]]; then
    echo "$0: N must be a whole number >= 1, got '$n'" >&2
    exit 2
  fi
  [[ -f "$experiment" ]] || { echo "$0: no experiment file $1" >&2; exit 2; }
  ladder="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)/ladder"
  # sbatch runs a copy of this script: the launcher's and the files' absolute paths travel as arguments
  # shellcheck disable=SC2086
  array="$(sbatch --parsable --array="1-$n" ${LADDER_SBATCH_ARGS:-} "$(readlink -f "${BASH_SOURCE[0]}")" \
    "$ladder" "$experiment" "$n" "$out")"
  array="${array%%;*}" # --parsable prints "jobid" or "jobid;cluster"
  shards=()
  for ((i = 1; i <= n; i++)); do shards+=("$out-shard-$i-of-$n"); done
  # afterok on an array job waits for all its tasks, and only their success starts the merge
  # shellcheck disable=SC2086
  # the merge's defaults, then the cluster's flags (which may shrink them), then its own log name: an array's %a in
  # a --output of LADDER_SBATCH_ARGS means nothing for one job
  merge="$(sbatch --parsable --dependency="afterok:$array" --job-name=ladder-merge --cpus-per-task=2 --mem=8G \
    --time=1:00:00 ${LADDER_SBATCH_ARGS:-} --output=slurm-%x-%j.out \
    --wrap "$(printf '%q ' "$ladder" merge "${shards[@]}" --out "$out")")"
  echo "array job $array: $n shards of $experiment into $out-shard-{1..$n}-of-$n"
  echo "merge job ${merge%%;*}: runs when every shard has succeeded, into $out"
  exit 0
fi

# an array task: shard SLURM_ARRAY_TASK_ID of N
ladder="$1"; experiment="$2"; n="$3"; out="$4"
i="$SLURM_ARRAY_TASK_ID"
export LADDER_CACHE_DIR="${LADDER_CACHE_DIR:-${TMPDIR:-/tmp}/ladder-cache}"
echo "shard $i/$n of $experiment on $(hostname), cache $LADDER_CACHE_DIR"
# shellcheck disable=SC2086
exec "$ladder" run "$experiment" --shard "$i/$n" --out "$out-shard-$i-of-$n" --no-progress ${LADDER_RUN_ARGS:-}
