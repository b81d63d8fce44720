"""Tensor-parallel layers (Paddle's fleet.meta_parallel): each rank of the model-parallel
group holds a slice of a weight and the layers communicate through mp_ops.

    fleet.init(is_collective=True, strategy=s)     # s.hybrid_configs = {"mp_degree": 2}
    emb = VocabParallelEmbedding(vocab, hidden)     # each rank a range of the vocabulary
    up = ColumnParallelLinear(hidden, 4 * hidden, gather_output=False)
    down = RowParallelLinear(4 * hidden, hidden, input_is_parallel=True)
    head = ColumnParallelLinear(hidden, vocab, gather_output=False)
    loss = ParallelCrossEntropy()(head(down(up(emb(ids)))), labels)

A split weight is made whole on every rank (same draws of the generator as one process
would make, so the same values when every rank is seeded alike) and then cut to this
rank's slice; it carries ``is_distributed = True`` and ``split_axis`` (the axis it is
split along) so that checkpoint tools can gather it.
"""
from ....framework.grad_mode import no_grad
from ....nn import Layer
from ....nn import functional as F
from ....nn.initializer import Constant
from ....tensor import logical_and, where, zeros_like
from .mp_ops import _c_concat, _c_identity, _c_softmax_with_cross_entropy, _c_split
from .mp_ops import _mp_allreduce, model_parallel_group

__all__ = ["ColumnParallelLinear", "RowParallelLinear", "VocabParallelEmbedding",
           "ParallelCrossEntropy"]


def _part(what, name, size, group):
    """``size`` // the group's degree, after checking that it divides."""
    if size % group.nranks:
        raise ValueError(f"{what}: {name} {size} is not divisible by the model-parallel "
                         f"degree {group.nranks}")
    return size // group.nranks


def _split_parameter(layer, shape, attr, axis, group, is_bias=False):
    """A parameter of ``layer`` holding this rank's slice, along ``axis``, of a parameter of
    ``shape`` initialised whole as in one process."""
    param = layer.create_parameter(shape, attr, is_bias=is_bias)
    if param is None or group.nranks == 1:
        return param
    if getattr(param, "_lazy_init", None) is not None:
        raise ValueError(f"{type(layer).__name__}: split parameters cannot be made under "
                         f"LazyGuard (they are initialised whole, then cut)")
    part = shape[axis] // group.nranks
    index = [slice(None)] * len(shape)
    index[axis] = slice(group.rank * part, (group.rank + 1) * part)
    with no_grad():
        param._set_value(param[tuple(index)].contiguous())
    param.is_distributed = True
    param.split_axis = axis
    return param


class ColumnParallelLinear(Layer):
    """y = x · weight + bias with weight [in_features, out_features] split by columns: each
    rank computes out_features / degree outputs; ``gather_output`` joins them on every
    rank, else each keeps its slice (to feed a RowParallelLinear with input_is_parallel).
    ``has_bias`` None or False: no bias (as Paddle); a bias starts at zero and is split too.
    ``fuse_matmul_bias`` is accepted (the matmul and bias are one op here already)."""

    def __init__(self, in_features, out_features, weight_attr=None, has_bias=None,
                 gather_output=True, fuse_matmul_bias=False, mp_group=None, name=None):
        super().__init__()
        what = "ColumnParallelLinear"
        self.model_parallel_group = model_parallel_group(mp_group, what)
        self.world_size = self.model_parallel_group.nranks
        self.is_mp = self.world_size > 1
        self.in_features, self.out_features = int(in_features), int(out_features)
        self.output_size_per_partition = _part(what, "out_features", self.out_features,
                                               self.model_parallel_group)
        self.gather_output, self.fuse_matmul_bias, self.name = gather_output, fuse_matmul_bias, name
        self.weight = _split_parameter(self, [self.in_features, self.out_features], weight_attr,
                                       1, self.model_parallel_group)
        self.bias = (_split_parameter(self, [self.out_features], Constant(0.0), 0,
                                      self.model_parallel_group, is_bias=True)
                     if has_bias else None)

    def forward(self, x):
        out = F.linear(_c_identity(x, self.model_parallel_group), self.weight, self.bias)
        return _c_concat(out, self.model_parallel_group) if self.gather_output else out

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"model_parallel_degree={self.world_size}, gather_output={self.gather_output}")


