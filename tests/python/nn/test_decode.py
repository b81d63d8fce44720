"""BeamSearchDecoder and dynamic_decode (skiff/nn/decode.py) against Paddle with the same
weights: traced ids, lengths, final scores; the static helpers; an LSTM cell's tuple
states; errors."""
import numpy as np
import pytest

import skiff
from skiff.nn import BeamSearchDecoder, dynamic_decode

paddle = pytest.importorskip("paddle")


def _layers(lib, cell_kind):
    emb, out = lib.nn.Embedding(50, 16), lib.nn.Linear(16, 20)
    cell = getattr(lib.nn, cell_kind)(16, 16)
    return emb, out, cell


def _copy(src_layers, dst_layers):
    for s, d in zip(src_layers, dst_layers):
        d.set_state_dict({k: v.numpy() for k, v in s.state_dict().items()})


@pytest.mark.parametrize("seed,cell_kind", [(2024, "GRUCell"), (1, "GRUCell"),
                                            (7, "LSTMCell")])
def test_beam_search_matches_paddle(seed, cell_kind):
    paddle.seed(seed)
    ref_layers, my_layers = _layers(paddle, cell_kind), _layers(skiff, cell_kind)
    _copy(ref_layers, my_layers)
    results = []
    for lib, (emb, out, cell), dec_cls in ((paddle, ref_layers, paddle.nn.BeamSearchDecoder),
                                           (skiff, my_layers, BeamSearchDecoder)):
        dec = dec_cls(cell, start_token=0, end_token=1, beam_size=3, embedding_fn=emb,
                      output_fn=out)
        enc = lib.ones((2, 5, 16))
        decode = paddle.nn.dynamic_decode if lib is paddle else dynamic_decode
        ids, states, lengths = decode(dec, inits=cell.get_initial_states(enc), max_step_num=5,
                                      return_length=True)
        results.append((ids.numpy(), lengths.numpy(), states.log_probs.numpy(),
                        states.finished.numpy()))
    (ids, lens, scores, done), (ids_p, lens_p, scores_p, done_p) = results
    np.testing.assert_array_equal(ids, ids_p)
    np.testing.assert_array_equal(lens, lens_p)
    np.testing.assert_array_equal(done, done_p)
    np.testing.assert_allclose(scores, scores_p, rtol=1e-4, atol=1e-5)


def test_time_major_and_helpers():
    cell = skiff.nn.GRUCell(8, 8)
    dec = BeamSearchDecoder(cell, 0, 1, 2, embedding_fn=skiff.nn.Embedding(10, 8),
                            output_fn=skiff.nn.Linear(8, 10))
    ids, _ = dynamic_decode(dec, cell.get_initial_states(skiff.ones([3, 8])), max_step_num=2,
                            output_time_major=True)
    assert ids.shape[1:] == [3, 2] and ids.shape[0] <= 3
    x = skiff.to_tensor(np.arange(6).reshape(3, 2))
    tiled = BeamSearchDecoder.tile_beam_merge_with_batch(x, 2)
    np.testing.assert_array_equal(tiled.numpy(), np.repeat(np.arange(6).reshape(3, 2), 2, 0))


def test_errors():
    cell = skiff.nn.GRUCell(4, 4)
    with pytest.raises(ValueError, match="beam_size"):
        BeamSearchDecoder(cell, 0, 1, 0)
    with pytest.raises(TypeError, match="decoder must be a Decoder"):
        dynamic_decode(cell)
    dec = BeamSearchDecoder(cell, 0, 1, 2)
    with pytest.raises(ValueError, match="max_step_num"):
        dynamic_decode(dec, cell.get_initial_states(skiff.ones([1, 4])), max_step_num=-1)
