"""The ONNX mapping of each op family: a small to_static function per case, exported,
checked by onnx.checker and run by ONNX Runtime against skiff's own outputs."""
import numpy as np
import onnx
import onnxruntime as ort
import pytest

import skiff
import skiff.nn.functional as F
from skiff.framework.core import apply
from skiff.static import InputSpec


def rand(*shape, seed=0, dtype="float32"):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def ints(*shape, high=5, seed=0, dtype="int64"):
    return np.random.default_rng(seed).integers(0, high, shape).astype(dtype)


X = rand(2, 3, 4)
Y = rand(2, 3, 4, seed=1)
POS = np.abs(X) + 0.25
I = ints(2, 3, 4, high=9, seed=2) - 4
J = ints(2, 3, 4, high=4, seed=3) + 1

CASES = {
    "arithmetic": (lambda x, y: [x - y, x / y, skiff.maximum(x, y), skiff.minimum(x, y),
                                 skiff.pow(skiff.abs(x), y)], [X, Y]),
    "floor_div_and_mod_float": (lambda x, y: [skiff.floor_divide(x, y), skiff.remainder(x, y)],
                                [X * 5, Y]),
    "floor_div_and_mod_int": (lambda a, b: [skiff.floor_divide(a, b), skiff.remainder(a, b),
                                            skiff.floor_divide(a, -b), skiff.remainder(a, -b)],
                              [I, J]),
    "compare_and_logic": (lambda x, y: [
        skiff.cast(skiff.logical_xor(skiff.less_than(x, y), skiff.greater_equal(x, 0.0)),
                   "float32"),
        skiff.cast(skiff.logical_or(skiff.not_equal(x, y), skiff.less_equal(y, 0.0)), "int64"),
        skiff.where(skiff.greater_than(x, y), x, y)], [X, Y]),
    "clip_scale_cast": (lambda x: [skiff.clip(x, -0.5, 0.7), skiff.scale(x, 2.0, 1.0),
                                   skiff.scale(x, 3.0, 0.5, bias_after_scale=False),
                                   skiff.cast(x * 3.0, "int32")], [X]),
    "activations": (lambda x: [F.leaky_relu(x, 0.1), F.elu(x, 0.7), F.softplus(x, 2.0, 1.0),
                               F.silu(x), F.gelu(x), F.gelu(x, approximate=True), F.sigmoid(x),
                               skiff.tanh(x), F.relu6(x * 4.0), F.hardswish(x),
                               F.hardsigmoid(x), F.mish(x), F.selu(x), F.softsign(x)], [X]),
    "unary_math": (lambda p, x: [skiff.sqrt(p), skiff.log(p), skiff.log1p(p), skiff.rsqrt(p),
                                 skiff.exp(x), skiff.abs(x), skiff.sign(x), skiff.sin(x),
                                 skiff.cos(x), skiff.floor(x), skiff.ceil(x), skiff.square(x),
                                 skiff.round(x * 2.0)], [POS, X]),
    "round_halves": (lambda x: skiff.round(x), [np.array([-2.5, -0.5, 0.5, 1.5, 2.5], "float32")]),
    "special_values": (lambda x: [skiff.cast(skiff.isnan(x), "int32"),
                                  skiff.cast(skiff.isinf(x), "int32"),
                                  skiff.cast(skiff.isfinite(x), "int32")],
                       [np.array([1.0, np.nan, np.inf, -np.inf, 0.0], "float32")]),
    "softmax": (lambda x: [F.softmax(x, axis=1), F.log_softmax(x, axis=-1)], [X]),
    "reductions": (lambda x: [skiff.sum(x), skiff.mean(x, axis=[0, 2]),
                              skiff.max(x, axis=1, keepdim=True), skiff.min(x, axis=-1),
                              skiff.prod(x, axis=0)], [X]),
    "arg_and_cumsum_topk": (lambda x: [skiff.argmax(x, axis=1), skiff.argmin(x),
                                       skiff.cumsum(x, axis=2),
                                       skiff.topk(x, 2, axis=-1)[0],
                                       skiff.topk(x, 2, axis=-1)[1]], [X]),
    "matmul_transposed": (lambda a, b, c: [skiff.matmul(a, b, transpose_y=True),
                                           skiff.matmul(a, c, transpose_x=True, transpose_y=True),
                                           skiff.matmul(skiff.reshape(a, [1, 4, 6]), c)],
                          [rand(4, 6), rand(5, 6, seed=1), rand(6, 4, seed=2)]),
    "shapes": (lambda x: [skiff.transpose(x, [2, 0, 1]), skiff.reshape(x, [0, -1]),
                          skiff.unsqueeze(x, [0, 4]),
                          skiff.squeeze(skiff.reshape(x, [2, 1, 12]), [1]),
                          skiff.flatten(x), skiff.flatten(x, 0, 1), skiff.flatten(x, 1, 1)],
               [X]),
    "joins_and_splits": (lambda x, y: [skiff.concat([x, y], axis=1), skiff.stack([x, y], -1),
                                       *skiff.split(x, 2, axis=0),
                                       *skiff.split(x, [1, -1], axis=1)], [X, Y]),
    "slices": (lambda x: [x[:, 1:, ::2], x[1], x[:, -2:, 3], x[::-1, ::-2]], [X]),
    "gathers": (lambda x, i, j: [skiff.gather(x, i, axis=1), skiff.gather_nd(x, j)],
                [X, np.array([2, 0, 2], "int64"), np.array([[1, 2], [0, 1]], "int32")]),
    "broadcasts": (lambda x: [skiff.expand(x, [3, 2, 3, 4]),
                              skiff.tile(x, [2, 1, 1]), skiff.tile(x, [2, 1, 1, 2]),
                              skiff.broadcast_to(skiff.reshape(x, [2, 3, 4, 1]),
                                                 [2, 3, 4, 5])], [X]),
    "creation": (lambda x: [skiff.full_like(x, 2.5), skiff.zeros_like(x, "int32"),
                            skiff.arange(0, 7, 2, "int64"), skiff.ones([70], "float32") + 1.0],
                 [X]),
    "embedding_one_hot": (lambda ids, w: [F.embedding(ids, w, padding_idx=2),
                                          F.one_hot(ids, 6)],
                          [np.array([[0, 2, 5], [2, 1, 3]], "int64"), rand(6, 4)]),
    "losses": (lambda x, y, label: [
        F.mse_loss(x, y), F.binary_cross_entropy_with_logits(x, F.sigmoid(y)),
        F.cross_entropy(x, label), F.cross_entropy(x, label, ignore_index=1, reduction="none"),
        F.cross_entropy(x, F.softmax(y), soft_label=True),
        *F.softmax_with_cross_entropy(x, label, ignore_index=4, return_softmax=True),
        F.nll_loss(F.log_softmax(x), skiff.reshape(label, [4]), reduction="sum")],
        [rand(4, 5), rand(4, 5, seed=1), np.array([[1], [4], [0], [1]], "int64")]),
    "scatter_nonzero_trilu": (lambda x, ids, u: [
        skiff.scatter(x, ids, u), skiff.scatter(x, ids, u, overwrite=False),
        skiff.nonzero(skiff.greater_than(x, 0.5)), skiff.tril(x, 1), skiff.triu(x, -1)],
        [rand(5, 4), np.array([3, 1, 3], "int64"), rand(3, 4, seed=1)]),
    "conv_transpose": (lambda x, w: F.conv2d_transpose(x, w, stride=2, padding=1,
                                                       output_padding=1),
                       [rand(1, 4, 5, 5), rand(4, 3, 3, 3, seed=1)]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_op_family(case, tmp_path):
    fn, arrays = CASES[case]
    fn = skiff.jit.not_to_static(fn)  # a lambda has no source of its own to convert

    def run_case(*args):
        return fn(*args)

    static = skiff.jit.to_static(run_case)
    spec = [InputSpec(list(a.shape), str(a.dtype)) for a in arrays]
    path = skiff.onnx.export(static, str(tmp_path / case), input_spec=spec)
    onnx.checker.check_model(onnx.load(path), full_check=True)
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    got = session.run(None, {i.name: a for i, a in zip(session.get_inputs(), arrays)})
    want = static(*[skiff.to_tensor(a) for a in arrays])
    want = list(want) if isinstance(want, (list, tuple)) else [want]
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        w = w.numpy()
        assert g.dtype == w.dtype and g.shape == w.shape, (k, g.dtype, g.shape, w.dtype, w.shape)
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5, err_msg=f"output {k}")
