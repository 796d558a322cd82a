#!/usr/bin/env bash
# Rolls out one module (or all) of an environment in the right order:
#   deploy/k8s/rollout.sh <dev|prod> <developer-service|user-service|records-service|gateway|nats|postgres|all>
# For a module with a database: the previous migration Job is removed, the new one is
# applied and waited for, then the Deployment and the rest are applied and the
# rollout is waited for. Needs kubectl (with kustomize built in) and a current context.
set -euo pipefail
cd "$(dirname "$0")"

env="${1:?usage: rollout.sh <dev|prod> <module|all>}"
module="${2:?usage: rollout.sh <dev|prod> <module|all>}"
overlay="overlays/${env}"
[ -d "$overlay" ] || { echo "unknown environment: $env" >&2; exit 2; }
namespace="$(sed -n 's/^  name: //p' "$overlay/namespace.yaml" | head -1)"
timeout="${ROLLOUT_TIMEOUT:-10m}"

rollout() {
  local m="$1" dir="$overlay/$1"
  [ -d "$dir" ] || { echo "unknown module for $env: $m" >&2; exit 2; }
  echo "== $m ($env, namespace $namespace)"
  if [ -f "base/$m/migrate-job.yaml" ]; then
    kubectl -n "$namespace" delete job "$m-migrate" --ignore-not-found --wait=true
    kubectl apply -k "$dir" -l app.kubernetes.io/component=migration
    kubectl -n "$namespace" wait --for=condition=complete "job/$m-migrate" --timeout="$timeout"
  fi
  kubectl apply -k "$dir"
  case "$m" in
    nats|postgres) kubectl -n "$namespace" rollout status "statefulset/$m" --timeout="$timeout" ;;
    *) kubectl -n "$namespace" rollout status "deployment/$m" --timeout="$timeout" ;;
  esac
}

kubectl apply -f "$overlay/namespace.yaml"
if [ "$module" = all ]; then
  [ -d "$overlay/postgres" ] && rollout postgres
  for m in nats developer-service user-service records-service gateway; do rollout "$m"; done
else
  rollout "$module"
fi
