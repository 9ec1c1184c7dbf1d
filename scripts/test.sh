#!/usr/bin/env bash
# Installs and builds what is missing, then runs every test: the unit and
# MPI tests (ctest) and the regression tests (lit). Ends with both summaries.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

status=0
# One more worker than cores: the MPI tests wait between their busy phases
# (launching ranks, ranks waiting for each other), and a core idled a
# tenth of the time with one worker per core (lit on 2 cores: 11% idle at
# -j2, 2% at -j3; ctest -j2 60-65 s, -j3 50 s).
jobs=$(( $(nproc) + 1 ))
echo
echo "== shardc: lit regression tests"
/usr/lib/llvm-22/bin/lit -sv -j "$jobs" "$SHARDC_BUILD/test" 2>&1 | tee "$SHARDC_BUILD/lit.log" ||
  status=1
echo
echo "== shardc: unit, MPI and embedding tests (ctest)"
(cd "$SHARDC_BUILD" && ctest --output-on-failure -j "$jobs" -E '^shardc-lit$') 2>&1 | tee "$SHARDC_BUILD/ctest.log" ||
  status=1

echo
echo "== shardc: Python tests (pytest)"
if [ -d "$SHARDC_BUILD/python/shardc" ]; then
  (cd "$SHARDC_ROOT" && SHARDC_BUILD="$SHARDC_BUILD" /usr/bin/python3 -m pytest -q -rs \
    -p no:cacheprovider python/tests) 2>&1 | tee "$SHARDC_BUILD/pytest.log" || status=1
else
  echo "pytest: no Python module was built (Python headers or pybind11 missing)" |
    tee "$SHARDC_BUILD/pytest.log"
  status=1
fi

echo
echo "== shardc: summaries"
grep -E "^(Total Discovered Tests|  (Passed|Failed|Unsupported|Expectedly Failed|Unexpectedly Passed|Skipped).*:)" "$SHARDC_BUILD/lit.log" | sed 's/^/lit: /' || true
grep -E "tests passed|tests failed" "$SHARDC_BUILD/ctest.log" | sed 's/^/ctest: /' || true
tail -n 1 "$SHARDC_BUILD/pytest.log" | sed 's/^/pytest: /' || true
exit $status
