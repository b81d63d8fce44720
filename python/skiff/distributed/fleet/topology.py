"""The layout of a hybrid-parallel job (Paddle's fleet.base.topology): the world's ranks as
a grid over the axes data, pipe, sharding and model (the last varies fastest, so the ranks
of a tensor-parallel group are neighbours), and a communication group along each axis.

    topo = CommunicateTopology(["data", "pipe", "sharding", "model"], [2, 1, 1, 2])
    topo.get_coord(3)                 # Coordinate(data=1, pipe=0, sharding=0, model=1)
    topo.get_comm_list("model")       # [[0, 1], [2, 3]]: the model-parallel groups
    hcg = HybridCommunicateGroup(topo)   # every rank of the world builds every group
    hcg.get_model_parallel_group()    # this rank's; its .ranks are global ranks
"""
import collections
import itertools
import math

from .. import collective

__all__ = ["AXES", "CommunicateTopology", "HybridCommunicateGroup", "ParallelMode"]

AXES = ("data", "pipe", "sharding", "model")


class ParallelMode:
    """What a job's layout is, as Paddle numbers it."""
    DATA_PARALLEL = 0
    TENSOR_PARALLEL = 1
    PIPELINE_PARALLEL = 2
    SHARDING_PARALLEL = 3


class CommunicateTopology:
    """Ranks 0 .. prod(dims) - 1 laid out over the axes ``hybrid_group_names`` of sizes
    ``dims``, the last axis varying fastest."""

    def __init__(self, hybrid_group_names=AXES, dims=(1, 1, 1, 1)):
        if len(hybrid_group_names) != len(dims):
            raise ValueError(f"CommunicateTopology: {len(hybrid_group_names)} axes but "
                             f"{len(dims)} sizes")
        for name, d in zip(hybrid_group_names, dims):
            if isinstance(d, bool) or not isinstance(d, int) or d < 1:
                raise ValueError(f"CommunicateTopology: axis '{name}' has size {d!r}; sizes "
                                 f"are positive integers")
        self._names, self._dims = list(hybrid_group_names), list(dims)
        self.coordinate = collections.namedtuple("Coordinate", self._names)
        self._coords = [self.coordinate(*c)
                        for c in itertools.product(*[range(d) for d in self._dims])]
        self._ranks = {c: r for r, c in enumerate(self._coords)}

    def get_hybrid_group_names(self):
        return list(self._names)

    def get_dim(self, axis_name):
        return self._dims[self._axis(axis_name)]

    get_dim_size = get_dim

    def world_size(self):
        return math.prod(self._dims)

    def get_rank(self, **coords):
        """The rank at the coordinates given for every axis."""
        if sorted(coords) != sorted(self._names):
            raise ValueError(f"CommunicateTopology.get_rank: give every axis of "
                             f"{self._names}, got {sorted(coords)}")
        return self._ranks[self.coordinate(**coords)]

    def get_coord(self, rank):
        if not 0 <= rank < len(self._coords):
            raise ValueError(f"CommunicateTopology: rank {rank} is not in the world of "
                             f"{len(self._coords)}")
        return self._coords[rank]

    def get_axis_list(self, axis_name, index):
        """The ranks whose coordinate on ``axis_name`` is ``index``."""
        a = self._axis(axis_name)
        return [r for r, c in enumerate(self._coords) if c[a] == index]

    def get_comm_list(self, axis_name):
        """The groups along ``axis_name``: for every setting of the other axes, the ranks
        that differ only on this one (in order of their coordinate on it)."""
        a = self._axis(axis_name)
        groups = collections.defaultdict(list)
        for r, c in enumerate(self._coords):
            groups[c[:a] + c[a + 1:]].append(r)
        return [groups[k] for k in sorted(groups)]

    def get_rank_from_stage(self, global_rank, **kwargs):
        """The rank with ``global_rank``'s coordinates except those given (e.g. pipe=1)."""
        coord = self.get_coord(global_rank)._replace(**kwargs)
        return self._ranks[coord]

    def _axis(self, name):
        if name not in self._names:
            raise ValueError(f"CommunicateTopology: no axis '{name}' (axes: {self._names})")
        return self._names.index(name)


