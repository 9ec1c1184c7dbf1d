#!/usr/bin/env python3
"""Feeds mutated .mlir inputs to shard-opt and reports any crash."""
import argparse
import os
import random
import re
import subprocess
import sys
import tempfile

EXTREMES = ["-1", "0", "9223372036854775807", "-9223372036854775808",
            "4611686018427387904", "99999999999999999999", "3"]
PIPELINES = [[], ["-shard-plan-redistribute"],
             ["-shard-plan-redistribute", "-shard-lower-to-runtime"],
             ["--shard-to-llvm"]]
CRASH_SIGNS = ["Stack dump", "PLEASE submit", "Assertion", "LLVM ERROR",
               "terminate called"]


def corpus(dirs):
    files = []
    for d in dirs:
        for root, _, names in os.walk(d):
            files += [os.path.join(root, n) for n in sorted(names)
                      if n.endswith(".mlir")]
    return sorted(files)


def mutate(text, rng):
    tokens = re.split(r"(\s+|[\[\]<>(){},=:])", text)
    kind = rng.randrange(5)
    if kind == 0:  # truncate
        return text[:rng.randrange(len(text) + 1)]
    if kind == 1:  # replace a number by an extreme value
        nums = [i for i, t in enumerate(tokens) if re.fullmatch(r"-?\d+", t)]
        for i in rng.sample(nums, min(len(nums), rng.randint(1, 3))):
            tokens[i] = rng.choice(EXTREMES)
        return "".join(tokens)
    if kind == 2:  # drop a token
        i = rng.randrange(len(tokens))
        return "".join(tokens[:i] + tokens[i + 1:])
    if kind == 3:  # repeat a token
        i = rng.randrange(len(tokens))
        return "".join(tokens[:i + 1] + tokens[i:])
    # swap two tokens
    i, j = rng.randrange(len(tokens)), rng.randrange(len(tokens))
    tokens[i], tokens[j] = tokens[j], tokens[i]
    return "".join(tokens)


# A frame of an upstream dialect op's custom parser (mlir::linalg::
# TransposeOp::parse(mlir::OpAsmParser&, ...)) or printer
# (mlir::tensor::PadOp::print(mlir::OpAsmPrinter&)).
UPSTREAM_PARSE = re.compile(r"mlir::(\w+)::(\w+)Op::parse\(mlir::OpAsmParser")
UPSTREAM_PRINT = re.compile(r"mlir::(\w+)::(\w+)Op::print\(mlir::OpAsmPrinter")


def upstream_parser_crash(stderr, passes_ran):
    """The op ("linalg.Transpose") when a crash's stack reaches an upstream
    op's own parser before any frame of shardc's, or, where no pass ran
    (the op is as parsed), its own printer: a defect of MLIR's on a mutated
    input (upstream's mlir-opt crashes alike: tensor.pad with a padding of
    -2^63, the dynamic sentinel, parses and crashes printing), which shardc
    cannot reach. None otherwise."""
    for line in stderr.splitlines():
        if not re.match(r"\s*#\d+ ", line):
            continue
        if "shardc" in line:
            return None
        m = UPSTREAM_PARSE.search(line) or (
            None if passes_ran else UPSTREAM_PRINT.search(line))
        if m:
            return f"{m.group(1)}.{m.group(2)}"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shard-opt", required=True)
    ap.add_argument("--corpus", action="append", required=True)
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    # Split files into their -split-input-file chunks.
    seeds = []
    for path in corpus(args.corpus):
        with open(path) as f:
            seeds += [c for c in f.read().split("// -----") if "shard" in c]
    crashes = 0
    upstream = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(args.cases):
            text = mutate(rng.choice(seeds), rng)
            path = os.path.join(tmp, f"case{n}.mlir")
            with open(path, "w") as f:
                f.write(text)
            cmd = [args.shard_opt, path] + rng.choice(PIPELINES)
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
            crashed = p.returncode not in (0, 1) or any(
                s in p.stderr for s in CRASH_SIGNS)
            passes_ran = len(cmd) > 2
            if crashed and upstream_parser_crash(p.stderr, passes_ran):
                upstream.append(upstream_parser_crash(p.stderr, passes_ran))
                print(f"upstream MLIR's parser or printer crashed on case {n} "
                      f"(in {upstream[-1]}), not counted:\n{p.stderr[-600:]}")
                continue
            if crashed:
                crashes += 1
                keep = os.path.join(os.getcwd(), f"fuzz-crash-{n}.mlir")
                with open(keep, "w") as f:
                    f.write(text)
                print(f"crash: exit {p.returncode} on {keep} with "
                      f"{' '.join(cmd[2:])}:\n{p.stderr[-2000:]}")
    note = ""
    if upstream:
        note = (f"; {len(upstream)} in upstream MLIR's parser or printer of "
                f"{', '.join(sorted(set(upstream)))}, not counted")
    print(f"fuzz: {args.cases} inputs, {crashes} crashes{note}")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
