#!/usr/bin/env python3
"""Checks that two sharded tensor metadata files describe the same tensor:
size, dtype, and shards (offsets, sizes, placements), in the same order.
Device strings and dtype names are compared in their canonical forms.
Usage: same_shards.py A.json B.json"""
import json
import sys


def device(s):
    # "rank:1" is "rank:1/cpu", as PyTorch's str(_remote_device) prints it.
    if s.startswith("rank:") and "/" not in s:
        return s + "/cpu"
    return s


def summary(path):
    with open(path) as f:
        doc = json.load(f)
    dtype = doc["tensor_properties"]["dtype"].removeprefix("torch.")
    shards = [(s["shard_offsets"], s["shard_sizes"], device(s["placement"]))
              for s in doc["shards_metadata"]]
    return doc["size"], dtype, shards


a, b = summary(sys.argv[1]), summary(sys.argv[2])
if a != b:
    sys.exit(f"{sys.argv[1]} and {sys.argv[2]} differ:\n{a}\n{b}")
print(f"same: size {a[0]}, dtype {a[1]}, {len(a[2])} shards")
