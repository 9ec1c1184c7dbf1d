"""A random program of a 1-D mesh (make_random_program.py,
make_random_shapes.py, make_alias_program.py) rewritten for a 2-D mesh [A, B]: each placement list
[P] becomes [P, Q], Q seeded among R, S(0), S(1) (a dim the tensor has) and
P again (a dim cut over both axes), never a Partial; what each value holds
then differs on the two axes, so that moves cross one axis, the other or
both.

  to_2d_mesh.py PROGRAM A B SEED"""
import random
import re
import sys

text = open(sys.argv[1]).read()
a, b = int(sys.argv[2]), int(sys.argv[3])
r = random.Random(int(sys.argv[4]))
text = re.sub(r"#shard\.mesh<shape = \[\d+\]>",
              f"#shard.mesh<shape = [{a}, {b}]>", text)
# A sharding written on an op (make_alias_program.py's) shards nothing on
# the new axis.
text = re.sub(r"loops = \[([^\],]+)\]", r"loops = [\1, -]", text)
TENSOR = re.compile(r"tensor<([^>]*)>")


def rank_of(line, at, end):
    """The rank of the tensor the placements at line[at:end] lay out: the
    type just before ` {shard.layout` (an argument or result), else the
    first after it (a constraint's `: tensor<...>`)."""
    before = [m for m in TENSOR.finditer(line, 0, at)]
    if before and line[before[-1].end():at].lstrip().startswith("{shard.layout"):
        dims = before[-1].group(1)
    else:
        m = TENSOR.search(line, end)
        dims = m.group(1) if m else ""
    return dims.count("x")


out = []
for line in text.split("\n"):
    pieces, last = [], 0
    for m in re.finditer(r"placements = \[([^\],]+)\]", line):
        p = m.group(1)
        rank = rank_of(line, m.start(), m.end())
        choices = ["R", "R"] + [f"S({d})" for d in range(rank)]
        if not p.startswith("P"):
            choices.append(p)
        q = r.choice(choices)
        pieces.append(line[last:m.start()] + f"placements = [{p}, {q}]")
        last = m.end()
    out.append("".join(pieces) + line[last:])
print("\n".join(out), end="")
