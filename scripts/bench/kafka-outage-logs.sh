#!/bin/bash
# How many log lines a service writes about Kafka through a broker outage (issue 34): index-service
# (one consumer group, its outbox relay) on a throwaway PostgreSQL database and the mock broker
# (scripts/kafka-mock/run), the broker stopped 10 s after start, then OUTAGE_S seconds (70) of outage.
# Prints the kafka lines written and what kafkajs raised (first lines + the repeats the summaries count).
# Needs `npx tsc -b services/index-service`, PostgreSQL on 127.0.0.1:5432 (user postgres), python3.
set -u
cd "$(dirname "$0")/../.."
OUTAGE_S=${OUTAGE_S:-70}
DB=bench_kafka_outage_$$
WORK=$(mktemp -d)
psql -q -h 127.0.0.1 -U postgres -c "CREATE DATABASE $DB" >/dev/null
coproc MOCK { exec scripts/kafka-mock/run; }
read -r line <&"${MOCK[0]}"
BLOB_DIR=$WORK DATABASE_URL=postgres://postgres@127.0.0.1:5432/$DB INTERNAL_GRPC_SECRET=bench-kafka-outage-secret-0123456789abcdef \
  KAFKA_BROKERS=${line#BOOTSTRAP } GRPC_BIND=127.0.0.1:0 LOG_LEVEL=info node services/index-service/dist/main.js >"$WORK/log" 2>&1 &
SERVICE=$!
sleep 10
kill "$MOCK_PID"
wait "$MOCK_PID" 2>/dev/null
sleep "$OUTAGE_S"
kill -INT "$SERVICE"
wait "$SERVICE"
python3 - "$WORK/log" "$OUTAGE_S" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{')]
kafka = [l for l in lines if str(l.get('msg', '')).startswith('kafka')]
raised = sum(sum(l.get('repeats', {}).values()) if 'repeats' in l else 1 for l in kafka)
print(f"outage {sys.argv[2]} s: {len(kafka)} kafka log lines written; kafkajs raised {raised} warnings and errors")
for l in kafka: print(' ', l['time'][11:19], l['level'], l['msg'][:100])
PY
psql -q -h 127.0.0.1 -U postgres -c "DROP DATABASE $DB" >/dev/null
rm -rf "$WORK"
