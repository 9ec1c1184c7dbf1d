#!/usr/bin/env python3
"""Feeds mutated sharded tensor metadata (JSON) to shard-translate and reports
any crash: every import must exit 0 or 1 with no assertion, signal or stack
dump, and every successful import must export the same way."""
import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile

EXTREMES = ["-1", "0", "3", "9223372036854775807", "-9223372036854775808",
            "9223372036854775808", "18446744073709551615",
            "4611686018427387904", "99999999999999999999", "1e30", "-1e30",
            "1.5", "-0", "1e999"]
VALUES = ["x", "rank:0", "S(0)", None, True, False, [], {}, 1.5, -1, 0,
          [1, [2]], {"a": 1}, 9223372036854775807, "float32"]
NOISE = list(b'{}[]",:-.e0123456789 ') + [0x00, 0x80, 0xff]
CRASH_SIGNS = ["Stack dump", "PLEASE submit", "Assertion", "LLVM ERROR",
               "terminate called"]


def seeds(dirs):
    """The .json files, and the JSON cases of the .test files."""
    texts = []
    for d in dirs:
        for root, _, names in os.walk(d):
            for n in sorted(names):
                path = os.path.join(root, n)
                if n.endswith(".json"):
                    with open(path) as f:
                        texts.append(f.read())
                elif n.endswith(".test"):
                    with open(path) as f:
                        body = "".join(l for l in f if not l.startswith("#"))
                    texts += [c for c in body.split("// -----")
                              if '"size"' in c]
    return texts


def nodes(value, out):
    """Every container of a parsed document, with its keys or indices."""
    if isinstance(value, dict):
        out.append(value)
        for v in value.values():
            nodes(v, out)
    elif isinstance(value, list):
        out.append(value)
        for v in value:
            nodes(v, out)
    return out


def mutate(text, rng):
    kind = rng.randrange(7)
    if kind == 0:  # truncate
        return text[:rng.randrange(len(text) + 1)].encode()
    if kind == 1:  # numbers replaced by extreme or non-integer values
        tokens = re.split(r"(-?\d+(?:\.\d+)?(?:e\d+)?)", text)
        nums = list(range(1, len(tokens), 2))
        for i in rng.sample(nums, min(len(nums), rng.randint(1, 3))):
            tokens[i] = rng.choice(EXTREMES)
        return "".join(tokens).encode()
    if kind == 4:  # bytes replaced by noise, invalid UTF-8 included
        data = bytearray(text.encode())
        for _ in range(rng.randint(1, 4)):
            if data:
                data[rng.randrange(len(data))] = rng.choice(NOISE)
        return bytes(data)
    try:
        doc = json.loads(text)
    except ValueError:
        return text.encode()
    containers = nodes(doc, [])
    if not containers:
        return text.encode()
    node = rng.choice(containers)
    keys = list(node.keys()) if isinstance(node, dict) else list(range(len(node)))
    if not keys:
        return text.encode()
    key = rng.choice(keys)
    if kind == 2:  # a value of another type
        node[key] = rng.choice(VALUES)
    elif kind == 3:  # a field or an element dropped
        del node[key]
    elif kind == 5:  # a value duplicated into another place
        other = rng.choice(keys)
        node[other] = node[key]
    else:  # deep nesting
        depth = rng.choice([100, 10000, 100000])
        return json.dumps(doc).replace(
            json.dumps(node[key]), "[" * depth + "]" * depth, 1).encode()
    return json.dumps(doc).encode()


def run(cmd, data):
    p = subprocess.run(cmd, input=data, capture_output=True, timeout=60)
    err = p.stderr.decode(errors="replace")
    crashed = p.returncode not in (0, 1) or any(s in err for s in CRASH_SIGNS)
    return p, err, crashed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shard-translate", required=True)
    ap.add_argument("--corpus", action="append", required=True)
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    # Mostly mutations of valid inputs, which reach the deeper checks.
    valid, invalid = [], []
    for text in seeds(args.corpus):
        p = subprocess.run([args.shard_translate, "--import-sharded-metadata",
                            "-"], input=text.encode(), capture_output=True)
        (valid if p.returncode == 0 else invalid).append(text)
    crashes = imported = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(args.cases):
            pool = valid if valid and rng.random() < 0.75 else invalid
            data = mutate(rng.choice(pool or valid), rng)
            path = os.path.join(tmp, f"case{n}.json")
            with open(path, "wb") as f:
                f.write(data)
            steps = [([args.shard_translate, "--import-sharded-metadata",
                       path], b"")]
            p, err, crashed = run(*steps[0])
            if not crashed and p.returncode == 0:
                imported += 1
                steps.append(([args.shard_translate,
                               "--export-sharded-metadata", "-"], p.stdout))
                p, err, crashed = run(*steps[1])
            if crashed:
                crashes += 1
                keep = os.path.join(os.getcwd(), f"fuzz-json-crash-{n}.json")
                with open(keep, "wb") as f:
                    f.write(data)
                print(f"crash: exit {p.returncode} on {keep} in "
                      f"{' '.join(steps[-1][0][1:2])}:\n{err[-2000:]}")
    print(f"fuzz-json: {args.cases} inputs, {imported} imported, "
          f"{crashes} crashes")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
