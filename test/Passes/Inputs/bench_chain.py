"""Prints one of bench/partition_scale.py's chains: argv[1] is the bench
script, argv[2] the model ("transformer", "megatron": the chain compared with
upstream, or a program shape of shape_module: "generic", "fanout", ...),
argv[3] the number of blocks; with
argv[4] "dynamic", the transformer's batch dynamic and cut on dp (its
--dynamic-batch form)."""
import importlib.util
import sys

spec = importlib.util.spec_from_file_location("partition_scale", sys.argv[1])
scale = importlib.util.module_from_spec(spec)
spec.loader.exec_module(scale)
model, blocks = sys.argv[2], int(sys.argv[3])
if model == "transformer":
    text = scale.transformer_module(blocks)
elif model == "megatron":
    text = scale.same_chain(blocks, False)
else:
    text = scale.shape_module(model, blocks)
if sys.argv[4:] == ["dynamic"]:
    text = scale.dynamic_batch(text)
print(text, end="")
