"""Reads two -shard-propagate explain outputs (search=whole) and prints
whether the second's modelled time (summed over functions) is at most the
first's: `auto X us <= hand Y us`, or `WORSE: ...` and exit 1."""
import re, sys

def modelled(path):
    found = re.findall(r"search=whole chose .* modelled ([0-9.e+-]+) us",
                       open(path).read())
    if not found:
        sys.exit(f"{path}: no search=whole remark")
    return sum(float(x) for x in found)

hand, auto = modelled(sys.argv[1]), modelled(sys.argv[2])
if auto <= hand * (1 + 1e-9):
    print(f"auto {auto:.4g} us <= hand {hand:.4g} us")
else:
    print(f"WORSE: auto {auto:.4g} us > hand {hand:.4g} us")
    sys.exit(1)
