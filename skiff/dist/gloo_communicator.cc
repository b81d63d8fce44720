#include "skiff/dist/gloo_communicator.h"

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/alltoall.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/math.h>
#include <gloo/reduce.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/scatter.h>
#include <gloo/transport/tcp/device.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <iterator>
#include <thread>

namespace skiff::dist {

namespace {

// Gloo's rendezvous store over etcd keys under one prefix.
class EtcdStore : public gloo::rendezvous::Store {
 public:
  EtcdStore(EtcdClient& etcd, std::string prefix, std::chrono::milliseconds timeout)
      : etcd_(etcd), prefix_(std::move(prefix)), timeout_(timeout) {}

  void set(const std::string& key, const std::vector<char>& data) override {
    etcd_.put(prefix_ + key, std::string(data.begin(), data.end()));
  }
  std::vector<char> get(const std::string& key) override {
    std::optional<std::string> v = etcd_.wait(prefix_ + key, timeout_);
    if (!v) missing(key);
    return std::vector<char>(v->begin(), v->end());
  }
  void wait(const std::vector<std::string>& keys) override { wait(keys, timeout_); }
  void wait(const std::vector<std::string>& keys,
            const std::chrono::milliseconds& timeout) override {
    for (const std::string& key : keys) {
      if (!etcd_.wait(prefix_ + key, timeout)) missing(key);
    }
  }

 private:
  [[noreturn]] void missing(const std::string& key) const {
    throw CommError(str_cat("rendezvous under '", prefix_, "' in etcd at ", etcd_.endpoint(),
                            ": no '", key, "' after ", timeout_.count(),
                            " ms (a rank did not come)"));
  }

