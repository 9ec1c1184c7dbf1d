"""shardc.redistribute under mpirun on 2, 3 and 4 ranks (mpi4py): every
element of every rank's blocks checked (mpi_redistribute.py)."""
import os
import shutil
import subprocess
import sys

import pytest

from conftest import BUILD

HERE = os.path.dirname(os.path.abspath(__file__))
MPIRUN = shutil.which("mpirun")


@pytest.mark.skipif(MPIRUN is None, reason="no mpirun (openmpi-bin)")
@pytest.mark.parametrize("ranks", [2, 3, 4])
def test_redistribute_on_ranks(ranks):
    # A rank left waiting would be stopped by the runtime after 60 s.
    env = dict(os.environ, PYTHONPATH=os.path.join(BUILD, "python"),
               SHARDRT_TIMEOUT_SECONDS="60")
    proc = subprocess.run(
        [MPIRUN, "--allow-run-as-root", "--oversubscribe", "--mca", "btl",
         "self,vader", "--bind-to", "none", "-np", str(ranks),
         sys.executable, os.path.join(HERE, "mpi_redistribute.py")],
        capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[-1] == "all OK"
    assert [l.split(":")[0] for l in lines[:-1]] == \
        [f"rank {r}" for r in range(ranks)]
    assert all(": OK, " in l for l in lines[:-1])
