"""paddle.geometric (skiff/geometric): message passing, segment reductions, reindexing and
neighbor sampling against Paddle: values and input gradients, and errors."""
import numpy as np
import pytest

import skiff
import skiff.geometric as G

paddle = pytest.importorskip("paddle")

RNG = np.random.default_rng(7)


def _pair(arr, grad=False):
    s = skiff.to_tensor(arr)
    p = paddle.to_tensor(arr)
    s.stop_gradient = p.stop_gradient = not grad
    return s, p


def _check(fn_s, fn_p, inputs, grad=True):
    """Runs both with the same inputs; compares outputs and the gradients of the float
    inputs of (output * fixed weights).sum()."""
    pairs = [_pair(a, grad and a.dtype.kind == "f") for a in inputs]
    out_s = fn_s(*[s for s, _ in pairs])
    out_p = fn_p(*[p for _, p in pairs])
    np.testing.assert_allclose(out_s.numpy(), out_p.numpy(), rtol=1e-5, atol=1e-6)
    assert out_s.numpy().dtype == out_p.numpy().dtype
    if not grad:
        return
    w = RNG.standard_normal(out_p.shape).astype(out_p.numpy().dtype)
    (out_s * skiff.to_tensor(w)).sum().backward()
    (out_p * paddle.to_tensor(w)).sum().backward()
    for (s, p), a in zip(pairs, inputs):
        if a.dtype.kind == "f":
            np.testing.assert_allclose(s.grad.numpy(), p.grad.numpy(), rtol=1e-5, atol=1e-6)


X = np.array([[0, 2, 3], [1, 4, 5], [2, 6, 7], [2, 6, 1]], "float32")
SRC = np.array([0, 1, 2, 0, 3, 2], "int32")
DST = np.array([1, 2, 1, 0, 1, 1], "int32")


@pytest.mark.parametrize("reduce_op", ["sum", "mean", "max", "min"])
@pytest.mark.parametrize("out_size", [None, 3, 6])
def test_send_u_recv(reduce_op, out_size):
    _check(lambda x, s, d: G.send_u_recv(x, s, d, reduce_op, out_size),
           lambda x, s, d: paddle.geometric.send_u_recv(x, s, d, reduce_op, out_size),
           [X, SRC, DST])


def test_send_u_recv_three_dims_and_ints():
    x = RNG.standard_normal((4, 2, 3)).astype("float64")
    _check(lambda x, s, d: G.send_u_recv(x, s, d, "max"),
           lambda x, s, d: paddle.geometric.send_u_recv(x, s, d, "max"), [x, SRC, DST])
    xi = np.array([[1, 5], [3, 2], [7, 7], [0, 9]], "int64")
    _check(lambda x, s, d: G.send_u_recv(x, s, d, "min"),
           lambda x, s, d: paddle.geometric.send_u_recv(x, s, d, "min"), [xi, SRC, DST],
           grad=False)


@pytest.mark.parametrize("message_op", ["add", "sub", "mul", "div"])
@pytest.mark.parametrize("reduce_op", ["sum", "mean", "max", "min"])
def test_send_ue_recv(message_op, reduce_op):
    y = RNG.uniform(0.5, 2.0, (6, 3)).astype("float32")
    _check(lambda x, y, s, d: G.send_ue_recv(x, y, s, d, message_op, reduce_op),
           lambda x, y, s, d: paddle.geometric.send_ue_recv(x, y, s, d, message_op, reduce_op),
           [X, y, SRC, DST])
    y1 = RNG.uniform(0.5, 2.0, (6,)).astype("float32")
    _check(lambda x, y, s, d: G.send_ue_recv(x, y, s, d, message_op, reduce_op, out_size=2),
           lambda x, y, s, d: paddle.geometric.send_ue_recv(x, y, s, d, message_op, reduce_op,
                                                            out_size=2),
           [X, y1, SRC, np.array([1, 0, 1, 0, 1, 1], "int32")])


@pytest.mark.parametrize("message_op", ["add", "sub", "mul", "div"])
def test_send_uv(message_op):
    y = RNG.uniform(0.5, 2.0, (4, 3)).astype("float32")
    _check(lambda x, y, s, d: G.send_uv(x, y, s, d, message_op),
           lambda x, y, s, d: paddle.geometric.send_uv(x, y, s, d, message_op),
           [X, y, SRC, DST])


@pytest.mark.parametrize("name", ["segment_sum", "segment_mean", "segment_max", "segment_min"])
def test_segment(name):
    data = np.array([[1, 2, 3], [3, 2, 1], [4, 5, 6], [4, 1, 6], [0, 0, 0]], "float32")
    ids = np.array([0, 0, 2, 2, 3], "int32")
    _check(getattr(G, name), getattr(paddle.geometric, name), [data, ids])


