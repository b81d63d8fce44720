"""paddle.text.viterbi_decode and ViterbiDecoder (skiff/text/viterbi.py) against Paddle: scores
and paths for both conventions of include_bos_eos_tag, float32 and float64, rows of different
lengths, and the errors of wrong shapes, dtypes and lengths."""
import numpy as np
import pytest

import skiff


def _case(rng, dtype, batch=5, seq_len=6, num_tags=5):
    potentials = rng.normal(size=(batch, seq_len, num_tags)).astype(dtype)
    transitions = rng.normal(size=(num_tags, num_tags)).astype(dtype)
    lengths = rng.integers(1, seq_len + 1, batch)
    lengths[0] = seq_len // 2  # so that the longest row may be shorter than seq_len
    return potentials, transitions, lengths


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("include_bos_eos_tag", [False, True])
def test_viterbi_decode_matches_paddle(paddle, dtype, include_bos_eos_tag):
    rng = np.random.default_rng(7)
    for _ in range(4):
        potentials, transitions, lengths = _case(rng, dtype)
        expected = paddle.text.viterbi_decode(paddle.to_tensor(potentials),
                                              paddle.to_tensor(transitions),
                                              paddle.to_tensor(lengths), include_bos_eos_tag)
        scores, paths = skiff.text.viterbi_decode(skiff.to_tensor(potentials),
                                                  skiff.to_tensor(transitions),
                                                  skiff.to_tensor(lengths), include_bos_eos_tag)
        assert scores.dtype == getattr(skiff, dtype) and paths.dtype == skiff.int64
        np.testing.assert_allclose(scores.numpy(), expected[0].numpy(), rtol=1e-6)
        np.testing.assert_array_equal(paths.numpy(), expected[1].numpy())


def test_viterbi_decode_scores_the_best_path_by_brute_force():
    rng = np.random.default_rng(1)
    potentials, transitions, lengths = _case(rng, "float64", batch=2, seq_len=3, num_tags=3)
    scores, paths = skiff.text.viterbi_decode(skiff.to_tensor(potentials),
                                              skiff.to_tensor(transitions),
                                              skiff.to_tensor(lengths), True)
    for b in range(2):
        n = int(lengths[b])
        best = max(
            (sum(potentials[b, t, p[t]] for t in range(n))
             + sum(transitions[p[t - 1], p[t]] for t in range(1, n))
             + transitions[-1, p[0]] + transitions[-2, p[n - 1]], p)
            for p in np.ndindex(*(3,) * n))
        assert scores.numpy()[b] == pytest.approx(best[0])
        assert tuple(paths.numpy()[b, :n]) == best[1]
        assert not paths.numpy()[b, n:].any()


def test_viterbi_decoder_layer_matches_paddle(paddle):
    potentials, transitions, lengths = _case(np.random.default_rng(3), "float32")
    decoder = skiff.text.ViterbiDecoder(skiff.to_tensor(transitions))
    assert isinstance(decoder, skiff.nn.Layer)
    scores, paths = decoder(skiff.to_tensor(potentials), skiff.to_tensor(lengths))
    expected = paddle.text.ViterbiDecoder(paddle.to_tensor(transitions))(
        paddle.to_tensor(potentials), paddle.to_tensor(lengths))
    np.testing.assert_allclose(scores.numpy(), expected[0].numpy(), rtol=1e-6)
    np.testing.assert_array_equal(paths.numpy(), expected[1].numpy())


def test_viterbi_decode_errors():
    potentials = skiff.rand([2, 4, 3])
    transitions = skiff.rand([3, 3])
    lengths = skiff.to_tensor([2, 4])
    decode = skiff.text.viterbi_decode
    with pytest.raises(ValueError, match="potentials must be"):
        decode(skiff.rand([2, 4]), transitions, lengths)
    with pytest.raises(ValueError, match="transition_params must be"):
        decode(potentials, skiff.rand([4, 4]), lengths)
    with pytest.raises(ValueError, match="lengths must be"):
        decode(potentials, transitions, skiff.to_tensor([1, 2, 3]))
    with pytest.raises(ValueError, match=r"lengths must be in \[1, seq_len = 4\]"):
        decode(potentials, transitions, skiff.to_tensor([0, 5]))
    with pytest.raises(TypeError, match="lengths"):
        decode(potentials, transitions, skiff.to_tensor([1.0, 2.0]))
    with pytest.raises(TypeError, match="dtype of potentials"):
        decode(potentials, transitions.astype("float64"), lengths)
    with pytest.raises(TypeError, match="potentials must be a Tensor"):
        decode(np.zeros((2, 4, 3)), transitions, lengths)
    with pytest.raises(ValueError, match="transitions must be"):
        skiff.text.ViterbiDecoder(skiff.rand([3, 2]))
