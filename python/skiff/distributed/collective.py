"""Process groups and collectives (Paddle's paddle.distributed API) over skiff's
communicators: Gloo over TCP, its ranks introduced to one another through etcd.

    import skiff.distributed as dist
    dist.init_parallel_env()            # in a worker started by skiff.distributed.launch
    x = skiff.to_tensor([1.0, 2.0])
    dist.all_reduce(x)                  # in place: the sum over ranks
"""
import numpy as np

from .. import _C
from .. import _C_ops
from ..framework.core import apply
from ..framework.mode import mode
from ..tensor.creation import to_tensor as _as_tensor
from .env import ParallelEnv
from ..tensor import split
from ..tensor import concat
from ..tensor import assign
import pickle

__all__ = ["ReduceOp", "Group", "init_parallel_env", "is_initialized", "get_rank",
           "get_world_size", "new_group", "get_group", "destroy_process_group", "barrier",
           "all_reduce", "broadcast", "reduce", "all_gather", "all_gather_object",
           "reduce_scatter", "scatter", "alltoall", "send", "recv", "isend", "irecv",
           "CommunicationError"]

CommunicationError = _C.CommunicationError


class ReduceOp:
    SUM = "sum"
    MAX = "max"
    MIN = "min"
    PROD = "prod"
    AVG = "avg"


_OPS = {ReduceOp.SUM, ReduceOp.MAX, ReduceOp.MIN, ReduceOp.PROD, ReduceOp.AVG}


class Group:
    """Ranks that run collectives together: ``rank`` is this process's rank in the group
    (-1 when it is not a member), ``ranks`` the global ranks, ``id`` its ring."""

    def __init__(self, rank, ranks, gid):
        self.rank = rank
        self.ranks = list(ranks)
        self.id = gid

    @property
    def nranks(self):
        return len(self.ranks)

    world_size = nranks

    def is_member(self):
        return self.rank >= 0

    def get_group_rank(self, rank):
        return self.ranks.index(rank) if rank in self.ranks else -1

    def __repr__(self):
        return f"Group(rank={self.rank}, ranks={self.ranks}, id={self.id})"


class _State:
    env = None
    etcd = None
    world = None
    groups = {}
    next_ring = 1
    epoch = 0  # the membership epoch (elastic jobs form a new world in each)


def _connect(ring, rank, size, timeout=None):
    if size > 1:
        _C.connect_gloo(_State.etcd, _C.rendezvous_prefix(_State.env.job_id, _State.epoch, ring),
                        rank, size, ring, _State.env.host, timeout or _State.env.timeout)
    else:  # collective ops of programs run as in a world of one
        _C.use_single_process_communicator(ring)


def init_parallel_env(epoch=0, rank=None, world_size=None, timeout=None):
    """Joins the job this worker was launched in (no-op on a second call; a single
    process is a world of one). Returns the world group. ``epoch``, ``rank`` and
    ``world_size`` override the launcher's values (elastic training re-forms the world);
    ``timeout`` (seconds) bounds connecting and every collective (default: the launcher's
    --comm_timeout)."""
    env = ParallelEnv()
    if _State.world is not None and epoch == _State.epoch and rank is None:
        return _State.world
    rank = env.rank if rank is None else int(rank)
    size = env.world_size if world_size is None else int(world_size)
    if size > 1 and not env.etcd:
        raise RuntimeError("init_parallel_env: SKIFF_WORLD_SIZE is "
                           f"{size} but SKIFF_ETCD is not set; start workers with "
                           "python -m skiff.distributed.launch")
    destroy_process_group()
    _State.env = env
    _State.epoch = int(epoch)
    if size > 1 and _State.etcd is None:
        _State.etcd = _C.EtcdClient(env.etcd)
    _connect(0, rank, size, timeout)
    _State.world = Group(rank, range(size), 0)
    _State.groups = {0: _State.world}
    _State.next_ring = 1
    return _State.world


def is_initialized():
    return _State.world is not None


def destroy_process_group(group=None):
    """Drops a group's communicator (all of them, and the world, without ``group``)."""
    if group is not None:
        _C.drop_communicator(group.id)
        _State.groups.pop(group.id, None)
        return
    for gid in list(_State.groups):
        _C.drop_communicator(gid)
    _State.groups = {}
    _State.world = None


