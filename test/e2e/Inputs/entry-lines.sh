#!/bin/sh
# Usage: entry-lines.sh ENTRY FILE
# The lines that one launch of shard-run with several entries printed in FILE
# for @ENTRY, without that label, sorted: what a launch of ENTRY alone prints
# (its diagnostics aside: they carry no label).
grep -F "@$1: " "$2" | sed -e "s/@$1: //" | sort