def test_reindex_graph_and_heter_graph():
    x = np.array([0, 1, 2], "int64")
    na = np.array([8, 9, 0, 4, 7, 6, 7], "int64")
    ca = np.array([2, 3, 2], "int32")
    nb = np.array([0, 2, 3, 5, 1], "int64")
    cb = np.array([1, 3, 1], "int32")
    got = G.reindex_graph(*[skiff.to_tensor(a) for a in (x, na, ca)])
    want = paddle.geometric.reindex_graph(*[paddle.to_tensor(a) for a in (x, na, ca)])
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.numpy(), w.numpy())
    got = G.reindex_heter_graph(skiff.to_tensor(x), [skiff.to_tensor(na), skiff.to_tensor(nb)],
                                [skiff.to_tensor(ca), skiff.to_tensor(cb)])
    want = paddle.geometric.reindex_heter_graph(
        paddle.to_tensor(x), [paddle.to_tensor(na), paddle.to_tensor(nb)],
        [paddle.to_tensor(ca), paddle.to_tensor(cb)])
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.numpy(), w.numpy())


ROW = np.array([3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7], "int64")
COLPTR = np.array([0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13], "int64")
NODES = np.array([0, 8, 1, 2, 6], "int64")


@pytest.mark.parametrize("weighted", [False, True])
def test_sample_neighbors(weighted):
    eids = skiff.arange(13) * 10
    args = [skiff.to_tensor(ROW), skiff.to_tensor(COLPTR)]
    if weighted:
        args.append(skiff.to_tensor(np.linspace(0.1, 2, 13).astype("float32")))
    fn = G.weighted_sample_neighbors if weighted else G.sample_neighbors
    nbrs, count, out_eids = fn(*args, skiff.to_tensor(NODES), sample_size=1, eids=eids,
                               return_eids=True)
    np.testing.assert_array_equal(count.numpy(), [1, 1, 1, 1, 1])
    assert count.numpy().dtype == np.int32
    np.testing.assert_array_equal(ROW[out_eids.numpy() // 10], nbrs.numpy())
    for node, e in zip(NODES, out_eids.numpy() // 10):
        assert COLPTR[node] <= e < COLPTR[node + 1]
    nbrs, count = fn(*args, skiff.to_tensor(NODES), sample_size=5)
    np.testing.assert_array_equal(count.numpy(), [2, 2, 2, 1, 2])
    want = np.concatenate([ROW[COLPTR[n]:COLPTR[n + 1]] for n in NODES])
    np.testing.assert_array_equal(nbrs.numpy(), want)


def test_weighted_sampling_follows_the_weights():
    row = skiff.to_tensor(np.array([0, 1], "int64"))
    colptr = skiff.to_tensor(np.array([0, 2], "int64"))
    w = skiff.to_tensor(np.array([1.0, 9.0], "float32"))
    nodes = skiff.to_tensor(np.zeros(2000, "int64"))
    out, _ = G.weighted_sample_neighbors(row, colptr, w, nodes, sample_size=1)
    assert 0.85 < out.numpy().mean() < 0.95


def test_errors():
    x = skiff.to_tensor(X)
    s = skiff.to_tensor(SRC)
    with pytest.raises(ValueError, match="reduce_op"):
        G.send_u_recv(x, s, s, reduce_op="prod")
    with pytest.raises(ValueError, match="message_op"):
        G.send_uv(x, x, s, s, message_op="pow")
    with pytest.raises(TypeError, match="src_index must be int32 or int64"):
        G.send_u_recv(x, skiff.to_tensor([0.0]), s)
    with pytest.raises(ValueError, match="one entry per edge"):
        G.send_u_recv(x, s, s[:2])
    with pytest.raises(ValueError, match="outside"):
        G.send_u_recv(x, s + 5, s)
    with pytest.raises(ValueError, match="dst_index holds 3"):
        G.send_u_recv(x, s, s, out_size=2)
    with pytest.raises(ValueError, match="one entry per row"):
        G.segment_sum(x, s)
    with pytest.raises(ValueError, match="sample_size"):
        G.sample_neighbors(skiff.to_tensor(ROW), skiff.to_tensor(COLPTR),
                           skiff.to_tensor(NODES), sample_size=0)
    with pytest.raises(ValueError, match="count sums"):
        G.reindex_graph(skiff.to_tensor([0, 1]), skiff.to_tensor([3, 4, 5]),
                        skiff.to_tensor([1, 1]))
