"""MultiHeadAttention and the Transformer encoder against PyTorch with the same weights
(Paddle's Linear weights are PyTorch's transposed; q, k, v are PyTorch's in_proj parts)."""
import numpy as np
import pytest
import torch

import skiff
import skiff.nn as nn
from nn_reference import close, compare, rand, set_param, tensor, torch_tensor


def copy_attention(ours, theirs, seed=0):
    """Gives our MultiHeadAttention the weights of a torch.nn.MultiheadAttention."""
    e = ours.embed_dim
    with torch.no_grad():
        theirs.in_proj_bias.copy_(torch.tensor(rand(3 * e, seed=seed)))
        theirs.out_proj.bias.copy_(torch.tensor(rand(e, seed=seed + 1)))
    w = theirs.in_proj_weight.detach().numpy()
    b = theirs.in_proj_bias.detach().numpy()
    for i, proj in enumerate((ours.q_proj, ours.k_proj, ours.v_proj)):
        set_param(proj.weight, w[i * e:(i + 1) * e].T)
        set_param(proj.bias, b[i * e:(i + 1) * e])
    set_param(ours.out_proj.weight, theirs.out_proj.weight.detach().numpy().T)
    set_param(ours.out_proj.bias, theirs.out_proj.bias)


def _attention_grads_match(ours, theirs):
    e = ours.embed_dim
    for i, proj in enumerate((ours.q_proj, ours.k_proj, ours.v_proj)):
        close(proj.weight.grad, theirs.in_proj_weight.grad[i * e:(i + 1) * e].T)
        close(proj.bias.grad, theirs.in_proj_bias.grad[i * e:(i + 1) * e])
    close(ours.out_proj.weight.grad, theirs.out_proj.weight.grad.T)


@pytest.mark.parametrize("mask_kind", [None, "bool", "float"])
def test_multi_head_attention_matches_torch(mask_kind):
    ours = nn.MultiHeadAttention(8, 2, need_weights=True).double()
    theirs = torch.nn.MultiheadAttention(8, 2, batch_first=True).double()
    copy_attention(ours, theirs)
    q, kv = rand(3, 4, 8, seed=1), rand(3, 6, 8, seed=2)
    keep = rand(4, 6, seed=3) > -0.5
    keep[:, 0] = True
    mask_s = mask_t = None
    if mask_kind == "bool":  # Paddle: True attends; PyTorch: True is masked out
        mask_s, mask_t = tensor(keep), torch.tensor(~keep)
    elif mask_kind == "float":
        additive = np.where(keep, 0.0, -1e4)
        mask_s, mask_t = tensor(additive), torch.tensor(additive)
    qs, qt = tensor(q, True), torch_tensor(q, True)
    kvs, kvt = tensor(kv, True), torch_tensor(kv, True)
    out, weights = ours(qs, kvs, kvs, attn_mask=mask_s)
    out_t, weights_t = theirs(qt, kvt, kvt, attn_mask=mask_t, average_attn_weights=False)
    close(weights, weights_t)
    compare(out, out_t)
    close(qs.grad, qt.grad)
    close(kvs.grad, kvt.grad)
    _attention_grads_match(ours, theirs)


def copy_encoder_layer(ours, theirs):
    copy_attention(ours.self_attn, theirs.self_attn)
    for mine, ref in ((ours.linear1, theirs.linear1), (ours.linear2, theirs.linear2)):
        set_param(mine.weight, ref.weight.detach().numpy().T)
        set_param(mine.bias, ref.bias)
    for mine, ref in ((ours.norm1, theirs.norm1), (ours.norm2, theirs.norm2)):
        with torch.no_grad():
            ref.weight.copy_(torch.tensor(rand(*ref.weight.shape, seed=9, low=0.5, high=1.5)))
        set_param(mine.weight, ref.weight)
        set_param(mine.bias, ref.bias)


@pytest.mark.parametrize("normalize_before", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_encoder_layer_matches_torch(normalize_before, activation):
    ours = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation=activation,
                                      normalize_before=normalize_before).double()
    theirs = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation=activation,
                                              batch_first=True,
                                              norm_first=normalize_before).double()
    copy_encoder_layer(ours, theirs)
    x = rand(2, 5, 8)
    keep = np.tril(np.ones([5, 5], bool))  # causal
    xs, xt = tensor(x, True), torch_tensor(x, True)
    compare(ours(xs, tensor(keep)), theirs(xt, src_mask=torch.tensor(~keep)))
    close(xs.grad, xt.grad)
    close(ours.linear1.weight.grad, theirs.linear1.weight.grad.T)
    close(ours.norm1.weight.grad, theirs.norm1.weight.grad)
    _attention_grads_match(ours.self_attn, theirs.self_attn)


