"""Linear, Dropout, Embedding, Flatten and Identity layers (paddle.nn)."""
from ... import _C
from ... import _C_ops
from ...autograd import no_grad
from ...framework.mode import mode
from ...framework.tensor_params import ANY, accepts
from .. import functional as F
from ...framework.arguments import dtype_name_of
from ...tensor.creation import full
from .layers import Layer

__all__ = ["Linear", "Dropout", "Dropout2D", "Dropout3D", "AlphaDropout", "Embedding", "Flatten",
           "Identity", "CosineSimilarity", "PixelShuffle", "Bilinear"]


class Linear(Layer):
    """y = x · weight + bias with weight [in_features, out_features] (Paddle's layout;
    XavierUniform by default) and bias [out_features] (zeros; bias_attr=False: none)."""

    def __init__(self, in_features, out_features, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        self.in_features, self.out_features = int(in_features), int(out_features)
        self.weight = self.create_parameter([self.in_features, self.out_features], weight_attr)
        self.bias = self.create_parameter([self.out_features], bias_attr, is_bias=True)
        self.name = name

    def forward(self, input):
        shape = input.shape
        if not shape or (shape[-1] != self.in_features and shape[-1] >= 0):
            raise _C.Error(f"Linear: the input's last dim must be in_features = "
                           f"{self.in_features}, got input shape {list(shape)}")
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        name = f", name={self.name}" if self.name else ""
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"dtype={self._dtype}{name}")


class Dropout(Layer):
    """Zeroes elements with probability ``p`` in training; identity in eval
    ('upscale_in_train'), or scales by 1 - p in eval ('downscale_in_infer'); ``inplace``
    writes the result into the input."""

    def __init__(self, p=0.5, inplace=False, axis=None, mode="upscale_in_train", name=None):
        super().__init__()
        self.p, self.inplace, self.axis, self.mode, self.name = p, inplace, axis, mode, name

    def forward(self, input):
        return F.dropout(input, self.p, self.axis, self.training, self.inplace, self.mode)

    def extra_repr(self):
        name = f", name={self.name}" if self.name else ""
        return f"p={self.p}, axis={self.axis}, mode={self.mode}{name}, inplace={self.inplace}"


class Dropout2D(Layer):
    """Drops whole channels of [N, C, H, W] inputs in training."""

    def __init__(self, p=0.5, data_format="NCHW", name=None):
        super().__init__()
        self.p, self.data_format = p, data_format

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.data_format)

    def extra_repr(self):
        return f"p={self.p}, data_format={self.data_format}"


class Dropout3D(Dropout2D):
    """Drops whole channels of [N, C, D, H, W] inputs in training."""

    def __init__(self, p=0.5, data_format="NCDHW", name=None):
        super().__init__(p, data_format)

    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.data_format)


class AlphaDropout(Layer):
    """Dropout keeping SELU's self-normalisation (identity in eval)."""

    def __init__(self, p=0.5, name=None):
        super().__init__()
        self.p, self.name = p, name

    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)

    def extra_repr(self):
        return f"p={self.p}"


class Embedding(Layer):
    """A table weight [num_embeddings, embedding_dim] looked up by integer ids; the row
    ``padding_idx`` starts at zero and gets no gradient; ``sparse`` gives the weight a
    selected-rows gradient."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, sparse=False,
                 weight_attr=None, name=None):
        super().__init__()
        self._num_embeddings, self._embedding_dim = int(num_embeddings), int(embedding_dim)
        if padding_idx is not None:
            padding_idx = int(padding_idx)
            if not -self._num_embeddings <= padding_idx < self._num_embeddings:
                raise ValueError(f"Embedding: padding_idx {padding_idx} is outside "
                                 f"[-{num_embeddings}, {num_embeddings})")
            if padding_idx < 0:
                padding_idx += self._num_embeddings
        self._padding_idx, self._sparse, self._name = padding_idx, bool(sparse), name
        self.weight = self.create_parameter([self._num_embeddings, self._embedding_dim],
                                            weight_attr)
        if padding_idx is not None and not mode.static:
            self._zero_padding_row()  # (static: the op outputs zeros for it regardless)

    def _zero_padding_row(self):
        with no_grad():
            ids = full([1], self._padding_idx, "int64")
            zeros = full([1, self._embedding_dim], 0.0, dtype_name_of(self.weight))
            _C_ops.scatter(self.weight, ids, zeros, overwrite=True, out=[self.weight])

    def forward(self, x):
        return F.embedding(x, self.weight, self._padding_idx, sparse=self._sparse)

    def extra_repr(self):
        pad = f", padding_idx={self._padding_idx}" if self._padding_idx is not None else ""
        return f"{self._num_embeddings}, {self._embedding_dim}{pad}, sparse={self._sparse}"


class Flatten(Layer):
    """Merges dims start_axis..stop_axis into one."""

    def __init__(self, start_axis=1, stop_axis=-1):
        super().__init__()
        self.start_axis, self.stop_axis = start_axis, stop_axis

    def forward(self, input):
        return F.flatten(input, self.start_axis, self.stop_axis)


class Identity(Layer):
    """Returns its input."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    @accepts(input=ANY)  # anything, returned as it is
    def forward(self, input):
        return input


class CosineSimilarity(Layer):
    """Cosine similarity of two inputs along ``axis``."""

    def __init__(self, axis=1, eps=1e-8):
        super().__init__()
        self._axis, self._eps = axis, eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self._axis, self._eps)

    def extra_repr(self):
        return f"axis={self._axis}, eps={self._eps}"


class PixelShuffle(Layer):
    """[N, C * r * r, H, W] -> [N, C, H * r, W * r] with r = upscale_factor."""

    def __init__(self, upscale_factor, data_format="NCHW", name=None):
        super().__init__()
        self._upscale_factor, self._data_format = upscale_factor, data_format

    def forward(self, x):
        return F.pixel_shuffle(x, self._upscale_factor, self._data_format)

    def extra_repr(self):
        return f"upscale_factor={self._upscale_factor}"


class Bilinear(Layer):
    """out[n, o] = x1[n] · weight[o] · x2[n] + bias[o] with weight [out_features,
    in1_features, in2_features] and bias [1, out_features] (bias_attr=False: none)."""

    def __init__(self, in1_features, in2_features, out_features, weight_attr=None,
                 bias_attr=None, name=None):
        super().__init__()
        self._in1, self._in2, self._out = int(in1_features), int(in2_features), int(out_features)
        self.weight = self.create_parameter([self._out, self._in1, self._in2], weight_attr)
        self.bias = self.create_parameter([1, self._out], bias_attr, is_bias=True)

    def forward(self, x1, x2):
        return F.bilinear(x1, x2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self._in1}, in2_features={self._in2}, "
                f"out_features={self._out}, dtype={self._dtype}")
