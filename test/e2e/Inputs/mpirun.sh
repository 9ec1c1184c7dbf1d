#!/bin/sh
# Usage: mpirun.sh MPIEXEC [ARGS...]
# Runs MPIEXEC with a session directory of its own (under a fresh TMPDIR,
# removed afterwards). lit runs tests in parallel with one TMPDIR, and two
# Open MPI launches that create or clean up the same session directory at
# once can fail ("unable to create the desired directory ... File exists").
dir=$(mktemp -d "${TMPDIR:-/tmp}/mpirun.XXXXXX") || exit 1
TMPDIR=$dir "$@"
status=$?
rm -rf "$dir"
exit $status
