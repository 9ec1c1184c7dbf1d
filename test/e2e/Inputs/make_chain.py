"""Prints a function applying N elementwise ops (add, mul, max, sub in turn)
to a tensor sharded on a 1-D mesh of RANKS devices: no communication."""
import argparse

p = argparse.ArgumentParser()
p.add_argument("--ops", type=int, default=50)
p.add_argument("--ranks", type=int, default=4)
p.add_argument("--shape", default="10x6")
a = p.parse_args()
t = f"tensor<{a.shape}xf32>"
lay = (f"#shard.placements<mesh = #shard.mesh<shape = [{a.ranks}]>, "
       f"placements = [S(0)]>")
print(f"func.func @chain(%x: {t} {{shard.layout = {lay}}}, %y: {t}) -> {t} {{")
names = ["arith.addf", "arith.mulf", "arith.maximumf", "arith.subf"]
prev = "%x"
for i in range(a.ops):
    print(f"  %v{i} = {names[i % 4]} {prev}, %y : {t}")
    prev = f"%v{i}"
print(f"  return {prev} : {t}")
print("}")