  EtcdClient& etcd_;
  std::string prefix_;
  std::chrono::milliseconds timeout_;
};

using ReduceFn = std::function<void(void*, const void*, const void*, size_t)>;

float add(float x, float y) { return x + y; }
float mul(float x, float y) { return x * y; }
float larger(float x, float y) { return x < y ? y : x; }
float smaller(float x, float y) { return y < x ? y : x; }

// c = f(a, b) elementwise over bfloat16, computed in float32 and rounded once.
template <float (*F)(float, float)>
void bf16_reduce(void* c, const void* a, const void* b, size_t n) {
  auto* out = static_cast<bfloat16*>(c);
  auto* x = static_cast<const bfloat16*>(a);
  auto* y = static_cast<const bfloat16*>(b);
  for (size_t i = 0; i < n; ++i) {
    out[i] = bfloat16(F(static_cast<float>(x[i]), static_cast<float>(y[i])));
  }
}

using RawReduceFn = void (*)(void*, const void*, const void*, size_t);

template <typename T>
ReduceFn typed_reduce(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kAvg:
      return static_cast<RawReduceFn>(&gloo::sum<T>);
    case ReduceOp::kProd:
      return static_cast<RawReduceFn>(&gloo::product<T>);
    case ReduceOp::kMax:
      return static_cast<RawReduceFn>(&gloo::max<T>);
    case ReduceOp::kMin:
      return static_cast<RawReduceFn>(&gloo::min<T>);
  }
  return nullptr;
}

ReduceFn reduce_fn(DType dtype, ReduceOp op, const char* what) {
  switch (dtype) {
    case DType::kF32:
      return typed_reduce<float>(op);
    case DType::kF64:
      return typed_reduce<double>(op);
    case DType::kI32:
      SKIFF_CHECK(op != ReduceOp::kAvg, what, ": avg needs a floating tensor, got int32");
      return typed_reduce<int32_t>(op);
    case DType::kI64:
      SKIFF_CHECK(op != ReduceOp::kAvg, what, ": avg needs a floating tensor, got int64");
      return typed_reduce<int64_t>(op);
    case DType::kI8:
      SKIFF_CHECK(op != ReduceOp::kAvg, what, ": avg needs a floating tensor, got int8");
      return typed_reduce<int8_t>(op);
    case DType::kU8:
      SKIFF_CHECK(op != ReduceOp::kAvg, what, ": avg needs a floating tensor, got uint8");
      return typed_reduce<uint8_t>(op);
    case DType::kI16:
      SKIFF_CHECK(op != ReduceOp::kAvg, what, ": avg needs a floating tensor, got int16");
      return typed_reduce<int16_t>(op);
    case DType::kBool:
      // As numbers 0/1: max is any, min is all; sum and prod saturate to any and all.
      SKIFF_CHECK(op != ReduceOp::kAvg, what, ": avg needs a floating tensor, got bool");
      return op == ReduceOp::kSum || op == ReduceOp::kMax ? typed_reduce<uint8_t>(ReduceOp::kMax)
                                                          : typed_reduce<uint8_t>(ReduceOp::kMin);
    case DType::kBF16:
      switch (op) {
        case ReduceOp::kSum:
        case ReduceOp::kAvg:
          return &bf16_reduce<add>;
        case ReduceOp::kProd:
          return &bf16_reduce<mul>;
        case ReduceOp::kMax:
          return &bf16_reduce<larger>;
        case ReduceOp::kMin:
          return &bf16_reduce<smaller>;
      }
      break;
    case DType::kC64:
    case DType::kC128:
      fail(what,
           ": collectives on complex tensors are not supported (send the real and "
           "imaginary parts as float tensors: skiff.as_real)");
  }
  fail(what, ": unsupported dtype");
}

// Divides every element by `n` (avg = sum / n).
void divide(Tensor& x, int n) {
  switch (x.dtype()) {
    case DType::kF32:
      for (float *p = x.data<float>(), *e = p + x.numel(); p < e; ++p) *p /= n;
      break;
    case DType::kF64:
      for (double *p = x.data<double>(), *e = p + x.numel(); p < e; ++p) *p /= n;
      break;
    case DType::kBF16:
      for (bfloat16 *p = x.data<bfloat16>(), *e = p + x.numel(); p < e; ++p) {
        *p = bfloat16(static_cast<float>(*p) / n);
      }
      break;
    default:
      break;
  }
}

// Gloo's options take the element type as a template argument; only its size matters
// to the byte-moving collectives, so those go through one of these.
template <typename Fn>
void with_element(DType dtype, Fn&& fn) {
  switch (dtype_size(dtype)) {
    case 1:
      fn(uint8_t{});
      break;
    case 2:
      fn(uint16_t{});
      break;
    case 4:
      fn(uint32_t{});
      break;
    case 8:
      fn(uint64_t{});
      break;
    default:
      fail("collective: unsupported element size");
  }
}

class GlooCommunicator : public Communicator {
 public:
  GlooCommunicator(std::shared_ptr<gloo::rendezvous::Context> context,
                   std::shared_ptr<gloo::transport::Device> device)
      : context_(std::move(context)), device_(std::move(device)) {}

  int rank() const override { return context_->rank; }
  int size() const override { return context_->size; }
  void set_timeout(std::chrono::milliseconds timeout) override { context_->setTimeout(timeout); }

  void all_reduce(Tensor& x, ReduceOp op) override {
    guard({"all_reduce", x.numel(), -1, int64_t(op)}, x,
          [&] { all_reduce_raw(x, op, "all_reduce"); });
  }

  void broadcast(Tensor& x, int root) override {
    check_peer("broadcast", root);
    guard({"broadcast", x.numel(), root}, x, [&] {
      if (x.nbytes() == 0) return;
      gloo::BroadcastOptions opts(context_);
      opts.setOutput(static_cast<uint8_t*>(x.raw_data()), x.nbytes());
      opts.setRoot(root);
      opts.setTag(kTagBroadcast);
      gloo::broadcast(opts);
    });
  }

