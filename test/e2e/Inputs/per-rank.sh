#!/bin/sh
# Usage: per-rank.sh PREFIX CMD [ARGS...]
# Runs CMD with its stdout in PREFIX.<rank>, so that a test can check every
# rank's output on its own instead of the interleaved stream of mpirun.
prefix=$1
shift
rank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}
exec "$@" >"$prefix.$rank"