def _world():
    if _State.world is None:
        return Group(ParallelEnv().rank, range(ParallelEnv().world_size), 0)
    return _State.world


def get_rank(group=None):
    return (group or _world()).rank


def get_world_size(group=None):
    return (group or _world()).nranks


def get_group(gid=0):
    return _State.groups.get(gid)


def new_group(ranks=None, backend=None, timeout=None):
    """A group of some of the world's ranks; every rank of the world must call it (in the
    same order), members and not."""
    world = _world()
    if _State.world is None:
        raise RuntimeError("new_group: call init_parallel_env() first")
    ranks = sorted(set(range(world.nranks) if ranks is None else ranks))
    for r in ranks:
        if not 0 <= r < world.nranks:
            raise ValueError(f"new_group: rank {r} is not in the world of {world.nranks}")
    gid = _State.next_ring
    _State.next_ring += 1
    rank = ranks.index(world.rank) if world.rank in ranks else -1
    if rank >= 0:
        _connect(gid, rank, len(ranks))
    group = Group(rank, ranks, gid)
    _State.groups[gid] = group
    return group


def _group(group, what):
    group = group or _world()
    if group.nranks > 1 and _State.world is None:
        raise RuntimeError(f"{what}: call skiff.distributed.init_parallel_env() first")
    return group


def _check_op(op, what):
    if op not in _OPS:
        raise ValueError(f"{what}: op must be one of ReduceOp.SUM/MAX/MIN/PROD/AVG, got {op!r}")
    return op


class _Done:
    """The task of a collective that has finished (collectives here are synchronous)."""

    def wait(self):
        return True

    def is_completed(self):
        return True


def _finish(sync_op):
    return None if sync_op else _Done()


def all_reduce(tensor, op=ReduceOp.SUM, group=None, sync_op=True):
    """tensor = op over the group's ranks of tensor, in place. In a static program: a
    c_allreduce_<op> op (differentiable for sum and avg)."""
    group = _group(group, "all_reduce")
    _check_op(op, "all_reduce")
    if mode.static:
        apply(f"c_allreduce_{op}", tensor, attrs={"ring_id": group.id}, out=[tensor])
    elif group.nranks > 1 and group.is_member():
        _C.comm_all_reduce(tensor, op, group.id)
    return _finish(sync_op)


def broadcast(tensor, src, group=None, sync_op=True):
    """tensor = the tensor of global rank ``src``, in place (a c_broadcast op in a static
    program)."""
    group = _group(group, "broadcast")
    if mode.static:
        _C_ops.c_broadcast(tensor, ring_id=group.id, root=_group_rank(group, src, "broadcast"),
                           out=[tensor])
    elif group.nranks > 1 and group.is_member():
        _C.comm_broadcast(tensor, _group_rank(group, src, "broadcast"), group.id)
    return _finish(sync_op)


def reduce(tensor, dst, op=ReduceOp.SUM, group=None, sync_op=True):
    """On global rank ``dst``: tensor = op over ranks of tensor (others keep theirs)."""
    group = _group(group, "reduce")
    _check_op(op, "reduce")
    if group.nranks > 1 and group.is_member():
        _C.comm_reduce(tensor, _group_rank(group, dst, "reduce"), op, group.id)
    return _finish(sync_op)


def all_gather(tensor_list, tensor, group=None, sync_op=True):
    """Appends every rank's tensor to ``tensor_list`` (cleared first), in rank order (in a
    static program: a c_allgather op, split)."""
    group = _group(group, "all_gather")
    del tensor_list[:]
    if mode.static:
        gathered = _C_ops.c_allgather(tensor, ring_id=group.id, nranks=group.nranks)
        tensor_list.extend(split(gathered, group.nranks, axis=0))
    elif group.nranks == 1:
        tensor_list.append(tensor.clone())
    elif group.is_member():
        tensor_list.extend(_C.comm_all_gather(tensor, group.id))
    return _finish(sync_op)


