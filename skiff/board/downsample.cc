// downsample(): largest-triangle-three-buckets, keeping each bucket's extremes too.
#include <algorithm>
#include <cmath>

#include "skiff/board/run_log.h"

namespace skiff::board {

std::vector<int64_t> downsample(const int64_t* x, const float* y, size_t n, size_t max_points) {
  std::vector<int64_t> out;
  if (n <= max_points) {
    for (size_t i = 0; i < n; ++i) out.push_back(static_cast<int64_t>(i));
    return out;
  }
  if (max_points < 5) {  // too few for buckets: evenly spaced, first and last included
    const size_t keep = std::max<size_t>(max_points, 2);
    for (size_t i = 0; i < keep; ++i) out.push_back(static_cast<int64_t>(i * (n - 1) / (keep - 1)));
    return out;
  }
  const size_t buckets = (max_points - 2) / 3;
  // Bucket b covers the points [begin(b), begin(b + 1)) between the first and the last.
  auto begin = [&](size_t b) { return 1 + b * (n - 2) / buckets; };
  out.reserve(3 * buckets + 2);
  out.push_back(0);
  size_t chosen = 0;  // the point chosen in the previous bucket
  for (size_t b = 0; b < buckets; ++b) {
    const size_t lo = begin(b), hi = begin(b + 1);
    // The next bucket's mean point (the last point after the last bucket).
    double next_x = 0, next_y = 0;
    const size_t next_lo = hi, next_hi = b + 1 < buckets ? begin(b + 2) : n;
    size_t counted = 0;
    for (size_t i = next_lo; i < next_hi; ++i) {
      if (!std::isfinite(y[i])) continue;
      next_x += static_cast<double>(x[i]);
      next_y += y[i];
      ++counted;
    }
    if (counted) {
      next_x /= counted;
      next_y /= counted;
    } else {
      next_x = static_cast<double>(x[n - 1]);
      next_y = y[n - 1];
    }
    const double ax = static_cast<double>(x[chosen]), ay = y[chosen];
    size_t best = lo, low = lo, high = lo;
    double best_area = -1;
    for (size_t i = lo; i < hi; ++i) {
      if (!std::isfinite(y[i])) continue;
      const double area =
          std::abs((ax - next_x) * (y[i] - ay) - (ax - static_cast<double>(x[i])) * (next_y - ay));
      if (area > best_area) best_area = area, best = i;
      if (!std::isfinite(y[low]) || y[i] < y[low]) low = i;
      if (!std::isfinite(y[high]) || y[i] > y[high]) high = i;
    }
    size_t picks[3] = {best, low, high};
    std::sort(picks, picks + 3);
    for (size_t p : picks) {
      if (static_cast<int64_t>(p) != out.back()) out.push_back(static_cast<int64_t>(p));
    }
    chosen = best;
  }
  if (out.back() != static_cast<int64_t>(n - 1)) out.push_back(static_cast<int64_t>(n - 1));
  return out;
}

}  // namespace skiff::board
