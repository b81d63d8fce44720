"""A model cut into pipeline stages (Paddle's fleet.meta_parallel.PipelineLayer): the model
is a flat list of layer descriptions, and each stage builds and runs its own segment.

    descs = [SharedLayerDesc("embed", nn.Embedding, None, "weight", 100, 16),
             *[LayerDesc(Block, 16) for _ in range(4)],
             SharedLayerDesc("embed", nn.Embedding, tied_logits, "weight", 100, 16)]
    model = PipelineLayer(descs, num_stages=2, loss_fn=nn.CrossEntropyLoss(),
                          seg_method="layer:Block")
    # stage 0 runs the embedding and two blocks, stage 1 two blocks and the tied output

Every stage builds every layer, in the list's order, and keeps only its own: from the same
seed the stages' parameters are then exactly those of one process building the whole list
(the memory of the layers it drops is freed once construction ends). A SharedLayerDesc key
names one layer used at several places (a tied embedding and output projection): it is
built at its first place, and each stage using it holds it; the stages' copies start equal
and ``allreduce_shared_weight_gradients`` sums their gradients of the shared weight.
"""
import functools
import re

from ....nn import Layer, LayerDict
from ....tensor.creation import zeros_like
from ... import collective
from ..topology import AXES, CommunicateTopology
from .recompute import recompute

__all__ = ["LayerDesc", "SharedLayerDesc", "PipelineLayer"]


class LayerDesc:
    """A layer to build later: ``layer_func(*inputs, **kwargs)``, a skiff.nn.Layer class."""

    def __init__(self, layer_func, *inputs, **kwargs):
        if not (isinstance(layer_func, type) and issubclass(layer_func, Layer)):
            raise TypeError(f"{type(self).__name__}: layer_func must be a skiff.nn.Layer "
                            f"subclass, got {layer_func!r}")
        self.layer_func = layer_func
        self.inputs = inputs
        self.kwargs = kwargs

    def build_layer(self):
        return self.layer_func(*self.inputs, **self.kwargs)

    def __repr__(self):
        return f"{type(self).__name__}({self.layer_func.__name__})"


class SharedLayerDesc(LayerDesc):
    """A layer used at every place of the list with the same ``key``. At places with a
    ``forward_func`` the stage runs ``forward_func(layer, *inputs)`` instead of the layer
    (a tied output projection reading the embedding's weight); ``shared_weight_attr`` names
    the parameter whose gradients the stages holding the layer sum."""

    def __init__(self, key, layer_func, forward_func=None, shared_weight_attr="weight",
                 *inputs, **kwargs):
        super().__init__(layer_func, *inputs, **kwargs)
        self.layer_name = key
        self.forward_func = forward_func
        self.shared_weight_attr = shared_weight_attr

    def __repr__(self):
        return f"SharedLayerDesc({self.layer_name!r}, {self.layer_func.__name__})"


def _item_name(item):
    """The name seg_method 'layer:NAME' matches: the class of a layer, the function's."""
    if isinstance(item, LayerDesc):
        return item.layer_func.__name__
    if isinstance(item, Layer):
        return type(item).__name__
    return getattr(item, "__name__", type(item).__name__)


