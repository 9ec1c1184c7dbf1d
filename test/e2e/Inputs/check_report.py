# Reads a plan report (shard-run --report, -shard-spmd-partition=report=...) and
# prints, per redistribution, its steps' kinds and groups, and whether it
# receives in all no more than the lower bound for its layouts; exits 1 if
# one does not. (Per rank the bound may split an element among ranks, which
# no plan can: the total is the figure to meet.) With no redistribution it
# prints "no redistribution".
import json
import sys

report = json.load(open(sys.argv[1]))
ok = True
if not report["ops"]:
    print("no redistribution")
for op in report["ops"]:
    kinds = ", ".join(f'{s["kind"]} over {s["group"]}' for s in op["steps"])
    at_bound = op["bytes_received_total"] <= op["lower_bound_total"]
    ok &= at_bound
    print(f'{kinds}: {op["bytes_received_total"]} bytes, '
          f'{"at" if at_bound else "ABOVE"} the lower bound '
          f'{op["lower_bound_total"]}')
sys.exit(0 if ok else 1)
