"""Runs the shell commands of README.md's tool sections as written.

Usage: readme_commands.py README BUILD_DIR WORK_DIR

Every ```sh block after the "## Tools" heading is run with bash, from
WORK_DIR, after two substitutions that only relocate the checkout: paths
under `build/` point at BUILD_DIR and the repository's own paths (examples/,
test/, python/) at the README's folder. Each command's output is printed after a
"$ command" line; a failing command stops the script with its status.
"""
import os
import re
import subprocess
import sys

readme, build, work = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
src = os.path.dirname(os.path.abspath(readme))
text = open(readme).read()
text = text[text.index("## Tools"):]
blocks = re.findall(r"```sh\n(.*?)```", text, re.S)
if not blocks:
    sys.exit("no sh blocks after '## Tools' in " + readme)
for block in blocks:
    if "..." in block:
        sys.exit("a placeholder ('...') in a README command:\n" + block)
    # Continuation lines joined: one command per line.
    for command in block.replace("\\\n", " ").splitlines():
        command = command.split("#")[0].strip()
        if not command:
            continue
        run = re.sub(r"(?<![\w/])build/", build + "/", command)
        run = re.sub(r"(?<![\w/])(examples|test|python)/", src + r"/\1/",
                     run)
        print("$ " + command, flush=True)
        result = subprocess.run(["bash", "-c", run], cwd=work)
        if result.returncode != 0:
            sys.exit(result.returncode)
