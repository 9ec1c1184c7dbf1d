#!/usr/bin/env python3
"""Writes sharded tensor metadata JSON (docs/json.md) for benchmarks and tests.

A ROWS x COLS grid of equal blocks over a tensor of (ROWS*BLOCK) x (COLS*BLOCK)
elements, block i on "rank:i/cpu" (or "rank:i/cuda:0" with --cuda), in the
ShardedTensor form with an enumerable spec. 100 x 1000 gives 10^5 blocks:

    bench/gen_metadata.py --rows 100 --cols 1000 -o grid-1e5.json
"""
import argparse
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100)
    ap.add_argument("--cols", type=int, default=1000)
    ap.add_argument("--block", type=int, default=4,
                    help="the block's size in both dims")
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--cuda", action="store_true")
    ap.add_argument("-o", "--output", default="-")
    args = ap.parse_args()
    b = args.block
    device = "cuda:0" if args.cuda else "cpu"
    lines = []
    for r in range(args.rows):
        for c in range(args.cols):
            rank = r * args.cols + c
            lines.append(f'    {{"shard_offsets": [{r * b}, {c * b}], '
                         f'"shard_sizes": [{b}, {b}], '
                         f'"placement": "rank:{rank}/{device}"}}')
    text = (f'{{\n  "size": [{args.rows * b}, {args.cols * b}],\n'
            f'  "tensor_properties": {{"dtype": "{args.dtype}"}},\n'
            f'  "shards_metadata": [\n' + ",\n".join(lines) + "\n  ]\n}\n")
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
