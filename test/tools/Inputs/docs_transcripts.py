"""Runs the transcripts a doc shows and compares their output with it.

Usage: docs_transcripts.py DOC BUILD_DIR WORK_DIR

A transcript is a fenced block whose first line is "$ COMMAND" (continued
with a trailing backslash); the rest of the block is the output the doc
shows. The command runs with bash from WORK_DIR after two substitutions
that only relocate the checkout (as readme_commands.py does): paths under
`build/` point at BUILD_DIR, the repository's own paths (examples/, test/,
python/) at the doc's repository. Its output (stdout and stderr) must be
the block's lines in order; a line "..." or "(...)" in the block stands for
any number of lines. Prints one line per transcript and exits non-zero at
the first that disagrees.
"""
import os
import re
import subprocess
import sys

doc, build, work = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
src = os.path.dirname(os.path.dirname(os.path.abspath(doc)))
blocks = re.findall(r"^```\w*\n(.*?)^```", open(doc).read(), re.S | re.M)


def skips(line):
    return line.strip() == "..." or re.fullmatch(r"\(.*\)", line.strip())


def agrees(shown, got):
    """Whether `got` is `shown`, each skip line standing for any lines."""
    j, skipping = 0, False
    for line in shown:
        if skips(line):
            skipping = True
            continue
        while skipping and j < len(got) and got[j] != line:
            j += 1
        if j >= len(got) or got[j] != line:
            return False, line
        j += 1
        skipping = False
    return (skipping or j == len(got)), (got[j] if j < len(got) else "")


checked = 0
for body in blocks:
    lines = body.rstrip("\n").split("\n")
    if not lines[0].startswith("$ "):
        continue
    command, rest = lines[0][2:], lines[1:]
    while command.endswith("\\") and rest:
        command = command[:-1] + " " + rest[0].strip()
        rest = rest[1:]
    command = command.split(" #")[0].strip()
    run = re.sub(r"(?<![\w/])build/", build + "/", command)
    run = re.sub(r"(?<![\w/])(examples|test|python)/", src + r"/\1/", run)
    result = subprocess.run(["bash", "-c", run], cwd=work,
                            capture_output=True, text=True)
    got = [l.rstrip() for l in (result.stdout + result.stderr).splitlines()]
    shown = [l.rstrip() for l in rest]
    checked += 1
    ok, where = agrees(shown, got)
    if result.returncode != 0 or not ok:
        print(f"transcript {checked} ($ {command}): the output differs from "
              f"the doc's (exit status {result.returncode}) at:\n  {where}\n"
              "it printed:\n" + "\n".join(got))
        sys.exit(1)
    print(f"transcript {checked}: $ {command}: as the doc shows")
print(f"{checked} transcripts checked")