def all_gather_object(object_list, obj, group=None):
    """Appends every rank's picklable ``obj`` to ``object_list``, in rank order."""
    group = _group(group, "all_gather_object")
    data = np.frombuffer(pickle.dumps(obj), dtype=np.uint8).astype(np.int32)
    sizes = []
    all_gather(sizes, _as_tensor(np.array([data.size], dtype=np.int64)), group)
    longest = max(int(s.numpy()[0]) for s in sizes)
    padded = np.zeros(longest, dtype=np.int32)
    padded[:data.size] = data
    parts = []
    all_gather(parts, _as_tensor(padded), group)
    del object_list[:]
    for part, size in zip(parts, sizes):
        raw = part.numpy()[:int(size.numpy()[0])].astype(np.uint8).tobytes()
        object_list.append(pickle.loads(raw))


def reduce_scatter(tensor, tensor_list, op=ReduceOp.SUM, group=None, sync_op=True):
    """tensor = op over ranks of their ``tensor_list[rank]`` (one entry per rank)."""
    group = _group(group, "reduce_scatter")
    _check_op(op, "reduce_scatter")
    if len(tensor_list) != group.nranks:
        raise ValueError(f"reduce_scatter: tensor_list has {len(tensor_list)} tensors for "
                         f"{group.nranks} ranks")
    joined = concat(list(tensor_list), axis=0) if tensor_list[0].ndim else \
        _as_tensor(np.stack([t.numpy() for t in tensor_list]))
    result = joined if group.nranks == 1 else _C.comm_reduce_scatter(joined, op, group.id)
    _assign(tensor, result.reshape(tensor.shape))
    return _finish(sync_op)


def scatter(tensor, tensor_list=None, src=0, group=None, sync_op=True):
    """tensor = ``tensor_list[rank]`` of global rank ``src`` (read there only)."""
    group = _group(group, "scatter")
    root = _group_rank(group, src, "scatter")
    if group.rank == root:
        if tensor_list is None or len(tensor_list) != group.nranks:
            raise ValueError(f"scatter: rank {src} needs a tensor_list of {group.nranks} tensors")
        joined = _as_tensor(np.concatenate([np.asarray(t.numpy()).reshape(1, *t.shape)
                                            for t in tensor_list]))
    else:
        joined = _as_tensor(np.zeros([1] + list(tensor.shape), dtype=tensor.numpy().dtype))
    if group.nranks == 1:
        _assign(tensor, joined[0])
    elif group.is_member():
        _assign(tensor, _C.comm_scatter(joined, root, group.id).reshape(tensor.shape))
    return _finish(sync_op)


def alltoall(in_tensor_list, out_tensor_list, group=None, sync_op=True):
    """Rank r's ``out_tensor_list[s]`` = rank s's ``in_tensor_list[r]``."""
    group = _group(group, "alltoall")
    if len(in_tensor_list) != group.nranks:
        raise ValueError(f"alltoall: {len(in_tensor_list)} tensors for {group.nranks} ranks")
    joined = _as_tensor(np.stack([t.numpy() for t in in_tensor_list]))
    out = joined if group.nranks == 1 else _C.comm_all_to_all(joined, group.id)
    del out_tensor_list[:]
    out_tensor_list.extend(out[i] for i in range(group.nranks))
    return _finish(sync_op)


def send(tensor, dst=0, group=None, sync_op=True):
    group = _group(group, "send")
    _C.comm_send(tensor, _group_rank(group, dst, "send"), group.id)
    return _finish(sync_op)


def recv(tensor, src=0, group=None, sync_op=True):
    """tensor = what global rank ``src`` sent (same shape and dtype), in place."""
    group = _group(group, "recv")
    _C.comm_recv(tensor, _group_rank(group, src, "recv"), group.id)
    return _finish(sync_op)


def isend(tensor, dst, group=None):
    return send(tensor, dst, group, sync_op=False)


def irecv(tensor, src, group=None):
    return recv(tensor, src, group, sync_op=False)


def barrier(group=None):
    group = _group(group, "barrier")
    if group.nranks > 1 and group.is_member():
        _C.comm_barrier(group.id)


def _group_rank(group, rank, what):
    r = group.get_group_rank(rank)
    if r < 0:
        raise ValueError(f"{what}: rank {rank} is not in {group}")
    return r


def _assign(tensor, value):
    assign(value, output=tensor)
