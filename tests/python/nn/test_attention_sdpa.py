"""scaled_dot_product_attention in Paddle's [batch, seq, heads, dim] layout (masks, causal,
grouped heads, unbatched) and sequence_mask: against PyTorch and Paddle."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import skiff
import skiff.nn.functional as F
from nn_reference import close, rand, tensor, torch_tensor
from static_twin import assert_static_matches_eager


def _torch_sdpa(q, k, v, **kw):
    heads = q.shape[2] // k.shape[2]
    k, v = (t.repeat_interleave(heads, dim=2) for t in (k, v))
    out = TF.scaled_dot_product_attention(*(t.transpose(1, 2) for t in (q, k, v)), **kw)
    return out.transpose(1, 2)


CASES = [dict(), dict(is_causal=True), dict(mask="bool"), dict(mask="float"),
         dict(scale=0.3), dict(kv_heads=1), dict(is_causal=True, square=True)]


@pytest.mark.parametrize("case", CASES, ids=[str(c) for c in CASES])
def test_sdpa_matches_torch(case):
    case = dict(case)
    kv_heads = case.pop("kv_heads", 2)
    seq_k = 5 if case.pop("square", False) else 7
    q, k, v = rand(2, 5, 2, 4), rand(2, seq_k, kv_heads, 4, seed=1), \
        rand(2, seq_k, kv_heads, 4, seed=2)
    mask = case.pop("mask", None)
    ours_kw, theirs_kw = dict(case), dict(case)
    if mask == "bool":
        m = np.random.default_rng(5).random((2, 1, 5, seq_k)) > 0.4
        m[..., 0] = True
        ours_kw["attn_mask"], theirs_kw["attn_mask"] = tensor(m), torch.tensor(m)
    elif mask == "float":
        m = rand(5, seq_k, seed=6)
        ours_kw["attn_mask"], theirs_kw["attn_mask"] = tensor(m), torch.tensor(m)
    ss = [tensor(a, True) for a in (q, k, v)]
    ts = [torch_tensor(a, True) for a in (q, k, v)]
    out, ref = F.scaled_dot_product_attention(*ss, **ours_kw), _torch_sdpa(*ts, **theirs_kw)
    close(out, ref)
    w = rand(*ref.shape, seed=9)
    skiff.sum(out * tensor(w)).backward()
    (ref * torch.tensor(w)).sum().backward()
    for s, t in zip(ss, ts):
        close(s.grad, t.grad)


def test_sdpa_unbatched_matches_paddle_layout(paddle):
    q, k, v = (rand(6, 2, 8, seed=s, dtype="float32") for s in range(3))
    ours = F.scaled_dot_product_attention(tensor(q), tensor(k), tensor(v), is_causal=True)
    ref = _torch_sdpa(*(torch.tensor(a)[None] for a in (q, k, v)), is_causal=True)[0]
    assert ours.shape == [6, 2, 8]
    close(ours, ref, "float32")


def test_sdpa_dropout_and_errors():
    q = tensor(rand(2, 5, 2, 4))
    skiff.seed(1)
    out = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    assert not np.allclose(out.numpy(), F.scaled_dot_product_attention(q, q, q).numpy())
    close(F.scaled_dot_product_attention(q, q, q, dropout_p=0.5, training=False),
          F.scaled_dot_product_attention(q, q, q))
    with pytest.raises(ValueError, match="scaled_dot_product_attention.*heads"):
        F.scaled_dot_product_attention(q, tensor(rand(2, 5, 3, 4)), tensor(rand(2, 5, 3, 4)))
    with pytest.raises(ValueError, match="scaled_dot_product_attention.*3-D or 4-D"):
        F.scaled_dot_product_attention(tensor(rand(5, 4)), q, q)


def test_sdpa_in_a_static_program():
    feeds = {"q": rand(2, 5, 2, 4, dtype="float32"), "k": rand(2, 5, 2, 4, seed=1,
                                                              dtype="float32")}
    assert_static_matches_eager(
        lambda q, k: F.scaled_dot_product_attention(q, k, k, is_causal=True), feeds, ["q", "k"])


@pytest.mark.parametrize("maxlen,dtype", [(None, "int64"), (6, "float32"), (2, "bool")])
def test_sequence_mask_matches_paddle(maxlen, dtype, paddle):
    lengths = np.array([[1, 4], [0, 3]], "int64")
    ours = F.sequence_mask(tensor(lengths), maxlen, dtype)
    ref = paddle.nn.functional.sequence_mask(paddle.to_tensor(lengths), maxlen, dtype)
    assert ours.shape == list(ref.shape) and ours.stop_gradient
    np.testing.assert_array_equal(ours.numpy(), ref.numpy())
    assert str(ours.numpy().dtype) == dtype
