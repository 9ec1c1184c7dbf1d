"""Whether what -shard-propagate's search modelled is what
-shard-spmd-partition moves: for each program, every function's "moves X
us" (explain=true's summary, the search's modelled time of its moves,
window reads included) times the times it runs, summed, against the plan
report's modelled time of every redistribution the partition made, times
the times it runs. A function the search left to op-by-op propagation
leaves its program out (it has no such figure), as does a move whose runs
are not known (a while loop's); the moves of a function
no search chose for and nothing calls (moves written as constraints) are
not counted.

  modelled_moves.py SHARD_OPT [--propagate=OPTIONS] PROGRAM...
  modelled_moves.py SHARD_OPT [--propagate=OPTIONS] --templates TEST...

Prints one line per program that differs (MISMATCH) and a summary; exits 1
where any differs or fewer than half the programs could be checked. With
--templates, each TEST is a lit test whose programs are what its `RUN: sed
-e ... %s > %t...` lines make of it (or itself, where it has no
placeholder); a program shard-opt refuses (the error its test expects) is
left out, as is one a placeholder is left in. A
function's runs: the number of `func.call @F` sites, or 1 where none
calls it (the random programs call only from @main's top level)."""
import json
import os
import re
import subprocess
import sys
import tempfile


def check(opt, path, report, options=""):
    text = open(path).read()
    run = subprocess.run(
        [opt, path, "-shard-propagate=explain=true" + options,
         "-shard-spmd-partition=report=" + report, "-o", os.devnull],
        capture_output=True, text=True)
    if run.returncode != 0:
        return None, "failed: " + run.stderr[-400:]
    if "leaves this function to op-by-op" in run.stderr:
        return None, "left"
    # The function whose `func.func` is on each line, and the first line
    # of each.
    names, starts = {}, []
    for i, line in enumerate(text.split("\n"), 1):
        m = re.match(r"\s*func\.func (?:private )?@([\w.$-]+)", line)
        if m:
            names[i] = m.group(1)
            starts.append(i)
    calls = {name: len(re.findall(r"\bcall @" + re.escape(name) + r"\(",
                                  text)) for name in names.values()}
    modelled = 0.0
    searched = set()
    for m in re.finditer(
            r":(\d+):1: remark: search=whole chose .*?: modelled \S+ us "
            r"\(moves (\S+) us", run.stderr):
        name = names.get(int(m.group(1)))
        if name is None:
            return None, "a summary on no function's line"
        searched.add(name)
        modelled += float(m.group(2)) * (calls[name] or 1)
    moved = 0.0
    for op in json.load(open(report))["ops"]:
        if op.get("times_run") is None:
            return None, "left"  # a move whose runs are not known
        if op.get("dynamic_extent"):
            continue  # a cut dynamic dim's extent summed: not searched
        # A function no search chose for and nothing calls (its moves
        # written as constraints, or no op to shard): not the search's.
        line = int(op["location"].split(":")[-2])
        at = [s for s in starts if s <= line]
        name = names[at[-1]] if at else None
        if name not in searched and not calls.get(name):
            continue
        moved += op["modelled_time_us"] * op["times_run"]
    if not searched:
        return None, "left"
    return (modelled, moved), ""


PLACEHOLDER = re.compile(r"@[A-Z][A-Z0-9]*@")


def expand(test, tmp):
    """The programs test `test` runs: its text through each of its `sed`
    lines' literal substitutions."""
    text = open(test).read()
    name = os.path.splitext(os.path.basename(test))[0]
    if not PLACEHOLDER.search(text):
        return [test]
    out = []
    for k, line in enumerate(re.findall(r"RUN: sed ((?:-e (?:'[^']*'|\"[^\"]*\") ?)+)%s >",
                                        text)):
        program = text
        for expr in re.findall(r"-e (?:'([^']*)'|\"([^\"]*)\")", line):
            expr = expr[0] or expr[1]
            for sub in expr.split(";"):
                m = re.fullmatch(r"\s*s/([^/]*)/([^/$]*)/g?\s*", sub)
                if m:
                    program = program.replace(m.group(1), m.group(2))
        if PLACEHOLDER.search(program):
            continue
        path = os.path.join(tmp, f"{name}.{k}.mlir")
        with open(path, "w") as f:
            f.write(program)
        out.append(path)
    return out


def main():
    opt, programs = sys.argv[1], sys.argv[2:]
    # --propagate=OPTIONS: more of -shard-propagate's options (the search's
    # local search alone: "exact-ops=0").
    options = ""
    if programs[:1] and programs[0].startswith("--propagate="):
        options = " " + programs.pop(0)[len("--propagate="):]
    templates = programs[:1] == ["--templates"]
    checked = differ = 0
    with tempfile.TemporaryDirectory() as tmp:
        if templates:
            programs = [p for test in programs[1:] for p in expand(test, tmp)]
        report = os.path.join(tmp, "report.json")
        for path in programs:
            result, why = check(opt, path, report, options)
            if result is None:
                if why == "left" or (templates and why.startswith("failed")):
                    continue
                print(f"{path}: {why}")
                differ += 1
                continue
            checked += 1
            modelled, moved = result
            # explain prints 4 significant digits.
            if abs(modelled - moved) > 1e-3 + 1e-3 * max(modelled, moved):
                differ += 1
                print(f"{path}: MISMATCH: the search modelled {modelled:.6g}"
                      f" us of moves, the partition moves {moved:.6g} us")
    print(f"modelled_moves: {checked} of {len(programs)} programs checked, "
          f"{differ} differ")
    return 1 if differ or 2 * checked < len(programs) else 0


if __name__ == "__main__":
    sys.exit(main())
