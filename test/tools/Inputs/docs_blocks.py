"""Checks every code block of the README and the docs against the tools.

Usage: docs_blocks.py [--kind KIND,...] BUILD_DIR WORK_DIR DOC...

(--kind: check only the blocks of those kinds, the others skipped: a test
of one kind of check need not run every other.)

Each fenced block must say how it is checked, in an HTML comment on the
line before its fence (invisible where the Markdown is rendered):

  <!-- check: output COMMAND -->   COMMAND succeeds and prints the block
  <!-- check: output-wrapped COMMAND -->   the same; a block line that
                                     starts with spaces continues the line
                                     before it (a long line wrapped)
  <!-- check: excerpt PATH -->      the block's lines are in PATH (a file
                                     the build or another test compiles,
                                     parses or runs), in order
  <!-- check: options -->           each line is a command of the build's
                                     tools; every option it names is in
                                     that tool's --help
  <!-- check: scripts -->           each line runs an executable of the
                                     repository
  <!-- check: json -->              the block parses as JSON
  <!-- check: json-output COMMAND -->   COMMAND succeeds and prints JSON
                                     that has the block's: each field the
                                     block shows, with its value (lists
                                     item by item)
  <!-- check: input FILE COMMAND --> the block, written to FILE, is
                                     accepted: COMMAND succeeds
  <!-- check: ctest NAME -->        the block's line matches ctest NAME's
                                     PASS_REGULAR_EXPRESSION (what the
                                     runtime is tested to print)
  <!-- check: template -->          the block is a message's form: <word>
                                     stands for any text, [text] is
                                     optional; some line of another block of
                                     the doc (itself checked) has that form
  <!-- check: by PATH -->           the test PATH runs this block (PATH
                                     exists and names the doc)

A block whose first line is "$ COMMAND" needs no comment: it is a
transcript, COMMAND's output must be the rest of the block. Nor does a
block that mlir-tblgen writes itself in a doc under docs/generated/ (the
reference it makes of the .td files): an op's syntax ("operation ::= ..."),
an attribute's or type's parameters ("#dialect.name<" ... ">"), a pass's
options ("-name : help"); the examples it copies from the descriptions
say how they are checked, like any other block.

Commands run with bash from WORK_DIR, where `build` links to BUILD_DIR and
each of the repository's own top-level files and folders (examples, test,
python, ...) to the doc's repository: the paths the doc shows work there as
written, and print as the doc shows them.

A transcript shows the whole output, an output check a part of it (from
any line to any line). Output is compared line by line after squeezing
runs of blank space; "..."
within a line stands for any text, a block line "..." or "(...)" for any
number of lines (so does a line in parentheses, "(the plan, in words)");
other lines follow one another as the tool prints them.
An excerpt's lines are found in the file in order, each within a line of
the file, comments (// in C++ and MLIR, # in CMake, shell and Python) left
out on both sides. Prints one line per block; exits non-zero at the first
that disagrees or says nothing of how it is checked.
"""
import json
import os
import re
import shlex
import subprocess
import sys

args = sys.argv[1:]
only = None
if args[:1] == ["--kind"]:
    only, args = set(args[1].split(",")), args[2:]
build, work = os.path.abspath(args[0]), args[1]
docs = args[2:]
FENCE = re.compile(r"^```(\S*)\s*$")
DIRECTIVE = re.compile(r"^<!-- check: (\S+)\s*(.*?)\s*-->\s*$")


def blocks_of(path):
    """(line number, language, directive or None, lines) per fenced block."""
    lines = open(path).read().split("\n")
    found, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start, lang = i, m.group(1)
        j = i + 1
        while j < len(lines) and lines[j].rstrip() != "```":
            j += 1
        if j == len(lines):
            fail(f"{path}:{start + 1}: a block that never closes")
        d = DIRECTIVE.match(lines[start - 1]) if start > 0 else None
        found.append((start + 1, lang, d.groups() if d else None,
                      lines[start + 1:j]))
        i = j + 1
    return found


