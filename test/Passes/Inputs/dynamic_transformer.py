"""Prints bench/partition_scale.py's transformer chain of N blocks with a
dynamic batch cut on dp (its --dynamic-batch form): argv[1] is the bench
script, argv[2] the number of blocks."""
import importlib.util
import sys

spec = importlib.util.spec_from_file_location("partition_scale", sys.argv[1])
scale = importlib.util.module_from_spec(spec)
spec.loader.exec_module(scale)
print(scale.dynamic_batch(scale.transformer_module(int(sys.argv[2]))), end="")
