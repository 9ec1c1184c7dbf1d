"""pytest setup for shardc's Python tests: the package and the tools of
the build in $SHARDC_BUILD (default: build/ beside python/)."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
BUILD = os.environ.get("SHARDC_BUILD", os.path.join(ROOT, "build"))
sys.path.insert(0, os.path.join(BUILD, "python"))


def tool(name):
    return os.path.join(BUILD, "bin", name)


@pytest.fixture
def run_tool():
    """Runs one of the build's tools: (returncode, stdout, stderr)."""
    def run(name, *args, cwd=None):
        proc = subprocess.run([tool(name), *args], capture_output=True,
                              text=True, cwd=cwd)
        return proc.returncode, proc.stdout, proc.stderr
    return run
