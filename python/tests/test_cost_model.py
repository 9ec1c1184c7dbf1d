"""The cost model's options are declared once (the planning library's
table, Planning/CostModel.h): every pass that plans, the shard-to-llvm
pipeline, shard-plan and Python take the same options, with the same help,
and refuse the same texts with the same message (issue 42, item 5)."""
import re

import pytest

import shardc

OPTIONS = [name for name, _ in shardc.cost_model_options()]


def dashed(name):
    return name.replace("_", "-")


def help_options(text, start):
    """The options listed under `start` in shard-opt's --help: the lines
    indented below it, up to the next pass."""
    lines = text.splitlines()
    first = next(i for i, l in enumerate(lines)
                 if l.strip().startswith(start + " "))
    indent = len(lines[first]) - len(lines[first].lstrip())
    names = []
    for line in lines[first + 1:]:
        if line.lstrip().startswith("="):
            continue  # an enum option's value
        if len(line) - len(line.lstrip()) <= indent:
            break
        m = re.match(r"\s*--([a-z-]+)", line)
        if m:
            names.append((m.group(1), line.split(" - ", 1)[1].strip()))
    return names


def test_the_table_is_the_documented_model():
    assert OPTIONS == ["link", "alpha_us", "beta_gbps", "topology", "plans",
                       "world_size", "peak_gflops"]


def test_every_pass_the_pipeline_and_shard_plan_take_the_table(run_tool):
    helps = {dashed(n): h for n, h in shardc.cost_model_options()}
    code, out, _ = run_tool("shard-opt", "--help")
    assert code == 0
    for start in ["--shard-propagate", "--shard-spmd-partition",
                  "--shard-plan-redistribute", "--shard-to-llvm"]:
        listed = dict(help_options(out, start))
        for name, help_text in helps.items():
            assert listed.get(name, "").startswith(help_text[:60]), \
                (start, name)
    code, out, _ = run_tool("shard-plan", "--help")
    assert code == 0
    for name in helps:
        assert re.search(r"^\s*--%s=<value>" % name, out, re.M), name


@pytest.mark.parametrize("option,text,message", [
    ("link", "ethernet",
     "'ethernet' is not a link class: nvlink or infiniband"),
    ("plans", "all", "'all' is not a plan set: cheapest or direct"),
    ("alpha-us", "fast", "'fast' is not a number"),
    ("world-size", "1.5", "'1.5' is not an integer"),
    ("peak-gflops", "x", "'x' is not a number"),
])
def test_one_parser_one_message(option, text, message, tmp_path, run_tool):
    a = shardc.layout([4], mesh=[2], placements=["S(0)"])
    (tmp_path / "a.json").write_text(a.to_json())
    code, _, err = run_tool("shard-plan", "--from", "a.json", "--to",
                            "a.json", "--%s=%s" % (option, text),
                            cwd=tmp_path)
    assert code != 0 and message in err, err
    code, _, err = run_tool("shard-opt", "-shard-propagate=%s=%s" %
                            (option, text), "/dev/null")
    assert code != 0 and message in err, err
    with pytest.raises(shardc.ShardcError, match=re.escape(message)):
        shardc.plan(a, a, **{option.replace("-", "_"): text})


def test_python_keywords_are_checked():
    a = shardc.layout([4], mesh=[2], placements=["S(0)"])
    with pytest.raises(shardc.ShardcError,
                       match="no cost model option 'lnk' .*link, alpha-us"):
        shardc.plan(a, a, lnk="infiniband")
    with pytest.raises(shardc.ShardcError, match="got a bool"):
        shardc.cost(a, a, world_size=True)
    with pytest.raises(shardc.ShardcError, match="got list"):
        shardc.plan(a, a, alpha_us=[1])
    # -1 is a latency like any other (refused), not "the link's".
    with pytest.raises(shardc.ShardcError, match="alpha-us"):
        shardc.plan(a, a, alpha_us=-1)
    with pytest.raises(shardc.ShardcError, match="peak-gflops"):
        shardc.plan(a, a, peak_gflops=float("nan"))
    # None is the default; numbers and their text are the same option.
    assert shardc.cost(a, a, alpha_us=None) == shardc.cost(a, a)
    b = shardc.layout([4], mesh=[2], placements=["R"])
    assert shardc.cost(a, b, alpha_us=7) == shardc.cost(a, b, alpha_us="7")
    assert shardc.cost(a, b, alpha_us=7) > shardc.cost(a, b)
