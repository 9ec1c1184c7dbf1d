#!/bin/sh
# Usage: mpirun.sh MPIEXEC [ARGS...]
# Runs MPIEXEC with a session directory of its own (under a fresh TMPDIR,
# removed afterwards). lit runs tests in parallel with one TMPDIR, and two
# Open MPI launches that create or clean up the same session directory at
# once can fail ("unable to create the desired directory ... File exists").
#
# Open MPI 4's launcher (ORTE) also has a race of its own at shutdown: under
# load, a rank that called MPI_Finalize and exited is now and then reported
# as "process rank N with PID 0 ... exiting improperly" and the launch fails
# after every rank printed its result (open-mpi/ompi#7833, #12607; seen
# here once in about three full test runs, a different test each time).
# The same words (PID 0 too) are what Open MPI 4.1 prints for a rank that
# really exits without MPI_Finalize, which cannot be told apart from
# outside; so a launch that failed with them is run again, twice at most: a
# program that really leaves so fails all three launches, and the third
# one's failure is shown. Only the last launch's output is shown (stdout
# and stderr each kept whole, stdout first); every other outcome is shown
# as it came, at once. A signal (a test's timeout) is passed on to MPIEXEC,
# and nothing is run again.
attempts=3
stopped=0
# MPIEXEC reads this script's stdin (a background job's would be /dev/null).
exec 3<&0
while :; do
  dir=$(mktemp -d "${TMPDIR:-/tmp}/mpirun.XXXXXX") || exit 1
  mkdir "$dir/session" || exit 1
  TMPDIR=$dir/session "$@" <&3 3<&- >"$dir/out" 2>"$dir/err" &
  pid=$!
  trap 'stopped=1; kill -TERM "$pid" 2>/dev/null' TERM INT HUP
  # wait returns early where a signal is trapped: wait again until MPIEXEC
  # has ended.
  while :; do
    wait "$pid"
    status=$?
    kill -0 "$pid" 2>/dev/null || break
  done
  trap - TERM INT HUP
  attempts=$((attempts - 1))
  if [ "$status" -ne 0 ] && [ "$stopped" -eq 0 ] && [ "$attempts" -gt 0 ] &&
    grep -q "with PID 0 on" "$dir/err" "$dir/out" &&
    grep -q "exiting improperly" "$dir/err" "$dir/out"; then
    echo "mpirun.sh: the launch failed with \"with PID 0 ... exiting" \
      "improperly\" (Open MPI's shutdown race, or a rank that left without" \
      "MPI_Finalize); launched again" >&2
    rm -rf "$dir"
    continue
  fi
  cat "$dir/out"
  cat "$dir/err" >&2
  rm -rf "$dir"
  exit "$status"
done
