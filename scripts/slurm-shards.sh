#!/usr/bin/env bash
# An experiment as a Slurm array (docs/scale.md): a setup job does the shared work once, task i of the array runs shard i
# of N, and a merge job that starts only when every task has succeeded joins the shards into the whole run. Optionally a
# server job serves the model first and the shards call it (engine: openai).
#
#   scripts/slurm-shards.sh EXPERIMENT.yaml N OUT_DIR        # on the login node: submits the jobs and says which
#
#   setup job:     ladder run EXPERIMENT --prepare                 (pulls models, loads the database, builds the suite)
#   array task i:  ladder run EXPERIMENT --shard i/N --out OUT_DIR-shard-i-of-N      (after the setup job succeeded)
#   merge job:     ladder merge OUT_DIR-shard-1-of-N ... OUT_DIR-shard-N-of-N --out OUT_DIR   (after every task did)
#
# OUT_DIR and its shards belong on the shared filesystem (a resubmitted task resumes its shard: sbatch --array=I this
# script again with the same arguments and LADDER_SHARDS_ROLE=shard). Ladder's cache directory goes on node-local disk:
# the embedded MariaDB keeps its data there and must not share it with another machine; put the model store on the
# shared filesystem instead (LADDER_MODELS_DIR), so that the setup job's pull serves every node. Processes that share a
# cache or a store (tasks on one node) pull and build in turn, never at once.
#
# Environment: LADDER_SBATCH_ARGS   extra sbatch flags for every job (e.g. "--account=abc --partition=gpu"; on a node
#                                   without a GPU or with little memory: "--gres=none --mem=3G --cpus-per-task=1")
#              LADDER_RUN_ARGS      extra 'ladder run' flags, the same for the setup job and every shard
#              LADDER_MAX_RUNNING   most array tasks running at once (sbatch --array=1-N%M; default: no limit)
#              LADDER_CACHE_DIR     the jobs' cache directory (default: $TMPDIR/ladder-cache, node-local)
#              LADDER_MODELS_DIR    the model store (default: <cache>/models; name a shared directory on a cluster)
#   a served model (the experiment's models say engine: openai, base_url: ${LADDER_SERVER_URL}):
#              LADDER_SERVE         the server's command line, run as its own job; it must listen on all interfaces
#                                   at port $LADDER_SERVE_PORT, e.g. 'ladder serve --model DIR --host 0.0.0.0 --port
#                                   $LADDER_SERVE_PORT --served-name ladder-base' or 'vllm serve ID --port
#                                   $LADDER_SERVE_PORT --served-model-name ladder-base' (single quotes: the job expands it)
#              LADDER_SERVE_PORT    its port (default 8000)
#              LADDER_SERVE_SBATCH_ARGS  sbatch flags of the server job (e.g. "--gres=gpu:1 --mem=64G --time=12:00:00")
#              LADDER_SERVE_WAIT    seconds a job waits for the server to answer (default 1800: loading takes minutes)
#   The setup job and each task find the server job's node, wait until its port answers, and export
#   LADDER_SERVER_URL=http://NODE:PORT/v1 for 'ladder run'; a job after the array cancels the server.
#
# Edit these for your cluster; they apply to the setup job and the array tasks (the other jobs set their own).
#SBATCH --job-name=ladder-shard
#SBATCH --gres=gpu:1
#SBATCH --cpus-per-task=8
#SBATCH --mem=64G
#SBATCH --time=24:00:00
#SBATCH --output=slurm-%x-%A_%a.out
set -euo pipefail

role="${LADDER_SHARDS_ROLE:-}"
# an array task started by an older submission (or by hand with --array) has no role: its task id says it
[[ -z "$role" && -n "${SLURM_ARRAY_TASK_ID:-}" ]] && role=shard

