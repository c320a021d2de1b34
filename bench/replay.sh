#!/usr/bin/env bash
# End-to-end `loopguard replay` on the standard 200k-event traffic (read + parse + validate +
# hash + fold + write decisions), raw and pre-hashed. Generates the traffic into bench/data/.
#   npm run build && bash bench/replay.sh
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/data
gen=bench/gen-stream.mjs
[ -s bench/data/raw.jsonl ] || node "$gen" --runs 2000 --calls 50 > bench/data/raw.jsonl
[ -s bench/data/hashed.jsonl ] || node "$gen" --runs 2000 --calls 50 --hashed > bench/data/hashed.jsonl
for f in raw hashed; do
  events=$(wc -l < bench/data/$f.jsonl)
  start=$(date +%s.%N)
  /usr/bin/time -f "%M" -o /tmp/loopguard-bench-rss node dist/cli/main.js replay --config examples/config/tool-loop-agent.json5 bench/data/$f.jsonl > /tmp/loopguard-bench-out.jsonl 2>/dev/null
  end=$(date +%s.%N)
  awk -v f="$f" -v n="$events" -v s="$start" -v e="$end" -v rss="$(cat /tmp/loopguard-bench-rss)" -v d="$(wc -l < /tmp/loopguard-bench-out.jsonl)" \
    'BEGIN { printf "replay %-7s %d events in %.2f s = %d events/s, %d decisions, max RSS %d MB\n", f, n, e - s, n / (e - s), d, rss / 1024 }'
  # read + parse only, the floor for this stream
done
node -e '
const { createReadStream } = require("node:fs");
(async () => { for (const f of ["raw", "hashed"]) { const t = Date.now(); let n = 0, rest = "";
  for await (const c of createReadStream(`bench/data/${f}.jsonl`, { encoding: "utf8", highWaterMark: 1 << 20 })) { const parts = (rest + c).split("\n"); rest = parts.pop(); for (const p of parts) { JSON.parse(p); n++; } }
  console.log(`read+parse only ${f.padEnd(7)} ${n} events = ${Math.round(n / ((Date.now() - t) / 1000))} events/s`); } })();'
