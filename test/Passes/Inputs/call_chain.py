"""Prints a module of N functions, each calling the next (f0 -> f1 -> ...),
each pinning its argument S(0) on a mesh of 2 and computing tanh of what
its callee returns: a chain of calls for shard-propagate at scale."""
import sys

n = int(sys.argv[1])
print("#m = #shard.mesh<shape = [2]>")
pin = "{shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}"
for i in range(n):
    print(f"func.func @f{i}(%x: tensor<8xf32> {pin}) -> tensor<8xf32> {{")
    arg = "%x"
    if i + 1 < n:
        print(f"  %c = func.call @f{i + 1}(%x) : (tensor<8xf32>) -> "
              "tensor<8xf32>")
        arg = "%c"
    print(f"  %t = math.tanh {arg} : tensor<8xf32>")
    print("  return %t : tensor<8xf32>")
    print("}")