  void reduce(Tensor& x, int root, ReduceOp op) override {
    check_peer("reduce", root);
    guard({"reduce", x.numel(), root, int64_t(op)}, x, [&] {
      if (x.numel() == 0) return;
      ReduceFn fn = reduce_fn(x.dtype(), op, "reduce");
      // Gloo uses the other ranks' buffers as scratch: they reduce a copy.
      Tensor work = rank() == root ? x : x.clone();
      with_element(x.dtype(), [&](auto e) {
        using E = decltype(e);
        gloo::ReduceOptions opts(context_);
        opts.setOutput(static_cast<E*>(work.raw_data()), work.numel());
        opts.setRoot(root);
        opts.setReduceFunction(fn);
        opts.setTag(kTagReduce);
        gloo::reduce(opts);
      });
      if (op == ReduceOp::kAvg && rank() == root) divide(x, size());
    });
  }

  void all_gather(const Tensor& x, Tensor* out) override {
    guard({"all_gather", x.numel()}, x, [&] {
      out->resize(stacked_shape(x.shape(), size()), x.dtype());
      if (x.nbytes() == 0) return;
      Tensor in = x.shares_storage(*out) ? x.clone() : x;
      gloo::AllgatherOptions opts(context_);
      opts.setInput(static_cast<uint8_t*>(const_cast<void*>(in.raw_data())), in.nbytes());
      opts.setOutput(static_cast<uint8_t*>(out->raw_data()), out->nbytes());
      opts.setTag(kTagAllGather);
      gloo::allgather(opts);
    });
  }

  void reduce_scatter(const Tensor& x, Tensor* out, ReduceOp op) override {
    guard({"reduce_scatter", x.numel(), -1, int64_t(op)}, x, [&] {
      const Shape part = split_shape("reduce_scatter", x.shape());
      // Gloo's reduce-scatter is not in its options API: reduce the whole tensor, keep
      // this rank's rows (the same bytes on the wire as a ring reduce-scatter plus an
      // all-gather; good enough until it shows in a profile).
      Tensor sum = x.clone();
      all_reduce_raw(sum, op, "reduce_scatter");
      out->resize(part, x.dtype());
      const size_t bytes = out->nbytes();
      if (bytes) {
        std::memcpy(out->raw_data(), static_cast<const char*>(sum.raw_data()) + rank() * bytes,
                    bytes);
      }
    });
  }

  void scatter(const Tensor& x, Tensor* out, int root) override {
    check_peer("scatter", root);
    // (the root's x holds every rank's part: compare the parts)
    guard({"scatter", rank() == root ? x.numel() / size() : x.numel(), root}, x, [&] {
      Shape part = rank() == root ? split_shape("scatter", x.shape()) : x.shape();
      Tensor in = rank() == root && x.shares_storage(*out) ? x.clone() : x;
      out->resize(part, x.dtype());
      const size_t bytes = out->nbytes();
      if (bytes == 0) return;
      gloo::ScatterOptions opts(context_);
      std::vector<uint8_t*> parts;
      if (rank() == root) {
        for (int r = 0; r < size(); ++r) {
          parts.push_back(static_cast<uint8_t*>(const_cast<void*>(in.raw_data())) + r * bytes);
        }
        opts.setInputs(parts, bytes);
      }
      opts.setOutput(static_cast<uint8_t*>(out->raw_data()), bytes);
      opts.setRoot(root);
      opts.setTag(kTagScatter);
      gloo::scatter(opts);
    });
  }

  void all_to_all(const Tensor& x, Tensor* out) override {
    guard({"all_to_all", x.numel()}, x, [&] {
      split_shape("all_to_all", x.shape());
      Tensor in = x.shares_storage(*out) ? x.clone() : x;
      out->resize(x.shape(), x.dtype());
      if (x.nbytes() == 0) return;
      gloo::AlltoallOptions opts(context_);
      opts.setInput(static_cast<uint8_t*>(const_cast<void*>(in.raw_data())), in.nbytes());
      opts.setOutput(static_cast<uint8_t*>(out->raw_data()), out->nbytes());
      opts.setTag(kTagAllToAll);
      gloo::alltoall(opts);
    });
  }

  void send(const Tensor& x, int peer) override {
    check_peer("send", peer);
    guard({"send", kPointToPoint}, x, [&] {
      if (x.nbytes() == 0) return;
      auto buf = context_->createUnboundBuffer(const_cast<void*>(x.raw_data()), x.nbytes());
      buf->send(peer, kSlotPointToPoint);
      buf->waitSend(context_->getTimeout());
    });
  }

