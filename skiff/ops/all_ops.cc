#include "skiff/ops/all_ops.h"

#include "skiff/ops/registry.h"

namespace skiff {

// Each family registers its ops in ops/<family>.cc.
void register_control_flow_ops(OpRegistry& r);
void register_creation_ops(OpRegistry& r);
void register_tensor_ops(OpRegistry& r);
void register_logic_ops(OpRegistry& r);
void register_array_ops(OpRegistry& r);
void register_elementwise_ops(OpRegistry& r);
void register_activation_ops(OpRegistry& r);
void register_matmul_ops(OpRegistry& r);
void register_reduce_ops(OpRegistry& r);
void register_softmax_ops(OpRegistry& r);
void register_shape_ops(OpRegistry& r);
void register_lr_schedule_ops(OpRegistry& r);
void register_clip_grad_ops(OpRegistry& r);
void register_metric_ops(OpRegistry& r);
void register_loss_ops(OpRegistry& r);
void register_embedding_ops(OpRegistry& r);
void register_conv_ops(OpRegistry& r);
void register_dropout_ops(OpRegistry& r);
void register_norm_ops(OpRegistry& r);
void register_pool_ops(OpRegistry& r);
void register_rnn_cell_ops(OpRegistry& r);
void register_sequence_math_ops(OpRegistry& r);
void register_where_ops(OpRegistry& r);
void register_slice_ops(OpRegistry& r);
void register_index_ops(OpRegistry& r);
void register_join_ops(OpRegistry& r);
void register_shape_edit_ops(OpRegistry& r);
void register_optimizer_ops(OpRegistry& r);
void register_optimizer_more_ops(OpRegistry& r);
void register_math_ops(OpRegistry& r);
void register_reduce_extreme_ops(OpRegistry& r);
void register_unary_math_ops(OpRegistry& r);
void register_binary_math_ops(OpRegistry& r);
void register_strided_slice_ops(OpRegistry& r);
void register_where_index_ops(OpRegistry& r);
void register_collective_ops(OpRegistry& r);
void register_triangular_ops(OpRegistry& r);
void register_debug_ops(OpRegistry& r);
void register_array_convert_ops(OpRegistry& r);
void register_unique_ops(OpRegistry& r);
void register_interpolate_ops(OpRegistry& r);
void register_unfold_ops(OpRegistry& r);
void register_linalg_ops(OpRegistry& r);
void register_quantize_ops(OpRegistry& r);
void register_quantized_compute_ops(OpRegistry& r);

void register_all_ops(OpRegistry& r) {
  register_control_flow_ops(r);
  register_creation_ops(r);
  register_tensor_ops(r);
  register_logic_ops(r);
  register_array_ops(r);
  register_elementwise_ops(r);
  register_activation_ops(r);
  register_matmul_ops(r);
  register_reduce_ops(r);
  register_softmax_ops(r);
  register_shape_ops(r);
  register_lr_schedule_ops(r);
  register_clip_grad_ops(r);
  register_metric_ops(r);
  register_loss_ops(r);
  register_embedding_ops(r);
  register_conv_ops(r);
  register_dropout_ops(r);
  register_norm_ops(r);
  register_pool_ops(r);
  register_rnn_cell_ops(r);
  register_sequence_math_ops(r);
  register_where_ops(r);
  register_slice_ops(r);
  register_index_ops(r);
  register_join_ops(r);
  register_shape_edit_ops(r);
  register_optimizer_ops(r);
  register_optimizer_more_ops(r);
  register_math_ops(r);
  register_reduce_extreme_ops(r);
  register_unary_math_ops(r);
  register_binary_math_ops(r);
  register_strided_slice_ops(r);
  register_where_index_ops(r);
  register_collective_ops(r);
  register_triangular_ops(r);
  register_debug_ops(r);
  register_array_convert_ops(r);
  register_unique_ops(r);
  register_interpolate_ops(r);
  register_unfold_ops(r);
  register_linalg_ops(r);
  register_quantize_ops(r);
  register_quantized_compute_ops(r);
}

}  // namespace skiff
