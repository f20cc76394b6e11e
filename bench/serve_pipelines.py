#!/usr/bin/env python3
"""Writes N pipeline files for the `gantry serve` benchmarks (bench/serve_*.sh).

Each pipeline is a small ETL/training DAG drawn from a seeded random generator, so the same
arguments always write the same files: 2 to 6 tasks (a chain with a fan-out now and then),
log-normal durations, a few tasks that fail now and then and retry, CPU and memory requests,
and one pipeline in ten with a 1-GPU task (which then shares the simulated cluster with the
scenario's own GPU jobs under `gantry serve --cluster`).

  serve_pipelines.py DIR --count 100 --cron '*/10 * * * *' --start 2026-11-09T00:00:00Z \
      [--end 2026-11-15T22:30:00Z] [--scale 1.0] [--max-active 1] [--seed 1]

--scale multiplies every duration: the seeding profile (10-minute cron) uses 1.0, whose runs'
critical paths are 1 to 7 minutes at the median; the soak (1-minute cron) uses 0.1 so a run
takes well under its minute and runs do not pile up (see bench/README.md).
"""
import argparse
import os
import random


def fmt_duration(seconds):
    seconds = max(1, int(round(seconds)))
    if seconds % 60 == 0:
        return f"{seconds // 60}m"
    return f"{seconds}s"


def pipeline(i, args, rng):
    name = f"etl-{i:03d}"
    n_tasks = rng.randint(2, 6)
    gpu_pipeline = i % 10 == 9
    lines = [
        "apiVersion: gantry.dev/v1",
        "kind: Pipeline",
        f"metadata: {{name: {name}, namespace: team-{i % 7}}}",
        "spec:",
        "  schedule:",
        f"    cron: \"{args.cron}\"",
        f"    start: {args.start}",
    ]
    if args.end:
        lines.append(f"    end: {args.end}")
    lines.append("    catchup: false")
    lines.append(f"  concurrency: {{maxActiveRuns: {args.max_active}}}")
    lines.append("  tasks:")
    names = ["extract", "validate", "transform", "features", "train", "evaluate", "load", "report"]
    chosen = names[:n_tasks - 1] + ["load"]
    for j, task in enumerate(chosen):
        median = rng.uniform(20, 90) * args.scale  # seconds
        deps = []
        if j > 0:
            deps.append(chosen[j - 1])
            if j > 1 and rng.random() < 0.3:  # fan-in from an earlier task
                deps.insert(0, chosen[rng.randint(0, j - 2)])
        cpu = rng.choice(["500m", "1", "2", "4"])
        mem = rng.choice(["1Gi", "2Gi", "4Gi", "8Gi"])
        res = f"cpu: \"{cpu}\", memory: {mem}"
        if gpu_pipeline and j == max(0, n_tasks - 2):
            res += ", gpu: \"1\""
        parts = [f"name: {task}", f"image: registry.local/{name}:{rng.randint(1, 9)}",
                 f"resources: {{{res}}}"]
        if deps:
            parts.append(f"dependsOn: [{', '.join(deps)}]")
        sim = (f"duration: {{distribution: lognormal, median: {fmt_duration(median)}, "
               f"p90: {fmt_duration(median * 1.6)}}}")
        if rng.random() < 0.2:  # a flaky task: fails now and then, retried once
            sim += ", failureProbability: 0.05"
            parts.append(f"retry: {{limit: 1, delay: {fmt_duration(10 * args.scale)}}}")
        parts.append(f"simulate: {{{sim}}}")
        lines.append("  - {" + ", ".join(parts) + "}")
    return name, "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--cron", default="*/10 * * * *")
    ap.add_argument("--start", required=True)
    ap.add_argument("--end")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--max-active", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    for i in range(args.count):
        rng = random.Random(args.seed * 100003 + i)
        name, text = pipeline(i, args, rng)
        with open(os.path.join(args.dir, name + ".yaml"), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
