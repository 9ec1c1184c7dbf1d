#!/bin/sh
# Usage: entry-lines.sh ENTRY FILE [PROGRAM]
# The lines that one launch of shard-run with several entries (or several
# programs: PROGRAM names one, as given to shard-run) printed in FILE for
# @ENTRY, without that label, sorted: what a launch of ENTRY alone prints
# (its diagnostics aside: they carry no label).
label="@$1: "
if [ -n "$3" ]; then
  label="$3 $label"
fi
awk -v label="$label" '{
  at = index($0, label)
  if (at) print substr($0, 1, at - 1) substr($0, at + length(label))
}' "$2" | sort
