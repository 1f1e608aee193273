#!/usr/bin/env bash
# Smoke test against a running instance: creates an index and lists indexes.
#   VUS_URL=http://127.0.0.1:8080 VUS_API_KEY=tlk_... scripts/smoke.sh
set -euo pipefail
: "${VUS_URL:=http://127.0.0.1:8080}"
: "${VUS_API_KEY:?set VUS_API_KEY to a key printed by npm start or npm run keys -- create --org NAME}"

name="smoke-$(date +%s)-$RANDOM"
echo "POST $VUS_URL/v1.3/indexes ($name)"
curl -fsS -X POST "$VUS_URL/v1.3/indexes" \
  -H "x-api-key: $VUS_API_KEY" -H 'content-type: application/json' \
  -d "{\"index_name\": \"$name\", \"models\": [{\"model_name\": \"marengo3.0\", \"model_options\": [\"visual\", \"audio\"]}]}"
echo
echo "GET $VUS_URL/v1.3/indexes?index_name=$name"
listing=$(curl -fsS "$VUS_URL/v1.3/indexes?index_name=$name" -H "x-api-key: $VUS_API_KEY")
echo "$listing"
case "$listing" in
  *"\"index_name\":\"$name\""*) echo "smoke test passed" ;;
  *) echo "smoke test FAILED: the new index is not listed" >&2; exit 1 ;;
esac