if [[ -z "$role" ]]; then
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
  if [[ -n "${LADDER_MAX_RUNNING:-}" ]] && ! [[ "$LADDER_MAX_RUNNING" =~ ^[1-9][0-9]*$ ]]; then
    echo "$0: LADDER_MAX_RUNNING must be a whole number >= 1, got '$LADDER_MAX_RUNNING'" >&2
    exit 2
  fi
  [[ -f "$experiment" ]] || { echo "$0: no experiment file $1" >&2; exit 2; }
  script="$(readlink -f "${BASH_SOURCE[0]}")"
  ladder="$(cd "$(dirname "$script")" && pwd)/ladder"
  port="${LADDER_SERVE_PORT:-8000}"
  [[ "$port" =~ ^[0-9]+$ ]] || { echo "$0: LADDER_SERVE_PORT must be a port number, got '$port'" >&2; exit 2; }
  jobid() { local id; id="$(cat)"; echo "${id%%;*}"; } # --parsable prints "jobid" or "jobid;cluster"
  # a job's own flags come last: a job's log name (an array's %a means nothing for one job) and its dependency win
  serve=""
  if [[ -n "${LADDER_SERVE:-}" ]]; then
    # shellcheck disable=SC2086
    serve="$(sbatch --parsable --job-name=ladder-serve ${LADDER_SERVE_SBATCH_ARGS:-} --output=slurm-%x-%j.out \
      --export="ALL,LADDER_SERVE_PORT=$port" --wrap "$LADDER_SERVE" | jobid)"
  fi
  env="ALL,LADDER_SERVE_JOB=$serve,LADDER_SERVE_PORT=$port"
  # sbatch runs a copy of this script: the launcher's and the files' absolute paths travel as arguments
  # shellcheck disable=SC2086
  setup="$(sbatch --parsable --job-name=ladder-setup ${LADDER_SBATCH_ARGS:-} --output=slurm-%x-%j.out \
    --export="$env,LADDER_SHARDS_ROLE=setup" ${serve:+--dependency=after:$serve} \
    "$script" "$ladder" "$experiment" "$n" "$out" | jobid)"
  # afterok on a job waits for its success; --kill-on-invalid-dep: a failed setup cancels the array instead of
  # leaving it pending forever
  # shellcheck disable=SC2086
  array="$(sbatch --parsable --array="1-$n${LADDER_MAX_RUNNING:+%$LADDER_MAX_RUNNING}" ${LADDER_SBATCH_ARGS:-} \
    --export="$env,LADDER_SHARDS_ROLE=shard" --dependency="afterok:$setup" --kill-on-invalid-dep=yes \
    "$script" "$ladder" "$experiment" "$n" "$out" | jobid)"
  shards=()
  for ((i = 1; i <= n; i++)); do shards+=("$out-shard-$i-of-$n"); done
  # afterok on an array job waits for all its tasks, and only their success starts the merge; the merge's defaults,
  # then the cluster's flags (which may shrink them), then its own log name
  # shellcheck disable=SC2086
  merge="$(sbatch --parsable --dependency="afterok:$array" --kill-on-invalid-dep=yes --job-name=ladder-merge \
    --cpus-per-task=2 --mem=8G --time=1:00:00 ${LADDER_SBATCH_ARGS:-} --output=slurm-%x-%j.out \
    --wrap "$(printf '%q ' "$ladder" merge "${shards[@]}" --out "$out")" | jobid)"
  echo "setup job $setup: ladder run --prepare (models, database, test suite) before the shards"
  echo "array job $array: $n shards of $experiment into $out-shard-{1..$n}-of-$n"
  echo "merge job $merge: runs when every shard has succeeded, into $out"
  if [[ -n "$serve" ]]; then
    # the server's job ends when the array has (succeeded or not): nothing else would stop it
    # shellcheck disable=SC2086
    stop="$(sbatch --parsable --dependency="afterany:$array" --job-name=ladder-serve-stop --cpus-per-task=1 --mem=100M \
      --time=5:00 ${LADDER_SBATCH_ARGS:-} --gres=none --output=slurm-%x-%j.out --wrap "scancel $serve" | jobid)"
    echo "server job $serve: $LADDER_SERVE (port $port); job $stop cancels it when the array has ended"
  fi
  exit 0
fi

ladder="$1"; experiment="$2"; n="$3"; out="$4"
export LADDER_CACHE_DIR="${LADDER_CACHE_DIR:-${TMPDIR:-/tmp}/ladder-cache}"
# libtorch starts a thread per core of the node unless told otherwise: tasks sharing a node would oversubscribe it
if [[ -n "${SLURM_CPUS_PER_TASK:-}" ]]; then export OMP_NUM_THREADS="${OMP_NUM_THREADS:-$SLURM_CPUS_PER_TASK}"; fi

# a served model: the server job's node and port, once it answers, as LADDER_SERVER_URL (the experiment names it)
if [[ -n "${LADDER_SERVE_JOB:-}" ]]; then
  port="${LADDER_SERVE_PORT:-8000}"
  wait_s="${LADDER_SERVE_WAIT:-1800}"
  t0=$SECONDS
  while :; do
    state="$(squeue -h -j "$LADDER_SERVE_JOB" -o %T 2>/dev/null || true)"
    if [[ -z "$state" || "$state" =~ ^(COMPLETED|COMPLETING|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|PREEMPTED|OUT_OF_MEMORY)$ ]]; then
      echo "the server job $LADDER_SERVE_JOB is not running (${state:-gone}; see slurm-ladder-serve-$LADDER_SERVE_JOB.out)" >&2
      exit 1
    fi
    if [[ "$state" == RUNNING ]]; then
      host="$(squeue -h -j "$LADDER_SERVE_JOB" -o %N)"
      if (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; then break; fi
    fi
    if (( SECONDS - t0 >= wait_s )); then
      echo "the server job $LADDER_SERVE_JOB did not answer on port $port within $wait_s s (LADDER_SERVE_WAIT)" >&2
      exit 1
    fi
    sleep 2
  done
  export LADDER_SERVER_URL="http://$host:$port/v1"
  echo "server: $LADDER_SERVER_URL (job $LADDER_SERVE_JOB, answered after $(( SECONDS - t0 )) s)"
fi

if [[ "$role" == setup ]]; then
  echo "setup for $n shards of $experiment on $(hostname), cache $LADDER_CACHE_DIR"
  # shellcheck disable=SC2086
  exec "$ladder" run "$experiment" --prepare --no-progress ${LADDER_RUN_ARGS:-}
fi

# an array task: shard SLURM_ARRAY_TASK_ID of N
i="$SLURM_ARRAY_TASK_ID"
echo "shard $i/$n of $experiment on $(hostname), cache $LADDER_CACHE_DIR"
# shellcheck disable=SC2086
exec "$ladder" run "$experiment" --shard "$i/$n" --out "$out-shard-$i-of-$n" --no-progress ${LADDER_RUN_ARGS:-}
