"""Turns an annotated program into one for automatic sharding
(-shard-propagate=auto=true): removes every shard.layout from function
signatures and gives each function that had one `shard.mesh = #MESH` (the
mesh alias named by the first argument) and, for `--batch I:D`, argument I
the hint shard.batch = D. Reads stdin, writes stdout."""
import re, sys

mesh = sys.argv[1] if len(sys.argv) > 1 else "#m"
batch = {}
for arg in sys.argv[2:]:
    i, d = arg.split(":")
    batch[int(i)] = int(d)
text = sys.stdin.read()
out, pos = [], 0
for m in re.finditer(r"func\.func @\w+\(", text):
    start = m.start()
    body = text.index("{\n", text.index(")", start))
    # The signature ends at the body's opening brace: the first "{" at the
    # end of a line after the arguments.
    sig = text[start:body]
    if "func.func" in sig[len("func.func"):]:
        continue  # a declaration: no body
    had = "shard.layout" in sig
    sig = re.sub(r"\s*\{shard\.layout = [^{}]*\}", "", sig)
    if had:
        for i, d in batch.items():
            # The i-th "%name: type" argument gets the hint.
            args = list(re.finditer(r"%\w+: tensor<[^>]*>", sig))
            a = args[i]
            sig = sig[:a.end()] + f" {{shard.batch = {d} : i64}}" + sig[a.end():]
        sig = sig.rstrip() + f" attributes {{shard.mesh = {mesh}}} "
    out.append(text[pos:start] + sig)
    pos = body
out.append(text[pos:])
sys.stdout.write("".join(out))
