"""The README's Python section runs as written."""
import os
import re

from conftest import ROOT


def test_readme_python_block_runs(capsys, monkeypatch):
    text = open(os.path.join(ROOT, "README.md")).read()
    section = text[text.index("## From Python"):]
    section = section[:section.index("\n## ", 1)]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 1
    monkeypatch.chdir(ROOT)
    scope = {}
    exec(compile(blocks[0], "README.md", "exec"), scope)
    out = capsys.readouterr().out
    assert "all_to_all over mesh axes [0]" in out
    assert scope["p"].steps[0].kind == "all_to_all"
    assert scope["c"].shape == [8, 6]
