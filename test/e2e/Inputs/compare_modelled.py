"""Reads two -shard-propagate explain outputs (search=whole) and prints
whether the second's modelled time (summed over functions) is at most the
first's: `auto X us <= hand Y us`, or `WORSE: ...` and exit 1. With
--memory, also whether the second holds at most the bytes per rank the
first holds (`, holds A <= B bytes`), and `budget B` prints the first's
bytes alone (for memory-budget=B)."""
import re, sys

def summed(path, pattern, what, convert):
    found = re.findall(r"search=whole chose .*" + pattern, open(path).read())
    if not found:
        sys.exit(f"{path}: no search=whole remark{what}")
    return sum(convert(x) for x in found)

def modelled(path):
    return summed(path, r" modelled ([0-9.e+-]+) us", "", float)

def held(path):
    return summed(path, r"; each rank holds ([0-9]+) bytes",
                  " with the bytes held", int)

args = sys.argv[1:]
if args[0] == "budget":
    print(held(args[1]))
    sys.exit(0)
memory = args[0] == "--memory"
if memory:
    args = args[1:]
hand, auto = modelled(args[0]), modelled(args[1])
text = f"auto {auto:.4g} us <= hand {hand:.4g} us"
bad = auto > hand * (1 + 1e-9)
if memory:
    h, a = held(args[0]), held(args[1])
    text += f", holds {a} <= {h} bytes"
    bad = bad or a > h
if bad:
    print("WORSE: " + text)
    sys.exit(1)
print(text)