  void recv(Tensor& x, int peer) override {
    check_peer("recv", peer);
    guard({"recv", kPointToPoint}, x, [&] {
      if (x.nbytes() == 0) return;
      auto buf = context_->createUnboundBuffer(x.raw_data(), x.nbytes());
      buf->recv(peer, kSlotPointToPoint);
      buf->waitRecv(context_->getTimeout());
    });
  }

  void barrier() override {
    guard({"barrier"}, Tensor(), [&] {
      gloo::BarrierOptions opts(context_);
      opts.setTag(kTagBarrier);
      gloo::barrier(opts);
    });
  }

 private:
  enum : uint32_t {
    kTagAllReduce = 1,
    kTagBroadcast,
    kTagReduce,
    kTagAllGather,
    kTagScatter,
    kTagAllToAll,
    kTagBarrier,
    kTagCheck,
    kSlotPointToPoint
  };
  static constexpr const char* kKinds[] = {"all_reduce", "broadcast",      "reduce",
                                           "all_gather", "reduce_scatter", "scatter",
                                           "all_to_all", "barrier"};

  void all_reduce_raw(Tensor& x, ReduceOp op, const char* what) {
    if (x.numel() == 0) return;
    ReduceFn fn = reduce_fn(x.dtype(), op, what);
    with_element(x.dtype(), [&](auto e) {
      using E = decltype(e);
      gloo::AllreduceOptions opts(context_);
      opts.setOutput(static_cast<E*>(x.raw_data()), x.numel());
      opts.setReduceFunction(fn);
      opts.setTag(kTagAllReduce);
      gloo::allreduce(opts);
    });
    if (op == ReduceOp::kAvg) divide(x, size());
  }

  void check_peer(const char* what, int peer) const {
    SKIFF_CHECK(peer >= 0 && peer < size(), what, " on rank ", rank(), ": peer/root ", peer,
                " is not a rank of this communicator (size ", size(), ")");
  }

  Shape split_shape(const char* what, const Shape& shape) const {
    SKIFF_CHECK(shape.rank() >= 1 && shape.dim(0) % size() == 0, what, " on rank ", rank(),
                ": the leading dim of ", shape, " must be a multiple of the world size ", size());
    Shape part = shape;
    part[0] /= size();
    return part;
  }

  static Shape stacked_shape(const Shape& shape, int n) {
    Shape out{n};
    for (int64_t d : shape) out.push_back(d);
    return out;
  }

  // Every rank's (collective, dtype, element count, root) must agree before data moves:
  // Gloo would otherwise abort the process (or hang) on a size mismatch. One all-gather
  // of 32 bytes per collective; `count` is what must match (-1: the op has no tensor).
  static constexpr int64_t kPointToPoint = -2;  // a Call's count: no check (not collective)
  struct Call {
    const char* what;
    int64_t count = -1;  // elements that must match (-1: no tensor)
    int64_t root = -1;
    int64_t op = -1;  // ReduceOp, for reductions
  };

  void check_same(const Call& call, DType dtype) {
    constexpr int kWords = 5;
    int64_t mine[kWords] = {kind_of(call.what), static_cast<int64_t>(dtype), call.count, call.root,
                            call.op};
    std::vector<int64_t> all(kWords * size());
    gloo::AllgatherOptions opts(context_);
    opts.setInput(mine, kWords);
    opts.setOutput(all.data(), all.size());
    opts.setTag(kTagCheck);
    gloo::allgather(opts);
    bool same = true;
    for (int r = 1; r < size(); ++r) {
      same = same && std::equal(&all[0], &all[kWords], &all[kWords * r]);
    }
    if (same) return;
    std::string ranks;
    for (int r = 0; r < size(); ++r) {
      const int64_t* h = &all[kWords * r];
      ranks += str_cat(r ? "; " : "", "rank ", r, ": ", kKinds[h[0]]);
      if (h[2] >= 0) {
        ranks += str_cat(" of ", h[2], " ", dtype_name(static_cast<DType>(h[1])), " elements");
      }
      if (h[3] >= 0) ranks += str_cat(", root ", h[3]);
      if (h[4] >= 0) ranks += str_cat(", ", reduce_op_name(static_cast<ReduceOp>(h[4])));
    }
    const char* what = call.what;
    fail(what, " on rank ", rank(), " of ", size(),
         ": the ranks called different collectives or passed different tensors (", ranks, ")");
  }