class HybridCommunicateGroup:
    """This rank's place in ``topology`` and its group along each axis, plus the "check"
    group (the ranks holding parts of one copy of the model: pipe x model, and sharding
    with ``sharding=True``) over which a gradient's global norm is summed. Creating it makes
    every group on every rank (collective: all ranks must create it together)."""

    def __init__(self, topology):
        self._topo = topology
        self.nranks = collective.get_world_size()
        self.global_rank = collective.get_rank()
        if topology.world_size() != self.nranks:
            raise ValueError(f"hybrid parallel: the layout has {topology.world_size()} ranks "
                             f"but the world has {self.nranks}")
        self._dp_degree = topology.get_dim("data")
        self._pp_degree = topology.get_dim("pipe")
        self._sharding_degree = topology.get_dim("sharding")
        self._mp_degree = topology.get_dim("model")
        self._coord = topology.get_coord(self.global_rank)
        self._groups = {axis: self._make(topology.get_comm_list(axis)) for axis in AXES}
        self._check = {False: self._make(self._across("pipe", "model")),
                       True: self._make(self._across("pipe", "sharding", "model"))}

    def _across(self, *axes):
        """The groups of ranks that differ only on ``axes``."""
        keep = [i for i, a in enumerate(AXES) if a not in axes]
        groups = collections.defaultdict(list)
        for r in range(self.nranks):
            c = self._topo.get_coord(r)
            groups[tuple(c[i] for i in keep)].append(r)
        return [groups[k] for k in sorted(groups)]

    def _make(self, comm_list):
        """Every group of ``comm_list`` made (as every rank must), this rank's returned."""
        mine = None
        for ranks in comm_list:
            group = collective.new_group(ranks)
            if self.global_rank in ranks:
                mine = group
        return mine

    def topology(self):
        return self._topo

    def get_parallel_mode(self):
        if self._mp_degree == 1 and self._pp_degree == 1:
            return (ParallelMode.DATA_PARALLEL if self._sharding_degree == 1
                    else ParallelMode.SHARDING_PARALLEL)
        if self._pp_degree == 1:
            return ParallelMode.TENSOR_PARALLEL
        return ParallelMode.PIPELINE_PARALLEL

    def get_global_rank(self):
        return self.global_rank

    # data parallel
    def get_data_parallel_rank(self):
        return self._coord.data

    def get_data_parallel_world_size(self):
        return self._dp_degree

    def get_data_parallel_group(self):
        return self._groups["data"]

    def get_data_parallel_group_src_rank(self):
        return self._groups["data"].ranks[0]

    # tensor (model) parallel
    def get_model_parallel_rank(self):
        return self._coord.model

    def get_model_parallel_world_size(self):
        return self._mp_degree

    def get_model_parallel_group(self):
        return self._groups["model"]

    def get_model_parallel_group_src_rank(self):
        return self._groups["model"].ranks[0]

    # pipeline parallel
    def get_stage_id(self):
        return self._coord.pipe

    def get_pipe_parallel_world_size(self):
        return self._pp_degree

    def get_pipe_parallel_group(self):
        return self._groups["pipe"]

    def get_rank_from_stage(self, stage_id, **kwargs):
        """The global rank of pipeline stage ``stage_id`` with this rank's other
        coordinates (or those given)."""
        return self._topo.get_rank_from_stage(self.global_rank, pipe=stage_id, **kwargs)

    # sharding
    def get_sharding_parallel_rank(self):
        return self._coord.sharding

    def get_sharding_parallel_world_size(self):
        return self._sharding_degree

    def get_sharding_parallel_group(self):
        return self._groups["sharding"]

    def get_sharding_parallel_group_src_rank(self):
        return self._groups["sharding"].ranks[0]

    def get_check_parallel_group(self, sharding=False):
        return self._check[bool(sharding)]

    def __repr__(self):
        return (f"HybridCommunicateGroup(rank {self.global_rank} of {self.nranks}: "
                f"dp {self._dp_degree}, pp {self._pp_degree}, sharding "
                f"{self._sharding_degree}, mp {self._mp_degree}; coordinate {tuple(self._coord)})")