def segment_bounds(items, num_stages, seg_method):
    """The first index of each stage's segment, and len(items): a list of num_stages + 1.
    "uniform": segments as equal as may be (the later stages take one more); "layer:NAME":
    each stage takes the same number of the items whose name matches the regular
    expression NAME and ends after the last of them (the last stage takes what follows)."""
    n = len(items)
    if seg_method == "uniform":
        if n < num_stages:
            raise ValueError(f"PipelineLayer: {n} layers cannot be split into {num_stages} "
                             f"stages (every stage needs at least one)")
        size, extra = divmod(n, num_stages)
        bounds = [0]
        for stage in range(num_stages):
            bounds.append(bounds[-1] + size + (1 if stage >= num_stages - extra else 0))
        return bounds
    if not (isinstance(seg_method, str) and seg_method.startswith("layer:")):
        raise ValueError(f"PipelineLayer: seg_method is 'uniform' or 'layer:NAME', got "
                         f"{seg_method!r}")
    pattern = re.compile(seg_method[len("layer:"):], re.IGNORECASE)
    marked = [i for i, item in enumerate(items) if pattern.search(_item_name(item))]
    if not marked or len(marked) % num_stages:
        raise ValueError(f"PipelineLayer: {len(marked)} layers cannot be split into "
                         f"{num_stages} stages by seg_method {seg_method!r} (of {n} layers, "
                         f"{len(marked)} match; their number must be a positive multiple of "
                         f"the stages)")
    per_stage = len(marked) // num_stages
    return [0] + [marked[(s + 1) * per_stage - 1] + 1 for s in range(num_stages - 1)] + [n]


def _as_inputs(value):
    return value if isinstance(value, tuple) else (value,)


