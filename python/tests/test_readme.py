"""The README's Python section runs as written."""
import os
import re

from conftest import ROOT


def test_readme_python_block_runs(capsys, monkeypatch, tmp_path):
    text = open(os.path.join(ROOT, "README.md")).read()
    section = text[text.index("## From Python"):]
    section = section[:section.index("\n## ", 1)]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 1
    # Run from the repository (its relative paths), writing into tmp_path.
    monkeypatch.chdir(ROOT)
    code = blocks[0].replace('"layout.png"', repr(str(tmp_path / "layout.png")))
    scope = {}
    exec(compile(code, "README.md", "exec"), scope)
    out = capsys.readouterr().out
    assert "all_to_all over mesh axes [0]" in out
    assert scope["p"].steps[0].kind == "all_to_all"
    assert scope["c"].shape == [8, 6]
    assert scope["d"].placements == ["S(0)", "R"]
    assert scope["d"].mesh.mesh == [[0, 2], [1, 3]]
    assert (tmp_path / "layout.png").stat().st_size > 1000
