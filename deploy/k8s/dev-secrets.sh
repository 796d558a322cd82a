#!/usr/bin/env bash
# Creates the Secrets the dev overlay references, with freshly generated values
# (nothing secret is kept in the repository). Safe to run again: existing Secrets are
# left as they are.
#   deploy/k8s/dev-secrets.sh [bootstrap.json]
# The optional bootstrap.json (tenants, applications, users: docs/developer-api.md) becomes
# the developer-service-bootstrap Secret. Without it one tenant, application and user are
# made so a token can be had at once (printed below, and again by
#   kubectl -n vault-dev get secret developer-service-bootstrap -o jsonpath='{.data.bootstrap\.json}' | base64 -d
# ): tenant DEV_TENANT (default dev), client DEV_CLIENT_ID (dev-app) with secret
# DEV_CLIENT_SECRET, user DEV_USERNAME (dev@vault.localhost) with password DEV_PASSWORD;
# the secret and password are random unless given. docs/deploy.md §5 tells how to change them.
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
create records-service-secrets --from-literal=WEBHOOK_SECRET_KEYS="k$(date +%Y%m%d):$(head -c 32 /dev/urandom | base64)" \
  --from-literal=ENCRYPTION_KEYRING="kek$(date +%Y%m%d):$(head -c 32 /dev/urandom | base64)"
json_string() { printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g')"; }
if [ -n "$bootstrap" ]; then
  create developer-service-bootstrap --from-file=bootstrap.json="$bootstrap"
elif exists developer-service-bootstrap; then
  echo "kept developer-service-bootstrap (its credentials: kubectl -n $ns get secret developer-service-bootstrap -o jsonpath='{.data.bootstrap\\.json}' | base64 -d)"
else
  tenant="${DEV_TENANT:-dev}" client="${DEV_CLIENT_ID:-dev-app}" username="${DEV_USERNAME:-dev@vault.localhost}"
  client_secret="${DEV_CLIENT_SECRET:-$(rand)}" password="${DEV_PASSWORD:-$(rand)}"
  create developer-service-bootstrap --from-literal=bootstrap.json="$(printf '{"tenants":[{"id":%s,"name":"Development","applications":[{"clientId":%s,"clientSecret":%s}],"users":[{"username":%s,"password":%s}]}]}' \
    "$(json_string "$tenant")" "$(json_string "$client")" "$(json_string "$client_secret")" "$(json_string "$username")" "$(json_string "$password")")"
  echo "developer-service-bootstrap: tenant \"$tenant\", client \"$client\", user \"$username\""
  echo "  client secret: $client_secret"
  echo "  password:      $password"
  echo "  a token: curl -sk https://developer-api.vault.localhost/api/v1/tenant/tenant-id/$tenant/applications/client-id/$client/auth \\"
  echo "             -H 'content-type: application/json' \\"
  echo "             -d '{\"clientSecret\":\"$client_secret\",\"username\":\"$username\",\"password\":\"$password\"}'"
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