def repository_of(doc):
    """The folder of the doc's repository: the doc's own, or the one above
    docs/ (and docs/generated/)."""
    src = os.path.dirname(os.path.abspath(doc))
    if os.path.basename(src) == "generated":
        src = os.path.dirname(src)
    if os.path.basename(src) == "docs":
        src = os.path.dirname(src)
    return src


def written_by_tblgen(name, lang, lines):
    """What mlir-tblgen wrote a plain block of a doc under docs/generated/
    from (None: not a block it writes itself)."""
    if not name.startswith("docs/generated/") or lang or not lines:
        return None
    if lines[0].startswith("operation ::= "):
        return "the op's definition"
    if re.fullmatch(r"[#!]\w+\.\w+", lines[0]) or (
            re.fullmatch(r"[#!]\w+\.\w+<", lines[0]) and lines[-1] == ">"
            and all(re.search(r"\s# \w+$", l) for l in lines[1:-1])):
        return "the attribute's or type's definition"
    if all(re.match(r"-[\w-]+\s* : ", l) for l in lines):
        return "the pass's options"
    return None


def fail(message):
    print(message)
    sys.exit(1)


def link_checkout(src):
    """WORK_DIR's links to the build and to the repository's own paths."""
    for name in os.listdir(src):
        if name in (".git", "build"):
            continue
        link = os.path.join(work, name)
        if os.path.islink(link):
            os.remove(link)
        if not os.path.exists(link):
            os.symlink(os.path.join(src, name), link)
    link = os.path.join(work, "build")
    if os.path.islink(link):
        os.remove(link)
    os.symlink(build, link)


def run(command, src):
    result = subprocess.run(["bash", "-c", command], cwd=work,
                            capture_output=True, text=True)
    return result.returncode, (result.stdout + result.stderr).splitlines()


def squeeze(line):
    return " ".join(line.split())


def uncomment(line, lang):
    if lang in ("c++", "cpp", "mlir", ""):
        line = re.sub(r"(^|\s)//.*$", "", line)
    if lang in ("cmake", "sh", "python"):
        line = re.sub(r"(^|\s)#(\s.*)?$", "", line)
    return line


def skips(line):
    """A line that stands for any lines: "...", or a remark in parentheses
    ("(the plan, in words)")."""
    return line == "..." or re.fullmatch(r"\(.*\)", line) is not None


def pattern(line):
    """A shown line as a regex: "..." stands for any text."""
    return ".*?".join(re.escape(piece) for piece in line.split("..."))


def shown_as_printed(shown, got, whole):
    """Whether `got` has `shown`'s lines, consecutive except at skip lines:
    all of `got` where `whole`, else any part of it. Returns (True, None) or
    (False, the shown line where the longest agreement stopped)."""
    shown = [squeeze(l) for l in shown]
    got = [squeeze(l) for l in got]
    furthest = [0]

    def match(i, j):
        # shown[i:] against got[j:]
        skipping = False
        while i < len(shown) and skips(shown[i]):
            skipping, i = True, i + 1
        furthest[0] = max(furthest[0], i)
        if i == len(shown):
            return skipping or not whole or j == len(got)
        want = re.compile(pattern(shown[i]))
        for k in range(j, len(got) if skipping else min(j + 1, len(got))):
            if want.fullmatch(got[k]) and match(i + 1, k + 1):
                return True
        return False

    for start in range(1 if whole else max(len(got), 1)):
        if match(0, start):
            return True, None
    where = min(furthest[0], len(shown) - 1)
    return False, shown[where] if shown else "(nothing shown)"


def output_problem(command, src, shown, whole, label):
    """What is wrong where `command` should succeed and print `shown` (all
    of its output where `whole`), or None."""
    code, got = run(command, src)
    ok, missing = shown_as_printed(shown, got, whole)
    if code == 0 and ok:
        return None
    return (f"{label}: exit status {code}; the doc's line not printed: "
            f"{missing}\nit printed:\n" + "\n".join(got))


def excerpt(shown, path, lang):
    text = open(path).read().split("\n")
    have = [squeeze(uncomment(l, lang)) for l in text]
    j = 0
    for line in shown:
        line = squeeze(uncomment(line, lang))
        if not line or skips(line):
            continue
        want = re.compile(r"(?:^|(?<=[\s(]))" + pattern(line) + r"(?!\w)")
        while j < len(have) and not want.search(have[j]):
            j += 1
        if j == len(have):
            return line
        j += 1
    return None


