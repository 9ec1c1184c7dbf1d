#!/bin/sh
# Usage: fake-mpiexec.sh COUNTER MODE
# A stand-in for mpiexec that tests mpirun.sh: counts its launches in the
# file COUNTER, prints the launch's number on stdout and stderr (and whether
# its TMPDIR is a session directory of mpirun.sh's), then ends as MODE says:
# race-once fails the first launch with Open MPI's shutdown race message
# ("with PID 0"), race-always every launch (a rank that really leaves
# without MPI_Finalize), real-pid fails naming another PID (not the
# launcher's words for either, as Open MPI 4.1 prints them), fail exits 3 saying
# nothing more, ok succeeds, sleep waits 30 s (saying so when terminated),
# stdin prints what it reads.
counter=$1
mode=$2
n=$(($(cat "$counter" 2>/dev/null || echo 0) + 1))
echo "$n" >"$counter"
echo "launch $n: stdout"
echo "launch $n: stderr" >&2
case "$TMPDIR" in
*/mpirun.*/session) echo "launch $n: session directory of its own" ;;
esac
race() {
  echo "mpiexec has exited due to process rank 1 with PID $1 on" >&2
  echo "node vm exiting improperly. There are three reasons this could occur:" >&2
  exit 1
}
case "$mode" in
race-once) [ "$n" -eq 1 ] && race 0 ;;
race-always) race 0 ;;
real-pid) race 4242 ;;
fail) exit 3 ;;
sleep)
  trap 'kill "$s"; echo "launch $n: terminated" >&2; exit 143' TERM
  sleep 30 &
  s=$!
  wait "$s"
  ;;
stdin) sed "s/^/launch $n: read /" ;;
esac
exit 0
