#!/usr/bin/env bash
# Builds and runs shardc-bench-validate, then prints the median times of
# checkBlocks at 10^6 blocks, the extra heap per block at 10^5 and 10^6, and
# the ratio against the port of PyTorch's pairwise check at 10^4 blocks.
# Then times shard-translate on sharded tensor metadata of 10^5 blocks (a
# 100x1000 grid from gen_metadata.py): import (parse, check, print IR) and
# export (parse IR, verify, write JSON), medians of 5 runs.
# Arguments go to the benchmark binary (e.g. --benchmark_filter=grid).
# SHARDC_BUILD names the build folder (default ./build), SHARDC_JOBS ninja's -j.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${SHARDC_BUILD:-$root/build}
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release
fi
ninja -C "$build" ${SHARDC_JOBS:+-j"$SHARDC_JOBS"} shardc-bench-validate shard-plan shard-opt \
  shard-translate

json=$(mktemp)
work=$(mktemp -d)
trap 'rm -rf "$json" "$work"' EXIT
"$build/bin/shardc-bench-validate" --benchmark_out="$json" \
  --benchmark_out_format=json "$@"

echo
echo "== shardc: checkBlocks, medians of 5 repetitions"
python3 - "$json" <<'PY'
import json, re, sys

scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
median = {}
for run in json.load(open(sys.argv[1]))["benchmarks"]:
    if run.get("aggregate_name") != "median":
        continue
    name = re.sub(r"/(iterations|repeats):\d+", "", run["run_name"])
    median[name] = run


def ms(name):
    run = median[name]
    return run["real_time"] * scale[run["time_unit"]]


def fmt(t):
    return f"{t:.0f} ms" if t >= 10 else f"{t:.2f} ms"


for kind, label in [("grid", "grid"), ("guillotine", "guillotine"),
                    ("grid-with-hole", "grid with one block missing")]:
    big = f"validate/{kind}/1000000"
    if big not in median:
        continue
    line = f"validate 1e6 {label}: {fmt(ms(big))} median"
    memory = [f"{median[f'validate/{kind}/{n}']['peak_B_per_block']:.0f} B/block "
              f"at {e}" for n, e in [(100000, "1e5"), (1000000, "1e6")]
              if f"validate/{kind}/{n}" in median]
    if memory:
        line += "; extra heap " + ", ".join(memory)
    print(line)
ours, theirs = "validate/grid/10000", "pairwise-port/grid/10000"
if ours in median and theirs in median:
    print(f"pairwise port at 1e4: {fmt(ms(theirs))} vs ours {fmt(ms(ours))}: "
          f"{ms(theirs) / ms(ours):.0f}x")
PY

echo
echo "== shardc: shard-translate at 10^5 blocks, medians of 5 runs"
python3 "$root/bench/gen_metadata.py" --rows 100 --cols 1000 -o "$work/grid.json"
python3 - "$build/bin/shard-translate" "$work" <<'PY'
import os, statistics, subprocess, sys, time

tool, work = sys.argv[1], sys.argv[2]
grid = os.path.join(work, "grid.json")
steps = [
    ("import", ["--import-sharded-metadata", grid, "-o",
                os.path.join(work, "grid.mlir")]),
    ("export", ["--export-sharded-metadata", os.path.join(work, "grid.mlir"),
                "-o", os.path.join(work, "grid.out.json")]),
]
for name, args in steps:
    times = []
    for _ in range(5):
        start = time.perf_counter()
        subprocess.run([tool] + args, check=True)
        times.append(time.perf_counter() - start)
    print(f"{name}-sharded-metadata 1e5 blocks "
          f"({os.path.getsize(args[1]) / 1e6:.1f} MB): "
          f"{statistics.median(times):.2f} s median "
          f"(min {min(times):.2f} s, max {max(times):.2f} s)")
PY

echo
echo "== shardc: the redistribution suite at 1 MiB per rank and up"
python3 "$root/bench/redistribution_suite.py" --shard-plan "$build/bin/shard-plan" \
  --traffic

echo
echo "== shardc: planning at scale, medians of 5 runs"
python3 "$root/bench/plan_scale.py" --shard-opt "$build/bin/shard-opt"
