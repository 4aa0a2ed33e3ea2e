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
# N is a whole number below the cluster's MaxArraySize (read with 'scontrol show config'; Slurm's default, 1001, when
# scontrol cannot tell). Every user error is one line and exit 2, before anything is submitted. When sbatch refuses a
# job (a limit, an account, a partition), the jobs already submitted are cancelled and one line names them (exit 2).
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
#              LADDER_SERVE_PORT    its port, 1..65535 (default 8000)
#              LADDER_SERVE_SBATCH_ARGS  sbatch flags of the server job (e.g. "--gres=gpu:1 --mem=64G --time=12:00:00")
#              LADDER_SERVE_WAIT    seconds a job waits for the server to answer (default 1800: loading takes minutes;
#                                   at most 604800)
#   The setup job and each task find the server job's node, wait until its port answers, and export
#   LADDER_SERVER_URL=http://NODE:PORT/v1 for 'ladder run'; a job after the array cancels the server. 'ladder serve
#   --host 0.0.0.0' answers requests that name its machine (docs/serve.md); where Slurm's node names are not the
#   hosts' names, add '--allow-host $SLURMD_NODENAME' to LADDER_SERVE.
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
  # submitting, on the login node. Every user error is one line and exit 2, before anything is submitted; a later
  # sbatch that fails cancels the jobs already submitted, so that none waits (or serves on a GPU) for nothing.
  die() { echo "slurm-shards.sh: $*" >&2; exit 2; }
  [[ $# -eq 3 ]] || die "usage: slurm-shards.sh EXPERIMENT.yaml N OUT_DIR (got $# arguments)"
  [[ -n "$1" && -f "$1" ]] || die "no experiment file '$1'"
  [[ -n "$3" ]] || die "OUT_DIR is empty"
  experiment="$(readlink -f "$1")"; n="$2"; out="$(readlink -m "$3")"
  command -v sbatch >/dev/null || die "sbatch not found: run this where Slurm's commands are (a login node)"
  # an array's indices must stay below MaxArraySize; Slurm's own default is 1001 when scontrol cannot tell
  max_array="$(scontrol show config 2>/dev/null | sed -n 's/^MaxArraySize *= *\([0-9]\{1,9\}\).*/\1/p' | head -n 1 || true)"
  max_array="${max_array:-1001}"
  # a whole number in 1..MAX, as a number: digits first (bash arithmetic wraps past 2^63), then the bound
  whole() { [[ "$1" =~ ^[1-9][0-9]{0,8}$ ]] && (( $1 <= $2 )); }
  whole "$n" "$(( max_array - 1 ))" \
    || die "N must be a whole number in 1..$(( max_array - 1 )) (this cluster's MaxArraySize is $max_array), got '$n'"
  if [[ -n "${LADDER_MAX_RUNNING:-}" ]]; then
    whole "$LADDER_MAX_RUNNING" "$(( max_array - 1 ))" \
      || die "LADDER_MAX_RUNNING must be a whole number in 1..$(( max_array - 1 )), got '$LADDER_MAX_RUNNING'"
  fi
  port="${LADDER_SERVE_PORT:-8000}"
  whole "$port" 65535 || die "LADDER_SERVE_PORT must be a port number in 1..65535, got '$port'"
  whole "${LADDER_SERVE_WAIT:-1800}" 604800 \
    || die "LADDER_SERVE_WAIT must be a whole number of seconds in 1..604800, got '${LADDER_SERVE_WAIT:-}'"
  script="$(readlink -f "${BASH_SOURCE[0]}")"
  ladder="$(cd "$(dirname "$script")" && pwd)/ladder"

  submitted=()   # "ID (what)" of every job submitted so far
  # Cancels every job submitted so far and says what it did, as the end of a line: "; cancelled 12 (setup)"
  cancel_submitted() {
    (( ${#submitted[@]} )) || return 0
    local ids=("${submitted[@]%% *}") list
    list="$(printf '%s, ' "${submitted[@]}")"
    if scancel "${ids[@]}" >/dev/null 2>&1; then
      echo "; cancelled the jobs it had submitted: ${list%, }"
    else
      echo "; could not cancel the jobs it had submitted (${list%, }): scancel ${ids[*]}"
    fi
  }
  errors="$(mktemp "${TMPDIR:-/tmp}/slurm-shards.XXXXXX")"
  # an interruption (Ctrl-C) or an unforeseen failure between two submissions leaves nothing submitted either
  trap 'rm -f "$errors"; if (( ${#submitted[@]} )); then echo "slurm-shards.sh: stopped before every job was submitted$(cancel_submitted)" >&2; fi' EXIT
  trap 'exit 130' INT TERM HUP
  # Submits one job (sbatch --parsable ARGS...) and puts its id in VAR. A refusal is one line naming the job, sbatch's
  # reason and the jobs submitted before it, which it cancels; exit 2 (a limit, account or partition to change).
  submit() {
    local var="$1" what="$2" answer reason
    shift 2
    if ! answer="$(sbatch --parsable "$@" 2>"$errors")"; then
      reason="$(grep -v '^[[:space:]]*$' "$errors" | tail -n 1 || true)"
      echo "slurm-shards.sh: sbatch refused the $what job (${reason:-no reason given})$(cancel_submitted)" >&2
      submitted=()
      exit 2
    fi
    answer="${answer%%;*}"   # --parsable prints "jobid" or "jobid;cluster"
    if ! [[ "$answer" =~ ^[0-9]+$ ]]; then
      echo "slurm-shards.sh: sbatch gave no job id for the $what job ('$answer')$(cancel_submitted)" >&2
      submitted=()
      exit 2
    fi
    submitted+=("$answer ($what)")
    printf -v "$var" '%s' "$answer"
  }

  # a job's own flags come last: a job's log name (an array's %a means nothing for one job) and its dependency win
  serve=""
  if [[ -n "${LADDER_SERVE:-}" ]]; then
    # shellcheck disable=SC2086
    submit serve server --job-name=ladder-serve ${LADDER_SERVE_SBATCH_ARGS:-} --output=slurm-%x-%j.out \
      --export="ALL,LADDER_SERVE_PORT=$port" --wrap "$LADDER_SERVE"
  fi
  env="ALL,LADDER_SERVE_JOB=$serve,LADDER_SERVE_PORT=$port"
  # sbatch runs a copy of this script: the launcher's and the files' absolute paths travel as arguments
  # shellcheck disable=SC2086
  submit setup setup --job-name=ladder-setup ${LADDER_SBATCH_ARGS:-} --output=slurm-%x-%j.out \
    --export="$env,LADDER_SHARDS_ROLE=setup" ${serve:+--dependency=after:$serve} \
    "$script" "$ladder" "$experiment" "$n" "$out"
  # afterok on a job waits for its success; --kill-on-invalid-dep: a failed setup cancels the array instead of
  # leaving it pending forever
  # shellcheck disable=SC2086
  submit array array --array="1-$n${LADDER_MAX_RUNNING:+%$LADDER_MAX_RUNNING}" ${LADDER_SBATCH_ARGS:-} \
    --export="$env,LADDER_SHARDS_ROLE=shard" --dependency="afterok:$setup" --kill-on-invalid-dep=yes \
    "$script" "$ladder" "$experiment" "$n" "$out"
  shards=()
  for ((i = 1; i <= n; i++)); do shards+=("$out-shard-$i-of-$n"); done
  # afterok on an array job waits for all its tasks, and only their success starts the merge; the merge's defaults,
  # then the cluster's flags (which may shrink them), then its own log name
  # shellcheck disable=SC2086
  submit merge merge --dependency="afterok:$array" --kill-on-invalid-dep=yes --job-name=ladder-merge \
    --cpus-per-task=2 --mem=8G --time=1:00:00 ${LADDER_SBATCH_ARGS:-} --output=slurm-%x-%j.out \
    --wrap "$(printf '%q ' "$ladder" merge "${shards[@]}" --out "$out")"
  if [[ -n "$serve" ]]; then
    # the server's job ends when the array has (succeeded or not): nothing else would stop it
    # shellcheck disable=SC2086
    submit stop server-stop --dependency="afterany:$array" --job-name=ladder-serve-stop --cpus-per-task=1 --mem=100M \
      --time=5:00 ${LADDER_SBATCH_ARGS:-} --gres=none --output=slurm-%x-%j.out --wrap "scancel $serve"
  fi
  submitted=()   # all in: nothing to cancel on exit
  echo "setup job $setup: ladder run --prepare (models, database, test suite) before the shards"
  echo "array job $array: $n shards of $experiment into $out-shard-{1..$n}-of-$n"
  echo "merge job $merge: runs when every shard has succeeded, into $out"
  if [[ -n "$serve" ]]; then
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