def tool_options(tool):
    """The options a tool's --help names (-x and --x alike)."""
    code, out = run(f"build/bin/{tool} --help", "")
    if code != 0:
        fail(f"{tool} --help failed")
    return set(re.findall(r"(?:^|\s)--?([A-Za-z][\w-]*)", "\n".join(out)))


def check_options(lines):
    helps = {}
    commands = []
    for line in lines:  # a line that starts with spaces continues a command
        if line[:1] == " " and commands:
            commands[-1] = commands[-1].rstrip("\\") + " " + line
        else:
            commands.append(line)
    # A pipe into another tool starts another command (not the "|" of a
    # synopsis' alternatives).
    piped = []
    for c in commands:
        parts = c.split(" | ")
        piped.append(parts[0])
        for part in parts[1:]:
            first = part.split()[0] if part.split() else ""
            if os.path.exists(os.path.join(build, "bin", first)):
                piped.append(part)
            else:
                piped[-1] += " | " + part
    commands = piped
    for command in commands:
        command = uncomment(command, "sh").strip()
        if not command:
            continue
        words = shlex.split(command)
        if words[0] == "mpirun":  # mpirun [its options] TOOL ...
            tools = [i for i, w in enumerate(words) if os.path.exists(
                os.path.join(build, "bin", os.path.basename(w)))]
            words = words[tools[0]:] if tools else words[1:]
        tool = os.path.basename(words[0])
        if not os.path.exists(os.path.join(build, "bin", tool)):
            return f"{command}: no tool {tool} in the build"
        if tool not in helps:
            helps[tool] = tool_options(tool)
        for word in words[1:]:
            for name in re.findall(r"^\[?--?([A-Za-z][\w-]*)", word):
                if name not in helps[tool]:
                    return f"{command}: {tool} has no option -{name}"
    return None


def json_within(shown, got, where="$"):
    """Where `shown` is not part of `got` (None: it is)."""
    if isinstance(shown, dict):
        if not isinstance(got, dict):
            return where
        for key, value in shown.items():
            if key not in got:
                return f"{where}.{key}"
            problem = json_within(value, got[key], f"{where}.{key}")
            if problem:
                return problem
        return None
    if isinstance(shown, list):
        if not isinstance(got, list) or len(got) != len(shown):
            return where
        for i, (a, b) in enumerate(zip(shown, got)):
            problem = json_within(a, b, f"{where}[{i}]")
            if problem:
                return problem
        return None
    return None if shown == got else where


def template_regex(line):
    """A message's form as a regex: <word> any text, [text] optional."""
    out, i = "", 0
    while i < len(line):
        c = line[i]
        if c == "<":
            i = line.index(">", i) + 1
            out += ".+?"
        elif c == "[":
            j = line.index("]", i)
            out += "(?:" + template_regex(line[i + 1:j]) + ")?"
            i = j + 1
        else:
            out += re.escape(c)
            i += 1
    return out


def ctest_regexes():
    code, out = run(f"ctest --test-dir {shlex.quote(build)} "
                    "--show-only=json-v1", "")
    if code != 0:
        fail("ctest --show-only=json-v1 failed")
    found = {}
    for test in json.loads("\n".join(out))["tests"]:
        for p in test.get("properties", []):
            if p["name"] == "PASS_REGULAR_EXPRESSION":
                value = p["value"]
                found[test["name"]] = value if isinstance(value, list) \
                    else [value]
    return found


