"""Pictures of layouts: the text grid (shard-plan --show's) and a
matplotlib figure, one colour per rank, rendered to PNG."""
import matplotlib

matplotlib.use("Agg")

import matplotlib.image  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

import shardc  # noqa: E402


def labels(ax):
    return sorted(t.get_text() for t in ax.texts)


def test_figure_has_a_block_per_region_coloured_by_rank(tmp_path):
    a = shardc.layout([10, 6], mesh=[4], placements=["S(0)"])
    ax = shardc.visualize(a)
    assert len(ax.patches) == 4
    assert labels(ax) == ["0", "1", "2", "3"]
    colours = {tuple(p.get_facecolor()) for p in ax.patches}
    assert len(colours) == 4
    # The rows of each block: 3, 3, 3, 1 (torch.chunk).
    assert sorted(p.get_height() for p in ax.patches) == [1, 3, 3, 3]
    path = tmp_path / "layout.png"
    ax.figure.savefig(path, dpi=50)
    pixels = matplotlib.image.imread(path)
    assert pixels.shape[0] > 50 and pixels.shape[1] > 50
    # Rank 0's colour is in the picture.
    rank0 = ax.patches[0].get_facecolor()[:3]
    found = (abs(pixels[:, :, :3] - rank0).sum(axis=2) < 0.02).sum()
    assert found > 100
    plt.close(ax.figure)


def test_replicas_and_partial_values_are_labelled():
    # [S(0), R] on 2x2: each half of the rows held by two ranks, labelled
    # as the text grid labels them.
    a = shardc.layout([4, 4], mesh=[2, 2], placements=["S(0)", "R"])
    ax = shardc.visualize(a)
    assert labels(ax) == ["0,1", "2,3"]
    assert all(label in a.grid() for label in labels(ax))
    plt.close(ax.figure)
    p = shardc.layout([6], mesh=[2], placements=["P(sum)"])
    assert p.partial
    ax = shardc.visualize(p)
    assert labels(ax) == ["0,1*"]
    plt.close(ax.figure)


def test_visualize_refuses_what_it_cannot_draw():
    with pytest.raises(shardc.ShardcError, match="1-D and 2-D"):
        shardc.visualize(shardc.layout([2, 2, 2], mesh=[2],
                                       placements=["S(0)"]))


def test_text_grid_is_shard_plans(tmp_path, run_tool):
    a = shardc.layout([8, 6], mesh=[2, 2], placements=["S(0)", "S(1)"])
    b = shardc.layout([8, 6], mesh=[2, 2], placements=["R", "S(1)"])
    (tmp_path / "a.json").write_text(a.to_json())
    (tmp_path / "b.json").write_text(b.to_json())
    code, out, err = run_tool("shard-plan", "--from", "a.json", "--to",
                              "b.json", "--show", cwd=tmp_path)
    assert code == 0 and err == "", err
    assert out.startswith(shardc.show(a, b))
    for line in a.grid().splitlines():
        assert line.rstrip() in out


def test_infer_chunk_spec_as_the_pass():
    # Blocks that are torch.chunk's of dim 1: a chunk spec, as PyTorch
    # infers it; others stay enumerable.
    chunks = {"size": [4, 7], "tensor_properties": {"dtype": "float32"},
              "shards_metadata": [
                  {"shard_offsets": [0, 4], "shard_sizes": [4, 3],
                   "placement": "rank:1/cpu"},
                  {"shard_offsets": [0, 0], "shard_sizes": [4, 4],
                   "placement": "rank:0/cpu"}]}
    inferred = shardc.infer_chunk_spec(chunks)
    assert "chunks of dim 1" in inferred.describe()
    assert inferred.blocks == shardc.from_json(chunks).blocks[::-1]
    uneven = dict(chunks)
    uneven["shards_metadata"] = [
        {"shard_offsets": [0, 0], "shard_sizes": [4, 2],
         "placement": "rank:0/cpu"},
        {"shard_offsets": [0, 2], "shard_sizes": [4, 5],
         "placement": "rank:1/cpu"}]
    kept = shardc.infer_chunk_spec(uneven)
    assert kept == shardc.from_json(uneven)
    grid = {"size": [4, 4], "tensor_properties": {"dtype": "float32"},
            "shards_metadata": [
                {"shard_offsets": [r * 2, c * 2], "shard_sizes": [2, 2],
                 "placement": f"rank:{r * 2 + c}"}
                for r in range(2) for c in range(2)]}
    mesh = shardc.infer_chunk_spec(grid, blocks_to_mesh=True)
    assert mesh == shardc.layout([4, 4], mesh=[2, 2],
                                 placements=["S(0)", "S(1)"])
    back = mesh.infer_chunk_spec(mesh_to_blocks=True)
    assert back.blocks == mesh.blocks
    with pytest.raises(shardc.ShardcError, match="opposite"):
        mesh.infer_chunk_spec(blocks_to_mesh=True, mesh_to_blocks=True)
