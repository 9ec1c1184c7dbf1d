"""redistribute's own checks, in a world of one rank (a subprocess: MPI
started and finalized there): each bad call a ShardcError."""
import os
import subprocess
import sys

from conftest import BUILD

SCRIPT = r"""
import numpy as np
import shardc
a = shardc.layout([4], mesh=[1], placements=["S(0)"])
bf16 = shardc.layout([4], mesh=[1], placements=["S(0)"], dtype="bfloat16")
# Booleans move as bytes, which are not reduced: a partial mask is refused.
psum = shardc.layout([4], mesh=[1], placements=["P(sum)"], dtype="bool")
rbool = shardc.layout([4], mesh=[1], placements=["R"], dtype="bool")
for blocks, layout, to in [([np.zeros(4, np.float64)], a, a),
                           ([np.zeros(4, np.float32)] * 2, a, a),
                           ([np.zeros(3, np.float32)], a, a),
                           ([np.zeros(4)], bf16, bf16),
                           ([np.zeros(4, np.bool_)], psum, rbool)]:
    try:
        shardc.redistribute(blocks, layout, to)
        print("no error")
    except shardc.ShardcError as e:
        print(e)
print(shardc.redistribute(np.arange(4, dtype=np.float32), a, a)[0].tolist())
"""


def test_bad_blocks_raise():
    env = dict(os.environ, PYTHONPATH=os.path.join(BUILD, "python"))
    proc = subprocess.run([sys.executable, "-c", SCRIPT], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "redistribute: the layout holds float32 but block 0 is float64",
        "redistribute: rank 0 owns 1 blocks of the source layout but was "
        "given 2",
        "redistribute: rank 0's block 0 has shape [3] but the source "
        "layout's block there is [4]",
        "redistribute: the layout holds bfloat16 (as uint16 bits: "
        "t.view(torch.uint16)) but block 0 is float64",
        "redistribute: cannot reduce the partial values of i1[4]: the "
        "runtime moves them as bytes and does not reduce them",
        "[0.0, 1.0, 2.0, 3.0]"]
