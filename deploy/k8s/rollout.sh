#!/usr/bin/env bash
# Rolls out one module (or all) of an environment in the right order:
#   deploy/k8s/rollout.sh <dev|prod> <developer-service|user-service|records-service|gateway|nats|postgres|all>
# For a module with a database: the previous migration Job is removed, the new one is
# applied and watched until it completes (then the Deployment and the rest are applied and
# the rollout is waited for) or fails: the Job's Failed condition (backoffLimit reached,
# deadline exceeded) or a pod that cannot start (image pull, missing Secret or ConfigMap)
# stops the script at once with the pod's log, before the Deployment changes. Every Deployment
# and StatefulSet of the module is then waited for (a rollout that fails stops the script).
# Needs kubectl (with kustomize built in) and a current context.
set -euo pipefail
cd "$(dirname "$0")"

env="${1:?usage: rollout.sh <dev|prod> <module|all>}"
module="${2:?usage: rollout.sh <dev|prod> <module|all>}"
overlay="overlays/${env}"
[ -d "$overlay" ] || { echo "unknown environment: $env" >&2; exit 2; }
namespace="$(sed -n 's/^  name: //p' "$overlay/namespace.yaml" | head -1)"
timeout="${ROLLOUT_TIMEOUT:-10m}"
poll="${ROLLOUT_POLL_SECONDS:-2}"

seconds() { case "$1" in *m) echo $(( ${1%m} * 60 ));; *s) echo "${1%s}";; *) echo "$1";; esac; }

# Waits for job/$2 to complete; returns 1 as soon as it fails or its pod cannot start.
watch_job() {
  local ns="$1" job="$2" deadline=$(( $(date +%s) + $(seconds "$timeout") )) conditions waiting failed seen=0
  while :; do
    conditions="$(kubectl -n "$ns" get job "$job" -o jsonpath='{range .status.conditions[?(@.status=="True")]}{.type}{" "}{end}')"
    case " $conditions " in
      *" Complete "*) echo "job/$job complete"; return 0 ;;
      *" Failed "*)
        echo "job/$job failed: $(kubectl -n "$ns" get job "$job" -o jsonpath='{.status.conditions[?(@.type=="Failed")].message}')" >&2
        kubectl -n "$ns" logs "job/$job" --tail=50 >&2 || true
        return 1 ;;
    esac
    waiting="$(kubectl -n "$ns" get pods -l "job-name=$job" -o jsonpath='{range .items[*].status.containerStatuses[*]}{.state.waiting.reason}{" "}{end}')"
    case " $waiting " in
      *" ErrImagePull "*|*" ImagePullBackOff "*|*" InvalidImageName "*|*" CreateContainerConfigError "*|*" CreateContainerError "*)
        echo "job/$job cannot start its pod ($waiting)" >&2
        kubectl -n "$ns" describe pods -l "job-name=$job" | tail -20 >&2 || true
        return 1 ;;
    esac
    failed="$(kubectl -n "$ns" get job "$job" -o jsonpath='{.status.failed}')"
    if [ "${failed:-0}" -gt "$seen" ]; then
      seen="${failed:-0}"
      echo "job/$job: attempt $seen failed (retried up to its backoffLimit); its log:" >&2
      kubectl -n "$ns" logs "job/$job" --tail=20 >&2 || true
    fi
    [ "$(date +%s)" -lt "$deadline" ] || { echo "job/$job did not finish within $timeout" >&2; return 1; }
    sleep "$poll"
  done
}

rollout() {
  local m="$1" dir="$overlay/$1"
  [ -d "$dir" ] || { echo "unknown module for $env: $m" >&2; exit 2; }
  echo "== $m ($env, namespace $namespace)"
  if [ -f "base/$m/migrate-job.yaml" ]; then
    kubectl -n "$namespace" delete job "$m-migrate" --ignore-not-found --wait=true
    kubectl apply -k "$dir" -l app.kubernetes.io/component=migration
    watch_job "$namespace" "$m-migrate" || { echo "== $m: migration failed, $m left as it was" >&2; exit 1; }
  fi
  # every workload the module's apply holds is waited for: records-service's event pipeline
  # (and the Deployments its optional Components add) as well as its API
  local applied workload
  applied="$(kubectl apply -k "$dir" -o name)" || { echo "== $m: apply failed" >&2; exit 1; }
  printf '%s\n' "$applied"
  for workload in $(printf '%s\n' "$applied" | grep -E '^(deployment|statefulset)\.apps/' || true); do
    kubectl -n "$namespace" rollout status "$workload" --timeout="$timeout"
  done
}

kubectl apply -f "$overlay/namespace.yaml"
if [ "$module" = all ]; then
  [ -d "$overlay/postgres" ] && rollout postgres
  for m in nats developer-service user-service records-service gateway; do rollout "$m"; done
else
  rollout "$module"
fi
