#include "skiff/kernels/cpu/transpose.h"

#include <algorithm>
#include <cstring>

#include "skiff/core/parallel.h"

namespace skiff::kernels {
namespace {

// The transpose as output dims with their input strides: size-1 dims dropped, and
// neighbouring output dims that are neighbours in the input too merged into one.
struct Plan {
  int rank = 0;
  int64_t size[Shape::kMaxRank];
  int64_t stride[Shape::kMaxRank];  // input stride of each output dim

  Plan(const Shape& x, const std::vector<int>& perm) {
    int64_t in_stride[Shape::kMaxRank];
    int64_t acc = 1;
    for (int d = x.rank() - 1; d >= 0; --d) {
      in_stride[d] = acc;
      acc *= x[d];
    }
    for (int axis : perm) {
      const int64_t n = x[axis], s = in_stride[axis];
      if (n == 1) continue;
      if (rank > 0 && stride[rank - 1] == n * s) {
        size[rank - 1] *= n;
        stride[rank - 1] = s;
      } else {
        size[rank] = n;
        stride[rank] = s;
        ++rank;
      }
    }
  }
  // Input offset of the first element of outer block `o` (dims [0, outer_rank)).
  int64_t outer_offset(int64_t o, int outer_rank) const {
    int64_t off = 0;
    for (int d = outer_rank - 1; d >= 0; --d) {
      off += (o % size[d]) * stride[d];
      o /= size[d];
    }
    return off;
  }
};

// Inner dim contiguous in the input: whole rows are copied.
template <typename E>
void copy_rows(const E* in, E* out, const Plan& p) {
  const int64_t len = p.size[p.rank - 1];
  int64_t rows = 1;
  for (int d = 0; d + 1 < p.rank; ++d) rows *= p.size[d];
  parallel_for(rows, std::max<int64_t>(1, kParallelGrain / len), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r)
      std::memcpy(out + r * len, in + p.outer_offset(r, p.rank - 1), len * sizeof(E));
  });
}

// The last two output dims in square tiles, so reads and writes both stay in cache.
template <typename E>
void copy_tiles(const E* in, E* out, const Plan& p) {
  constexpr int64_t kTile = 16;
  const int outer_rank = p.rank - 2;
  const int64_t rows = p.size[p.rank - 2], cols = p.size[p.rank - 1];
  const int64_t rs = p.stride[p.rank - 2], cs = p.stride[p.rank - 1];
  int64_t outer = 1;
  for (int d = 0; d < outer_rank; ++d) outer *= p.size[d];
  const int64_t tile_rows = (rows + kTile - 1) / kTile;
  const int64_t jobs = outer * tile_rows;
  parallel_for(jobs, std::max<int64_t>(1, kParallelGrain / (kTile * cols)),
               [&](int64_t j0, int64_t j1) {
                 for (int64_t job = j0; job < j1; ++job) {
                   const int64_t o = job / tile_rows, i0 = (job % tile_rows) * kTile;
                   const E* src = in + p.outer_offset(o, outer_rank);
                   E* dst = out + o * rows * cols;
                   const int64_t i1 = std::min(rows, i0 + kTile);
                   for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
                     const int64_t c1 = std::min(cols, c0 + kTile);
                     for (int64_t i = i0; i < i1; ++i)
                       for (int64_t c = c0; c < c1; ++c) dst[i * cols + c] = src[i * rs + c * cs];
                   }
                 }
               });
}

template <typename E>
void transpose_elems(const E* in, E* out, int64_t numel, const Plan& p) {
  if (numel == 0) return;
  if (p.rank == 0 || (p.rank == 1 && p.stride[0] == 1)) {
    std::memcpy(out, in, numel * sizeof(E));
  } else if (p.stride[p.rank - 1] == 1) {
    copy_rows(in, out, p);
  } else if (p.rank == 1) {
    for (int64_t i = 0; i < numel; ++i) out[i] = in[i * p.stride[0]];
  } else {
    copy_tiles(in, out, p);
  }
}

}  // namespace

std::vector<int> transpose_permutation(const std::vector<int64_t>& axis, int rank) {
  auto describe = [&] {
    std::string s = "[";
    for (size_t i = 0; i < axis.size(); ++i) s += (i ? ", " : "") + std::to_string(axis[i]);
    return s + "]";
  };
  SKIFF_CHECK(static_cast<int>(axis.size()) == rank, "transpose: axis ", describe(), " has ",
              axis.size(), " entries for a rank-", rank, " tensor");
  std::vector<int> perm(rank);
  std::vector<bool> seen(rank, false);
  for (int i = 0; i < rank; ++i) {
    const int64_t a = axis[i] < 0 ? axis[i] + rank : axis[i];
    SKIFF_CHECK(a >= 0 && a < rank && !seen[a], "transpose: axis ", describe(),
                " is not a permutation of the ", rank, " axes (entry ", axis[i],
                a >= 0 && a < rank ? " repeats)" : " is out of range)");
    seen[a] = true;
    perm[i] = static_cast<int>(a);
  }
  return perm;
}

std::vector<int> inverse_permutation(const std::vector<int>& perm) {
  std::vector<int> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[perm[i]] = static_cast<int>(i);
  return inv;
}

Shape transposed_shape(const Shape& x, const std::vector<int>& perm) {
  Shape out;
  for (int axis : perm) out.push_back(x[axis]);
  return out;
}

void transpose(const Tensor& x, const std::vector<int>& perm, Tensor* out) {
  SKIFF_CHECK(static_cast<int>(perm.size()) == x.rank(), "transpose: a permutation of ",
              perm.size(), " axes for ", x.type_str());
  const Plan plan(x.shape(), perm);
  Tensor own;
  Tensor* dst = out == &x ? &own : out;
  dst->resize(transposed_shape(x.shape(), perm), x.dtype());
  const int64_t n = x.numel();
  switch (dtype_size(x.dtype())) {
    case 1:
      transpose_elems(static_cast<const uint8_t*>(x.raw_data()),
                      static_cast<uint8_t*>(dst->raw_data()), n, plan);
      break;
    case 2:
      transpose_elems(static_cast<const uint16_t*>(x.raw_data()),
                      static_cast<uint16_t*>(dst->raw_data()), n, plan);
      break;
    case 4:
      transpose_elems(static_cast<const uint32_t*>(x.raw_data()),
                      static_cast<uint32_t*>(dst->raw_data()), n, plan);
      break;
    case 8:
      transpose_elems(static_cast<const uint64_t*>(x.raw_data()),
                      static_cast<uint64_t*>(dst->raw_data()), n, plan);
      break;
    case 16: {  // complex128, moved as two 8-byte words
      struct Pair {
        uint64_t lo, hi;
      };
      transpose_elems(static_cast<const Pair*>(x.raw_data()), static_cast<Pair*>(dst->raw_data()),
                      n, plan);
      break;
    }
    default:
      fail("transpose: unsupported element size for ", x.type_str());
  }
  if (dst == &own) *out = own;
}

}  // namespace skiff::kernels