def _default_topology(num_stages):
    """Data parallel over the ranks that the pipeline of ``num_stages`` leaves."""
    world = collective.get_world_size()
    if world % num_stages:
        raise ValueError(f"PipelineLayer: num_stages {num_stages} does not divide the world "
                         f"of {world} ranks")
    return CommunicateTopology(AXES, [world // num_stages, num_stages, 1, 1])


class PipelineLayer(Layer):
    """This rank's stage of a model given as a list of LayerDesc, SharedLayerDesc, built
    Layers or plain functions, cut into ``num_stages`` stages by ``seg_method`` over
    ``topology``'s pipe axis (default: the world split into num_stages stages and data
    parallel over the rest). ``loss_fn(output, label)`` is the loss the last stage
    computes. forward runs this stage's segment: each item takes the previous one's
    output (unpacked when it is a tuple). With ``recompute_interval`` k > 0, training
    keeps only the inputs of each run of k items and recomputes the rest in the
    backward."""

    def __init__(self, layers, num_stages=None, topology=None, loss_fn=None,
                 seg_method="uniform", recompute_interval=0):
        super().__init__()
        if not isinstance(layers, (list, tuple)) or not layers:
            raise ValueError("PipelineLayer: layers must be a non-empty list of LayerDesc, "
                             "Layer or functions")
        if isinstance(recompute_interval, bool) or not isinstance(recompute_interval, int) \
                or recompute_interval < 0:
            raise ValueError(f"PipelineLayer: recompute_interval must be an integer >= 0, "
                             f"got {recompute_interval!r}")
        self._recompute_interval = recompute_interval
        if topology is None:
            if num_stages is None:
                raise ValueError("PipelineLayer: give num_stages or topology")
            topology = _default_topology(num_stages)
        elif num_stages is not None and num_stages != topology.get_dim("pipe"):
            raise ValueError(f"PipelineLayer: num_stages {num_stages} but the topology's "
                             f"pipe axis has {topology.get_dim('pipe')} stages")
        self._topo = topology
        self._num_stages = topology.get_dim("pipe")
        self._stage_id = topology.get_coord(collective.get_rank()).pipe
        self._loss_fn = loss_fn
        self._layers_desc = list(layers)
        self.segment_parts = segment_bounds(self._layers_desc, self._num_stages, seg_method)
        self._start = self.segment_parts[self._stage_id]
        self._end = self.segment_parts[self._stage_id + 1]
        self.shared_layers = LayerDict()
        self.run_function = self._build()
        self._shared_groups = self._make_shared_groups()
        self._synchronize_shared_weights()

    def _build(self):
        """Builds every item in order (so the random draws match one process's), keeping
        this stage's; returns the callables of this stage's segment."""
        shared = {}
        run = []
        for index, item in enumerate(self._layers_desc):
            mine = self._start <= index < self._end
            if isinstance(item, SharedLayerDesc):
                if item.layer_name not in shared:
                    shared[item.layer_name] = item.build_layer()
                layer = shared[item.layer_name]
                if mine:
                    self.shared_layers[item.layer_name] = layer
                    run.append(functools.partial(item.forward_func, layer)
                               if item.forward_func else layer)
            elif isinstance(item, LayerDesc):
                layer = item.build_layer()
                if mine:
                    self.add_sublayer(str(index), layer)
                    run.append(layer)
            elif isinstance(item, Layer):
                if mine:
                    self.add_sublayer(str(index), item)
                    run.append(item)
            elif callable(item):
                if mine:
                    run.append(item)
            else:
                raise TypeError(f"PipelineLayer: layers[{index}] is a "
                                f"{type(item).__name__}, not a LayerDesc, Layer or function")
        return run

    def _shared_places(self):
        """{key: (sorted stages that use it, shared_weight_attr)} for every shared key."""
        places = {}
        for index, item in enumerate(self._layers_desc):
            if isinstance(item, SharedLayerDesc):
                stages, _ = places.setdefault(item.layer_name, (set(), item.shared_weight_attr))
                stages.add(self.get_stage_from_index(index))
        return {key: (sorted(stages), attr) for key, (stages, attr) in places.items()}

    def _make_shared_groups(self):
        """{key: (group of this rank's stages holding it, their first rank, weight)} for the
        keys this stage holds and another stage too. Every rank makes every group, in the
        order of the keys' first places, as new_group requires."""
        groups = {}
        for key, (stages, attr) in self._shared_places().items():
            if len(stages) < 2:
                continue
            for pipe in self._topo.get_comm_list("pipe"):
                ranks = [pipe[s] for s in stages]
                group = collective.new_group(ranks)
                if group.is_member():
                    weight = getattr(self.shared_layers[key], attr)
                    # A global gradient norm counts the weight at its first stage only.
                    weight.is_firstly_shared = collective.get_rank() == ranks[0]
                    groups[key] = (group, ranks[0], weight)
        return groups

    def _synchronize_shared_weights(self):
        """Every stage holding a shared layer takes the first such stage's weight."""
        for group, first, weight in self._shared_groups.values():
            collective.broadcast(weight, first, group)

    def allreduce_shared_weight_gradients(self):
        """Sums each shared weight's gradient over the stages holding it (a stage whose
        segment did not use the weight adds zeros)."""
        for group, _, weight in self._shared_groups.values():
            if weight.grad is None:
                weight.grad = zeros_like(weight)
            collective.all_reduce(weight.grad, group=group)

    def get_stage_from_index(self, layer_idx):
        """The stage whose segment holds layers[layer_idx]."""
        for stage in range(self._num_stages):
            if self.segment_parts[stage] <= layer_idx < self.segment_parts[stage + 1]:
                return stage
        raise ValueError(f"PipelineLayer: layer index {layer_idx} is not in 0 .. "
                         f"{len(self._layers_desc) - 1}")

    def get_num_stages(self):
        return self._num_stages

    def get_stage_id(self):
        return self._stage_id

    def forward(self, input):
        n, k = len(self.run_function), self._recompute_interval
        if not (k and self.training):
            return self._run_segment(0, n, *_as_inputs(input))
        for start in range(0, n, k):
            run = functools.partial(self._run_segment, start, min(start + k, n))
            input = recompute(run, *_as_inputs(input))
        return input

    def _run_segment(self, start, end, *inputs):
        """Items start .. end - 1 of this stage's segment on ``inputs``."""
        x = inputs[0] if len(inputs) == 1 else inputs
        for fn in self.run_function[start:end]:
            x = fn(*x) if isinstance(x, tuple) else fn(x)
        return x

    def extra_repr(self):
        return (f"stage {self._stage_id} of {self._num_stages}: layers {self._start} .. "
                f"{self._end - 1}")
