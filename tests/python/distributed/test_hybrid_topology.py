"""The hybrid-parallel layout: ranks over the axes data, pipe, sharding and model (Paddle's
order, model fastest), the strategy's degrees and their errors, and the groups a 4-rank job
builds, each checked by an all-reduce over it."""
import json

import pytest

from jobs import run_job
from skiff.distributed import fleet
from skiff.distributed.fleet import CommunicateTopology


def test_ranks_are_laid_out_with_the_model_axis_fastest():
    topo = CommunicateTopology(["data", "pipe", "sharding", "model"], [2, 2, 1, 2])
    assert topo.world_size() == 8
    assert tuple(topo.get_coord(5)) == (1, 0, 0, 1)
    assert topo.get_rank(data=1, pipe=0, sharding=0, model=1) == 5
    assert topo.get_comm_list("model") == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert topo.get_comm_list("pipe") == [[0, 2], [1, 3], [4, 6], [5, 7]]
    assert topo.get_comm_list("data") == [[0, 4], [1, 5], [2, 6], [3, 7]]
    assert topo.get_axis_list("pipe", 1) == [2, 3, 6, 7]
    assert topo.get_rank_from_stage(5, pipe=1) == 7
    with pytest.raises(ValueError, match="no axis 'tensor'"):
        topo.get_dim("tensor")


def test_degrees_are_checked_against_the_world():
    s = fleet.DistributedStrategy()
    s.hybrid_configs = {"mp_degree": 2, "pp_degree": 2}
    assert s.degrees(8) == (2, 2, 1, 2)  # dp inferred
    with pytest.raises(ValueError, match="does not divide the world size 6"):
        s.degrees(6)
    s.hybrid_configs = {"dp_degree": 3}
    with pytest.raises(ValueError, match="= 12, but the world has 8 ranks"):
        s.degrees(8)
    with pytest.raises(ValueError, match="unknown key.*'tp_degree'"):
        s.hybrid_configs = {"tp_degree": 2}
    with pytest.raises(ValueError, match="mp_degree'\\] must be a positive integer"):
        s.hybrid_configs = {"mp_degree": 0}
    with pytest.raises(ValueError, match="schedule_mode'\\] is one of 1F1B, FThenB"):
        s.pipeline_configs = {"schedule_mode": "interleave"}


LAYOUTS = [
    ({"dp_degree": 2, "mp_degree": 2}, {"model": [[0, 1], [2, 3]], "data": [[0, 2], [1, 3]]}),
    ({"pp_degree": 2, "mp_degree": 2}, {"model": [[0, 1], [2, 3]], "pipe": [[0, 2], [1, 3]],
                                        "check": [[0, 1, 2, 3]]}),
    ({"dp_degree": 2, "sharding_degree": 2}, {"sharding": [[0, 1], [2, 3]],
                                              "data": [[0, 2], [1, 3]]}),
]


@pytest.mark.parametrize("configs,want", LAYOUTS, ids=["dp2xmp2", "pp2xmp2", "dp2xsharding2"])
def test_a_four_rank_job_builds_every_group(tmp_path, configs, want):
    code, out, logs = run_job(tmp_path, "hybrid_groups.py", 4, json.dumps(configs),
                              tmp_path / "groups")
    assert code == 0, out + "\n".join(logs.values())
    for rank in range(4):
        got = json.loads((tmp_path / f"groups.{rank}.json").read_text())
        for axis, groups in want.items():
            mine = next(g for g in groups if rank in g)
            assert got[axis]["ranks"] == mine, (rank, axis, got)
            assert got[axis]["sum"] == sum(mine), (rank, axis, got)


def test_a_layout_that_does_not_fit_fails_before_any_collective(tmp_path):
    code, out, logs = run_job(tmp_path, "hybrid_groups.py", 2, json.dumps({"mp_degree": 3}),
                              tmp_path / "groups", timeout=60)
    assert code != 0
    text = out + "\n".join(logs.values())
    assert "mp_degree 3 x pp_degree 1 x sharding_degree 1 = 3 does not divide the world " \
           "size 2" in text, text
