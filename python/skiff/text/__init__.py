"""paddle.text: sequence decoding (viterbi_decode, ViterbiDecoder); the text data sets, which
download their files, are not provided.

    scores, paths = skiff.text.viterbi_decode(emission, transitions, lengths)
"""

from .viterbi import ViterbiDecoder, viterbi_decode

__all__ = ["ViterbiDecoder", "viterbi_decode"]
