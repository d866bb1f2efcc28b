#!/usr/bin/env bash
# Deploys the trawl stack (without enrichment) into the LocalStack of docker-compose.yml with
# cdklocal, then runs the first crawl of crawls.json and prints what it stored. Run from anywhere: ./localstack/deploy.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_REGION="${AWS_REGION:-us-east-1}" CDK_DEFAULT_ACCOUNT=000000000000 CDK_DEFAULT_REGION="${AWS_REGION:-us-east-1}"
endpoint="${AWS_ENDPOINT_URL:-http://localhost:4566}"

echo "waiting for LocalStack at $endpoint ..."
for _ in $(seq 1 60); do
  curl -fs "$endpoint/_localstack/health" >/dev/null && break
  sleep 2
done
curl -fs "$endpoint/_localstack/health" >/dev/null || { echo "LocalStack is not answering at $endpoint: start it with 'docker compose -f localstack/docker-compose.yml up -d'" >&2; exit 1; }

[ -d node_modules ] || npm ci
npx cdklocal bootstrap --no-notices
# LocalStack has no S3 Vectors and no CloudWatch dashboards: the stack goes without enrichment
# (Summarize, Index, the vector index) and without its dashboard.
npx cdklocal deploy --no-notices --require-approval never -c enrichment=false -c dashboard=false --outputs-file localstack/outputs.json

# Starts the first crawl of crawls.json, waits for its run to end and prints what it stored.
node localstack/crawl.mjs "$endpoint"