class RowParallelLinear(Layer):
    """y = x · weight + bias with weight [in_features, out_features] split by rows: each
    rank multiplies its slice of x's last axis (``input_is_parallel``: x is that slice
    already, else it is cut here) and the partial products are summed over the ranks;
    the bias (zeros, whole on every rank) is added after the sum."""

    def __init__(self, in_features, out_features, weight_attr=None, has_bias=True,
                 input_is_parallel=False, fuse_matmul_bias=False, mp_group=None, name=None):
        super().__init__()
        what = "RowParallelLinear"
        self.model_parallel_group = model_parallel_group(mp_group, what)
        self.world_size = self.model_parallel_group.nranks
        self.is_mp = self.world_size > 1
        self.in_features, self.out_features = int(in_features), int(out_features)
        self.input_size_per_partition = _part(what, "in_features", self.in_features,
                                              self.model_parallel_group)
        self.input_is_parallel, self.fuse_matmul_bias = input_is_parallel, fuse_matmul_bias
        self.name = name
        self.weight = _split_parameter(self, [self.in_features, self.out_features], weight_attr,
                                       0, self.model_parallel_group)
        self.bias = (self.create_parameter([self.out_features], Constant(0.0), is_bias=True)
                     if has_bias else None)

    def forward(self, x):
        if not self.input_is_parallel:
            x = _c_split(x, self.model_parallel_group)
        out = _mp_allreduce(F.linear(x, self.weight), self.model_parallel_group)
        return out if self.bias is None else out + self.bias

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"model_parallel_degree={self.world_size}, "
                f"input_is_parallel={self.input_is_parallel}")


class VocabParallelEmbedding(Layer):
    """An embedding table [num_embeddings, embedding_dim] split by rows: rank r holds the
    ids [r * n, (r + 1) * n) for n = num_embeddings / degree, looks up the ids in its
    range (others give zero rows), and the lookups are summed over the ranks."""

    def __init__(self, num_embeddings, embedding_dim, weight_attr=None, mp_group=None,
                 name=None):
        super().__init__()
        what = "VocabParallelEmbedding"
        self.model_parallel_group = model_parallel_group(mp_group, what)
        self.world_size = self.model_parallel_group.nranks
        self.is_mp = self.world_size > 1
        self.num_embeddings, self.embedding_dim = int(num_embeddings), int(embedding_dim)
        per_part = _part(what, "num_embeddings", self.num_embeddings,
                         self.model_parallel_group)
        self.vocab_start_index = self.model_parallel_group.rank * per_part
        self.vocab_end_index = self.vocab_start_index + per_part
        self.name = name
        self.weight = _split_parameter(self, [self.num_embeddings, self.embedding_dim],
                                       weight_attr, 0, self.model_parallel_group)

    def forward(self, x):
        if not self.is_mp:
            return F.embedding(x, self.weight)
        inside = logical_and(x >= self.vocab_start_index, x < self.vocab_end_index)
        local = where(inside, x - self.vocab_start_index, zeros_like(x))
        rows = F.embedding(local, self.weight) * inside.unsqueeze(-1).astype(self.weight.dtype)
        return _mp_allreduce(rows, self.model_parallel_group)

    def extra_repr(self):
        return (f"{self.num_embeddings}, {self.embedding_dim}, vocab range "
                f"[{self.vocab_start_index}, {self.vocab_end_index})")


class ParallelCrossEntropy(Layer):
    """Softmax cross entropy of logits split over the model-parallel ranks on the class
    axis (a ColumnParallelLinear without gather_output): forward(input [..., C / degree],
    label [...] or [..., 1] of global class ids) returns the loss [..., 1]; labels equal to
    ``ignore_index`` give 0."""

    def __init__(self, mp_group=None, name=None, ignore_index=-100):
        super().__init__()
        self.model_parallel_group = model_parallel_group(mp_group, "ParallelCrossEntropy")
        self.world_size = self.model_parallel_group.nranks
        self.ignore_index, self.name = ignore_index, name

    def forward(self, input, label):
        return _c_softmax_with_cross_entropy(input, label, self.model_parallel_group,
                                             self.ignore_index)
