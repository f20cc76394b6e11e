#!/usr/bin/env bash
# Seeds a runs database for the `gantry serve` REST figure (issue #10): 100 pipelines and
# 100,000 runs, written by the project's own code path — `gantry pipeline run` replays the
# pipelines in virtual time through RunScheduler and SqliteRunStore, so every run, task
# instance and attempt row is one the orchestrator would write (trigger words, states,
# retries after failures, attempt ids), not hand-made SQL.
#
# Pipelines: bench/serve_pipelines.py, cron "*/10 * * * *", schedule start two weeks ago at
# midnight UTC, end 999 ticks later (1,000 ticks each: 100 × 1,000 = 100,000 runs), tasks of
# 20 to 90 s median. The replay goes on one day past the last tick so every run has finished.
# Also writes DIR/serve-pipelines/: the same pipelines without the end, which the benchmark's
# server applies (--pipelines) so that it keeps scheduling them live.
#
# Usage: bench/serve_seed.sh DIR [pipelines=100] [runs-per-pipeline=1000]
#   writes DIR/seed.db (replaced), DIR/seed-pipelines/, DIR/serve-pipelines/
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$1
count=${2:-100}
per=${3:-1000}
gantry=${GANTRY:-build/gantry}
mkdir -p "$dir"
rm -rf "$dir/seed-pipelines" "$dir/serve-pipelines" "$dir/seed.db"*

read -r start end until < <(python3 - "$per" <<'PY'
import datetime as d, sys
per = int(sys.argv[1])
s = (d.datetime.now(d.timezone.utc) - d.timedelta(days=14)).replace(hour=0, minute=0, second=0, microsecond=0)
e = s + d.timedelta(minutes=10 * (per - 1))
u = e + d.timedelta(days=1)
f = lambda t: t.strftime("%Y-%m-%dT%H:%M:%SZ")
print(f(s), f(e), f(u))
PY
)
python3 bench/serve_pipelines.py "$dir/seed-pipelines" --count "$count" --cron '*/10 * * * *' \
  --start "$start" --end "$end"
python3 bench/serve_pipelines.py "$dir/serve-pipelines" --count "$count" --cron '*/10 * * * *' \
  --start "$start"
t0=$(date +%s.%N)
"$gantry" pipeline run "$dir/seed-pipelines" --from "$start" --until "$until" \
  --format json --db "$dir/seed.db" >/dev/null
t1=$(date +%s.%N)
echo "seeded $dir/seed.db in $(python3 -c "print(f'{$t1 - $t0:.1f}')") s: $(sqlite3 -readonly "$dir/seed.db" \
  "select (select count(distinct pipeline) from runs) || ' pipelines, ' || (select count(*) from runs) || ' runs (' || (select group_concat(state || ' ' || n, ', ') from (select state, count(*) n from runs group by state)) || '), ' || (select count(*) from task_instances) || ' task instances, ' || (select count(*) from attempts) || ' attempts'"), $(du -m "$dir/seed.db" | cut -f1) MiB" >&2