  static int64_t kind_of(const char* what) {
    for (int64_t i = 0; i < int64_t(std::size(kKinds)); ++i) {
      if (std::strcmp(kKinds[i], what) == 0) return i;
    }
    return 0;
  }

  // Runs one collective after check_same (when the call is collective), turning Gloo's
  // failures (a peer gone, a timeout) into a CommError naming the op, this rank and the
  // tensor.
  template <typename Fn>
  void guard(const Call& call, const Tensor& x, Fn&& fn) {
    const char* what = call.what;
    try {
      if (call.count >= -1 && size() > 1)
        check_same(call, x.initialized() ? x.dtype() : DType::kF32);
      fn();
    } catch (const gloo::Exception& e) {
      throw CommError(describe(what, x, e.what()));
    } catch (const gloo::EnforceNotMet& e) {
      throw CommError(describe(what, x, e.what()));
    }
  }

  std::string describe(const char* what, const Tensor& x, const char* cause) const {
    return str_cat(what, " on rank ", rank(), " of ", size(),
                   x.initialized() ? str_cat(" (", x.type_str(), ")") : std::string(),
                   " failed: ", cause, " (a peer died or did not answer within the timeout)");
  }

  std::shared_ptr<gloo::rendezvous::Context> context_;
  std::shared_ptr<gloo::transport::Device> device_;
};

}  // namespace

std::shared_ptr<Communicator> connect_gloo(EtcdClient& etcd, const std::string& prefix, int rank,
                                           int size, const GlooOptions& options) {
  SKIFF_CHECK(size >= 1 && rank >= 0 && rank < size, "connect_gloo: rank ", rank, " is not in [0, ",
              size, ")");
  EtcdStore store(etcd, prefix, options.timeout);
  // Every rank must agree on the size before Gloo exchanges addresses (it would stop
  // on a size mismatch with a message about address lengths).
  etcd.put(str_cat(prefix, "size/", rank), std::to_string(size));
  const std::string sizes = prefix + "size/";
  const auto deadline = std::chrono::steady_clock::now() + options.timeout;
  while (true) {
    const std::vector<KeyValue> seen = etcd.get_prefix(sizes);
    for (const KeyValue& kv : seen) {
      SKIFF_CHECK(kv.value == std::to_string(size), "connecting rank ", rank, " under '", prefix,
                  "': this rank was started for a world of ", size, " ranks but rank ",
                  kv.key.substr(sizes.size()), " for a world of ", kv.value,
                  " (the launchers or SKIFF_WORLD_SIZE of the job's workers disagree)");
    }
    // Once all came (or time is up: connecting reports the rank that did not come).
    if (static_cast<int>(seen.size()) >= size || std::chrono::steady_clock::now() > deadline) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  gloo::transport::tcp::attr attr;
  attr.hostname = options.hostname;
  try {
    std::shared_ptr<gloo::transport::Device> device = gloo::transport::tcp::CreateDevice(attr);
    auto context = std::make_shared<gloo::rendezvous::Context>(rank, size);
    context->setTimeout(options.timeout);
    context->connectFullMesh(store, device);
    return std::make_shared<GlooCommunicator>(std::move(context), std::move(device));
  } catch (const gloo::Exception& e) {
    throw CommError(str_cat("connecting rank ", rank, " of ", size, " under '", prefix,
                            "' failed: ", e.what()));
  } catch (const gloo::EnforceNotMet& e) {
    throw CommError(str_cat("connecting rank ", rank, " of ", size, " under '", prefix,
                            "' failed: ", e.what()));
  }
}

}  // namespace skiff::dist
