"""paddle.nn.layer.transformer: multi-head attention and the Transformer's encoder and
decoder stacks, defined in transformer_encoder and transformer_decoder."""
from .transformer_decoder import Transformer, TransformerDecoder, TransformerDecoderLayer
from .transformer_encoder import MultiHeadAttention, TransformerEncoder, TransformerEncoderLayer

__all__ = ["MultiHeadAttention", "TransformerEncoderLayer", "TransformerEncoder",
           "TransformerDecoderLayer", "TransformerDecoder", "Transformer"]
