"""Runs docs/json.md's examples through shard-translate as written.

Usage: docs_json_blocks.py JSON_MD SHARD_TRANSLATE WORK_DIR

Every ```json block that is a whole document (an object with "size") is
imported; where the doc's next code block is ```mlir, that block (what the
doc says the import gives) must appear in the import's output, printed
without aliases. Each imported document is exported again and the export
re-imported: the same type back. Prints one line per block and exits
non-zero at the first that disagrees.
"""
import json
import os
import re
import subprocess
import sys

doc, translate, work = sys.argv[1], sys.argv[2], sys.argv[3]
blocks = re.findall(r"```(\w*)\n(.*?)```", open(doc).read(), re.S)


def squeeze(text):
    return " ".join(text.split())


def run(args, stdin=None):
    result = subprocess.run([translate] + args, input=stdin,
                            capture_output=True, text=True)
    if result.returncode != 0 or result.stderr.strip():
        sys.exit(f"{' '.join(args)} failed or said something on stderr:\n"
                 f"{result.stderr}")
    return result.stdout


checked = 0
for i, (lang, body) in enumerate(blocks):
    if lang != "json":
        continue
    try:
        document = json.loads(body)
    except ValueError:
        continue  # a fragment (a few fields of a larger document)
    if not isinstance(document, dict) or "size" not in document:
        continue
    path = os.path.join(work, f"block{i}.json")
    with open(path, "w") as f:
        f.write(body)
    ir = run(["--import-sharded-metadata", path, "--mlir-print-local-scope"])
    if i + 1 < len(blocks) and blocks[i + 1][0] == "mlir":
        said = squeeze(blocks[i + 1][1])
        if said not in squeeze(ir):
            sys.exit(f"json block {i}: the doc says the import gives\n{said}\n"
                     f"but it gives\n{ir}")
    exported = run(["--export-sharded-metadata", "-"], stdin=ir)
    again = run(["--import-sharded-metadata", "-", "--mlir-print-local-scope"],
                stdin=exported)
    if squeeze(again) != squeeze(ir):
        sys.exit(f"json block {i}: export then import gives\n{again}\n"
                 f"not\n{ir}")
    print(f"json block {i}: imported"
          + (", as the doc says" if i + 1 < len(blocks) and
             blocks[i + 1][0] == "mlir" else "")
          + ", exported and imported back the same")
    checked += 1
print(f"{checked} documents checked")
