#!/usr/bin/env bash
# Creates the Secrets the dev overlay references, with freshly generated values
# (nothing secret is kept in the repository). Safe to run again: existing Secrets are
# left as they are.
#   deploy/k8s/dev-secrets.sh [bootstrap.json]
# The optional bootstrap.json (tenants, applications, users: docs/deploy.md) becomes
# the developer-service-bootstrap Secret; without it an empty tenant list is used.
set -euo pipefail
ns="${NAMESPACE:-vault-dev}"
bootstrap="${1:-}"

rand() { head -c 32 /dev/urandom | base64 | tr -d '/+=' | head -c 32; }
exists() { kubectl -n "$ns" get secret "$1" >/dev/null 2>&1; }
create() { local name="$1"; shift; exists "$name" && { echo "kept $name"; return; }; kubectl -n "$ns" create secret generic "$name" "$@"; }

kubectl get namespace "$ns" >/dev/null 2>&1 || kubectl create namespace "$ns"

if exists postgres-admin; then
  pg_password="$(kubectl -n "$ns" get secret postgres-admin -o jsonpath='{.data.POSTGRES_PASSWORD}' | base64 -d)"
else
  pg_password="$(rand)"
  create postgres-admin --from-literal=POSTGRES_PASSWORD="$pg_password"
fi
for pair in developer-service:vault_developer user-service:vault_user records-service:vault_records; do
  create "${pair%%:*}-database" \
    --from-literal=DATABASE_URL="postgres://postgres:${pg_password}@postgres:5432/${pair##*:}"
done
create developer-service-secrets --from-literal=KEY_ENCRYPTION_SECRET="$(rand)"
if [ -n "$bootstrap" ]; then
  create developer-service-bootstrap --from-file=bootstrap.json="$bootstrap"
else
  create developer-service-bootstrap --from-literal=bootstrap.json='{"tenants":[]}'
fi
[ -n "${SMTP_URL:-}" ] && create user-service-smtp --from-literal=SMTP_URL="$SMTP_URL"
if ! exists vault-tls; then
  dir="$(mktemp -d)"
  openssl req -x509 -newkey rsa:2048 -nodes -days 90 -subj "/CN=vault.localhost" \
    -addext "subjectAltName=DNS:developer-api.vault.localhost,DNS:user-api.vault.localhost,DNS:records-api.vault.localhost" \
    -keyout "$dir/tls.key" -out "$dir/tls.crt" 2>/dev/null
  kubectl -n "$ns" create secret tls vault-tls --cert="$dir/tls.crt" --key="$dir/tls.key"
  rm -rf "$dir"
fi
