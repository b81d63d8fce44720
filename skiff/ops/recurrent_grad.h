// What the grad makers of the recurrent ops share (rnn_cell.cc: lstm_cell, gru_cell;
// rnn_layer.cc: lstm, gru, simple_rnn).
#pragma once

#include <initializer_list>

#include "skiff/ops/grad_context.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

using SlotList = std::initializer_list<const char*>;

// Appends `grad_type`: the forward's inputs `ins` (with a gradient output for each) and its
// Sequence_length when it has one, what it kept (`kept`; when `kept_required` is false
// they are passed only if the forward kept the first of them, and the grad op recomputes
// them otherwise), the gradients of `outs`, and the forward's attributes. Nothing when no
// input of `ins` needs a gradient.
void add_recurrent_grad(GradContext& g, const char* grad_type, SlotList ins, SlotList outs,
                        SlotList kept, bool kept_required);

// Declares every X@GRAD of `ins` like its forward input X.
void infer_input_grads(ShapeContext& ctx, SlotList ins);

}  // namespace skiff
