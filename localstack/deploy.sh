#!/usr/bin/env bash
# Deploys the trawl stack into the LocalStack of docker-compose.yml with cdklocal, then starts
# the first crawl of crawls.json. Run from anywhere: ./localstack/deploy.sh
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
npx cdklocal deploy --no-notices --require-approval never --outputs-file localstack/outputs.json

machine=$(node -e "const o=require('./localstack/outputs.json'); const s=Object.values(o)[0]; console.log(Object.entries(s).find(([k]) => k.includes('RunStateMachineArn'))[1])")
input=$(node -e "const c=require('./crawls.json').crawls[0]; console.log(JSON.stringify({crawl:c.name, seeds:c.seeds, settings:c.limits ?? {}, maxMinutes:c.maxMinutes}))")
echo "starting crawl on $machine"
node -e "
const { SFNClient, StartExecutionCommand } = require('@aws-sdk/client-sfn');
new SFNClient({ endpoint: '$endpoint' }).send(new StartExecutionCommand({ stateMachineArn: '$machine', input: process.argv[1] }))
  .then((r) => console.log('execution', r.executionArn));
" "$input"