checked = 0
ctests = None
for doc in docs:
    src = repository_of(doc)
    name = os.path.relpath(os.path.abspath(doc), src)
    link_checkout(src)
    blocks = blocks_of(doc)
    templates = []
    for number, lang, directive, lines in blocks:
        where = f"{name}:{number}"
        if directive is None and lines and lines[0].startswith("$ "):
            directive = ("transcript", "")
        made = None if directive else written_by_tblgen(name, lang, lines)
        if made:
            if only is None or "generated" in only:
                print(f"{where}: generated: written by mlir-tblgen from "
                      f"{made}")
                checked += 1
            continue
        if directive is None:
            fail(f"{where}: a {lang or 'plain'} block with no "
                 "'<!-- check: ... -->' line before it (how is it tested?)")
        kind, arg = directive
        if only is not None and kind not in only:
            continue
        problem = None
        if kind == "transcript":
            command, rest = lines[0][2:], lines[1:]
            while command.endswith("\\") and rest:
                command = command[:-1] + " " + rest[0].strip()
                rest = rest[1:]
            command = command.split(" #")[0].strip()
            problem = output_problem(command, src, rest, True, "$ " + command)
        elif kind in ("output", "output-wrapped"):
            shown = []
            for line in lines:
                line = uncomment(line, lang) if lang == "mlir" else line
                if kind == "output-wrapped" and line[:1] == " " and shown:
                    shown[-1] += " " + line.strip()
                else:
                    shown.append(line)
            shown = [l for l in shown if l.strip()]
            problem = output_problem(arg, src, shown, False, arg)
        elif kind == "excerpt":
            path = os.path.join(src, arg)
            if not os.path.isfile(path):
                problem = f"no file {arg}"
            else:
                missing = excerpt(lines, path, lang)
                if missing:
                    problem = f"not in {arg} (in this order): {missing}"
        elif kind == "options":
            problem = check_options(lines)
        elif kind == "scripts":
            for line in lines:
                command = uncomment(line, "sh").strip()
                if command:
                    exe = os.path.join(src, command.split()[0])
                    if not os.access(exe, os.X_OK):
                        problem = f"{command.split()[0]} is not an " \
                                  "executable of the repository"
        elif kind == "json":
            try:
                json.loads("\n".join(lines))
            except ValueError as e:
                problem = f"not JSON: {e}"
        elif kind == "json-output":
            code, got = run(arg, src)
            try:
                shown, printed = json.loads("\n".join(lines)), \
                    json.loads("\n".join(got))
                missing = json_within(shown, printed)
                if code != 0 or missing:
                    problem = (f"{arg}: exit status {code}; differs at "
                               f"{missing}\nit printed:\n" + "\n".join(got))
            except ValueError as e:
                problem = f"{arg}: not JSON ({e}):\n" + "\n".join(got)
        elif kind == "input":
            file, command = arg.split(None, 1)
            with open(os.path.join(work, file), "w") as f:
                f.write("\n".join(lines) + "\n")
            code, got = run(command, src)
            if code != 0:
                problem = f"{command}: exit status {code}:\n" + "\n".join(got)
        elif kind == "ctest":
            if ctests is None:
                ctests = ctest_regexes()
            if arg not in ctests:
                problem = f"no ctest {arg} with a PASS_REGULAR_EXPRESSION"
            elif not any(re.search(r, "\n".join(lines)) for r in ctests[arg]):
                problem = f"does not match ctest {arg}'s expression " \
                          f"{ctests[arg]}"
        elif kind == "template":
            templates.append((where, [l for l in lines if l.strip()]))
        elif kind == "by":
            path = os.path.join(src, arg)
            if not os.path.isfile(path):
                problem = f"no test {arg}"
            elif os.path.basename(name) not in open(path).read():
                problem = f"{arg} does not name {os.path.basename(name)}"
        else:
            problem = f"unknown check '{kind}'"
        if problem:
            fail(f"{where}: {kind}: {problem}")
        if kind != "template":
            print(f"{where}: {kind}: as the doc shows")
            checked += 1
    # A form must describe some message the doc shows (and checks).
    for where, form in templates:
        others = [l for number, lang, d, lines in blocks
                  if d is None or d[0] != "template" for l in lines]
        for line in form:
            regex = re.compile(template_regex(line.strip()))
            if not any(regex.fullmatch(o.strip()) for o in others):
                fail(f"{where}: template: no message the doc shows has the "
                     f"form {line.strip()}")
        print(f"{where}: template: as the doc shows")
        checked += 1
print(f"{checked} blocks checked")
