"""One argument for one parameter: the parameter's name and default pick a family (tensor,
axis, shape, float, flag, string, dtype, ...) whose sensible values get a call past its first
checks; odd values from values.odd_value come in at a fixed rate.

    draw = Draw(rng, base_shape=[2, 3], base_dtype="float32")
    draw.argument(inspect.signature(skiff.diff).parameters["n"])   # a recipe"""

import inspect

import values as v

# Parameter names by family; a name not listed falls to its default's type, then to tensor.
TENSOR_NAMES = {"x", "y", "input", "other", "label", "weight", "index", "indices", "mask",
                "condition", "src", "updates", "values", "x1", "x2", "logit", "positive",
                "negative", "running_mean", "running_var", "arr", "mat2", "data", "probs",
                "pos_weight", "sorted_sequence", "source", "labels", "anchor", "target",
                "query", "key", "value_tensor", "vec", "mat", "tensor", "loc", "scale_tensor",
                "logits", "low_tensor", "high_tensor", "grad_tensor", "A", "B"}
TENSOR_LIST_NAMES = {"inputs", "tensors", "operands", "xs", "args", "outputs"}
AXIS_NAMES = {"axis", "dim", "axis1", "axis2", "dim1", "dim2", "start_axis", "stop_axis",
              "diagonal", "offset", "k", "n", "num", "groups", "chunks", "upscale_factor",
              "downscale_factor", "num_classes", "num_or_sections", "num_or_indices",
              "in_features", "out_features", "in_channels", "out_channels", "num_features",
              "hidden_size", "input_size", "num_layers", "num_heads", "nhead", "d_model",
              "embed_dim", "num_embeddings", "embedding_dim", "num_channels", "num_groups",
              "seed", "repeats", "minlength", "bins", "ignore_index", "padding_idx",
              "num_rows", "num_columns", "row", "col", "dim_feedforward", "decay_steps",
              "step_size", "T_max", "total_steps", "warmup_steps", "last_epoch"}
SHAPE_NAMES = {"shape", "size", "output_size", "kernel_size", "stride", "padding", "dilation",
               "perm", "axes", "normalized_shape", "output_sizes", "x_shape", "y_shape",
               "starts", "ends", "strides", "repeat_times", "kernel_sizes", "paddings",
               "dilations", "shapes", "dims", "sections", "pad", "output_padding",
               "milestones", "boundaries"}
FLOAT_NAMES = {"p", "epsilon", "eps", "alpha", "beta", "margin", "momentum", "value", "min",
               "max", "threshold", "scale", "dropout", "lam", "mean", "std", "delta",
               "negative_slope", "rtol", "atol", "rcond", "label_smoothing", "base", "start",
               "stop", "end", "step", "learning_rate", "weight_decay", "rho", "beta1", "beta2",
               "lower", "upper", "low", "high", "q", "fill_value", "temperature", "gamma",
               "lr", "max_norm", "norm_type", "clip_norm", "rate", "prob", "factor"}
DTYPE_NAMES = {"dtype", "out_dtype"}
NONE_NAMES = {"name", "out", "device", "place", "name_scope"}

ODD_RATE = 0.35  # share of arguments drawn from the whole odd pool


class Draw:
    """Argument recipes for one call; tensors share base_shape and base_dtype by default."""

    def __init__(self, rng, base_shape, base_dtype, grad=False):
        self.rng = rng
        self.base_shape = base_shape
        self.base_dtype = base_dtype
        self.grad = grad

    def argument(self, param):
        """A recipe for inspect.Parameter param: sensible for its family, or odd."""
        if self.rng.random() < ODD_RATE:
            return v.odd_value(self.rng)
        return self.sensible(param.name, param.default)

    def sensible(self, name, default=inspect.Parameter.empty):
        """A value of the family the parameter's name or default suggests."""
        rng = self.rng
        if name in NONE_NAMES:
            return v.literal(None)
        if name in DTYPE_NAMES:
            return v.dtype_value(rng)
        if name in TENSOR_LIST_NAMES:
            return v.seq([self.tensor() for _ in range(rng.randrange(1, 4))])
        if name in AXIS_NAMES:
            return v.literal(rng.choice(v.SMALL_INTS + [-2, 8]))
        if name in SHAPE_NAMES:
            return self.shape_like()
        if name in FLOAT_NAMES:
            return v.literal(rng.choice(v.SMALL_FLOATS))
        if isinstance(default, bool):
            return v.literal(rng.random() < 0.5)
        if isinstance(default, int):
            return v.literal(rng.choice([default, default + 1, 0, 1, -1]))
        if isinstance(default, float):
            return v.literal(rng.choice([default, 0.5, 0.0, 1.0]))
        if isinstance(default, str):
            return v.literal(rng.choice([default, default, rng.choice(v.STRINGS)]))
        if default is None and rng.random() < 0.3:
            return v.literal(None)
        return self.tensor()

    def tensor(self):
        """A tensor of the call's base shape and dtype (sometimes another rank or dtype)."""
        rng = self.rng
        shape = self.base_shape if rng.random() < 0.7 else rng.choice(v.BASE_SHAPES)
        dtype = self.base_dtype if rng.random() < 0.8 else rng.choice(v.DTYPES)
        return v.tensor(rng, shape=shape, dtype=dtype,
                        fill=rng.choice(["randn", "randn", "positive", "index", "ones"]),
                        grad=self.grad)

    def shape_like(self):
        """An int or a short list of small ints: the form of shapes, kernel sizes, axes."""
        rng = self.rng
        if rng.random() < 0.3:
            return v.literal(rng.choice([1, 2, 3]))
        rank = len(self.base_shape) if rng.random() < 0.5 else rng.randrange(0, 4)
        return v.seq([v.literal(rng.choice([1, 2, 3, -1, 0])) for _ in range(rank)])