def test_encoder_stacks_fresh_layers_and_matches_torch():
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)
    encoder = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8)).double()
    assert encoder.layers[0] is layer and encoder.layers[1] is not layer
    assert encoder.layers[1].linear1.weight.name != layer.linear1.weight.name
    ref_layer = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
    ref = torch.nn.TransformerEncoder(ref_layer, 2, norm=torch.nn.LayerNorm(8),
                                      enable_nested_tensor=False).double()
    for mine, theirs in zip(encoder.layers, ref.layers):
        copy_encoder_layer(mine, theirs)
    x = rand(2, 4, 8)
    xs, xt = tensor(x, True), torch_tensor(x, True)
    compare(encoder(xs), ref(xt))
    close(xs.grad, xt.grad)
    names = list(encoder.state_dict())
    assert "layers.1.self_attn.q_proj.weight" in names and "norm.weight" in names


def test_dropout_in_attention_only_in_training():
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.5)
    x = tensor(rand(2, 3, 8, dtype="float32"))
    layer.eval()
    np.testing.assert_array_equal(layer(x).numpy(), layer(x).numpy())
    layer.train()
    assert not np.allclose(layer(x).numpy(), layer(x).numpy())


def test_attention_errors():
    with pytest.raises(ValueError, match="multiple of num_heads"):
        nn.MultiHeadAttention(10, 3)
    with pytest.raises(skiff.Error, match=r"MultiHeadAttention: query.*\[4, 8\]"):
        nn.MultiHeadAttention(8, 2)(tensor(rand(4, 8, dtype="float32")))
    with pytest.raises(skiff.Error, match=r"Linear.*in_features = 8"):
        nn.MultiHeadAttention(8, 2)(tensor(rand(2, 4, 6, dtype="float32")))


def copy_decoder_layer(ours, theirs):
    copy_attention(ours.self_attn, theirs.self_attn, seed=10)
    copy_attention(ours.cross_attn, theirs.multihead_attn, seed=20)
    for mine, ref in ((ours.linear1, theirs.linear1), (ours.linear2, theirs.linear2)):
        set_param(mine.weight, ref.weight.detach().numpy().T)
        set_param(mine.bias, ref.bias)
    for mine, ref in ((ours.norm1, theirs.norm1), (ours.norm2, theirs.norm2),
                      (ours.norm3, theirs.norm3)):
        set_param(mine.weight, ref.weight)
        set_param(mine.bias, ref.bias)


@pytest.mark.parametrize("normalize_before", [False, True])
def test_decoder_layer_matches_torch(normalize_before):
    ours = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0,
                                      normalize_before=normalize_before).double()
    theirs = torch.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True,
                                              norm_first=normalize_before).double()
    copy_decoder_layer(ours, theirs)
    tgt, memory = rand(2, 4, 8, seed=1), rand(2, 6, 8, seed=2)
    mask = nn.Transformer.generate_square_subsequent_mask(4)
    np.testing.assert_array_equal(mask.numpy(), np.triu(np.full([4, 4], -np.inf), 1))
    ts, tt = tensor(tgt, True), torch_tensor(tgt, True)
    ms, mt = tensor(memory, True), torch_tensor(memory, True)
    out = ours(ts, ms, tgt_mask=mask.astype("float64"))
    ref = theirs(tt, mt, tgt_mask=torch.tensor(mask.numpy()).double())
    compare(out, ref)
    close(ts.grad, tt.grad)
    close(ms.grad, mt.grad)
    _attention_grads_match(ours.cross_attn, theirs.multihead_attn)


def test_transformer_matches_torch():
    ours = nn.Transformer(8, 2, 2, 2, 16, dropout=0.0).double()
    theirs = torch.nn.Transformer(8, 2, 2, 2, 16, dropout=0.0, batch_first=True).double()
    for mine, ref in zip(ours.encoder.layers, theirs.encoder.layers):
        copy_encoder_layer(mine, ref)
    for mine, ref in zip(ours.decoder.layers, theirs.decoder.layers):
        copy_decoder_layer(mine, ref)
    src, tgt = rand(2, 5, 8, seed=3), rand(2, 4, 8, seed=4)
    ss, st = tensor(src, True), torch_tensor(src, True)
    mask = nn.Transformer.generate_square_subsequent_mask(4).astype("float64")
    out = ours(ss, tensor(tgt), tgt_mask=mask)
    ref = theirs(st, torch.tensor(tgt), tgt_mask=torch.tensor(mask.numpy()))
    compare(out, ref)
    close(ss.grad, st.grad)
    keys = list(ours.state_dict())
    assert "decoder.layers.1.cross_attn.k_proj.weight" in keys and "encoder.norm.bias" in keys
