#!/usr/bin/env python3
"""Medians of `/usr/bin/time -v` outputs, for the benchmark scripts of bench/.

Usage: time_stats.py LABEL FILE... -- prints one line for LABEL: wall median (min, max, runs),
user CPU median and peak resident memory over FILEs (each the stderr of one timed run).
"""
import statistics
import sys


def seconds(clock):  # "m:ss.ss" or "h:mm:ss"
    parts = [float(p) for p in clock.split(":")]
    return sum(p * 60 ** i for i, p in enumerate(reversed(parts)))


def figures(paths):
    wall, user, rss = [], [], []
    for path in paths:
        for line in open(path):
            key, _, value = line.strip().partition(": ")
            if key.startswith("Elapsed"):
                wall.append(seconds(value))
            elif key == "User time (seconds)":
                user.append(float(value))
            elif key == "Maximum resident set size (kbytes)":
                rss.append(int(value))
    return statistics.median(wall), min(wall), max(wall), statistics.median(user), max(rss)


if __name__ == "__main__":
    label, paths = sys.argv[1], sys.argv[2:]
    med, lo, hi, user, rss = figures(paths)
    print(f"{label}: wall median {med:.2f} s (min {lo:.2f}, max {hi:.2f}, {len(paths)} runs), "
          f"user CPU {user:.2f} s, peak memory {rss / 1024:.0f} MiB")
