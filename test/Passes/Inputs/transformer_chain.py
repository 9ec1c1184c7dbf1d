"""Prints bench/partition_scale.py's transformer chain of N blocks: argv[1]
is the bench script, argv[2] the number of blocks; with argv[3] "dynamic",
its batch dynamic and cut on dp (its --dynamic-batch form)."""
import importlib.util
import sys

spec = importlib.util.spec_from_file_location("partition_scale", sys.argv[1])
scale = importlib.util.module_from_spec(spec)
spec.loader.exec_module(scale)
text = scale.transformer_module(int(sys.argv[2]))
if sys.argv[3:] == ["dynamic"]:
    text = scale.dynamic_batch(text)
print(text, end="")
