// skiff._C's part of skiff board (board/log_writer.h, board/run_log.h): EventLogWriter,
// RunLog and downsample, which skiff.board's LogWriter and server build on.
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "python/src/bindings.h"
#include "skiff/board/log_writer.h"
#include "skiff/board/run_log.h"

namespace skiff::python {
namespace {

using board::LogWriter;
using board::RunLog;

template <typename T>
using Column = nb::ndarray<const T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

template <typename T>
std::vector<T> to_vector(const Column<T>& a) {
  return std::vector<T>(a.data(), a.data() + a.shape(0));
}

// A numpy array owning a copy of `values`.
template <typename T>
nb::object numpy_copy(const std::vector<T>& values) {
  auto* owned = new std::vector<T>(values);
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  size_t shape[1] = {owned->size()};
  return nb::ndarray<nb::numpy, T, nb::ndim<1>>(owned->data(), 1, shape, owner).cast();
}

std::vector<std::pair<std::string, board::HParamValue>> hparams_of(const nb::dict& dict) {
  std::vector<std::pair<std::string, board::HParamValue>> out;
  for (auto [key, value] : dict) {
    board::HParamValue v;
    if (nb::isinstance<nb::bool_>(value)) {
      v.kind = board::HParamValue::Kind::kBool;
      v.flag = nb::cast<bool>(value);
    } else if (nb::isinstance<nb::int_>(value) || nb::isinstance<nb::float_>(value)) {
      v.number = nb::cast<double>(value);
    } else {
      v.kind = board::HParamValue::Kind::kString;
      v.text = nb::cast<std::string>(nb::str(value));
    }
    out.emplace_back(nb::cast<std::string>(nb::str(key)), std::move(v));
  }
  return out;
}

nb::object hparam_value(const board::HParamValue& v) {
  switch (v.kind) {
    case board::HParamValue::Kind::kString:
      return nb::str(v.text.c_str());
    case board::HParamValue::Kind::kBool:
      return nb::bool_(v.flag);
    case board::HParamValue::Kind::kNumber:
      break;
  }
  return nb::float_(v.number);
}

nb::dict stamp(int64_t step, double wall_time) {
  nb::dict d;
  d["step"] = step;
  d["wall_time"] = wall_time;
  return d;
}

// A tag's records as a list of dicts (`to_dict` fills each), or None.
template <typename Record, typename Fill>
nb::object records_of(const std::vector<Record>* records, Fill&& to_dict) {
  if (!records) return nb::none();
  nb::list out;
  for (const Record& r : *records) {
    nb::dict d = stamp(r.step, r.wall_time);
    to_dict(r, d);
    out.append(d);
  }
  return out;
}

const board::BlobRecord& blob_at(const std::vector<board::BlobRecord>* blobs,
                                 const std::string& tag, int64_t index) {
  SKIFF_CHECK(blobs && index >= 0 && index < static_cast<int64_t>(blobs->size()), "RunLog: '", tag,
              "' has no record ", index);
  return (*blobs)[static_cast<size_t>(index)];
}

void define_writer(nb::module_& m) {
  using Release = nb::call_guard<nb::gil_scoped_release>;
  nb::class_<LogWriter>(m, "EventLogWriter")
      .def(
          "__init__",
          [](LogWriter* self, const std::string& logdir, const std::string& suffix,
             size_t max_queue, double flush_secs, double block_secs, const std::string& file_name) {
            board::LogWriterOptions options;
            options.filename_suffix = suffix;
            options.file_name = file_name;
            options.max_queue = max_queue;
            options.flush_secs = flush_secs;
            options.block_secs = block_secs;
            new (self) LogWriter(logdir, options);
          },
          nb::arg("logdir"), nb::arg("filename_suffix") = "", nb::arg("max_queue") = 4096,
          nb::arg("flush_secs") = 2.0, nb::arg("block_secs") = 1.0, nb::arg("file_name") = "")
      .def_prop_ro("path", &LogWriter::path)
      .def_prop_ro("dropped", &LogWriter::dropped)
      .def("add_scalar", &LogWriter::add_scalar, nb::arg("tag"), nb::arg("value"), nb::arg("step"),
           nb::arg("walltime") = 0.0, Release())
      .def(
          "add_histogram",
          [](LogWriter& w, std::string tag, const Column<double>& values, int64_t step,
             double walltime, int buckets) {
            w.add_histogram(std::move(tag), to_vector(values), step, buckets, walltime);
          },
          nb::arg("tag"), nb::arg("values"), nb::arg("step"), nb::arg("walltime") = 0.0,
          nb::arg("buckets") = 10, Release())
      .def(
          "add_image",
          [](LogWriter& w, std::string tag,
             const nb::ndarray<const uint8_t, nb::ndim<3>, nb::c_contig, nb::device::cpu>& image,
             int64_t step, double walltime) {
            std::vector<uint8_t> pixels(image.data(), image.data() + image.size());
            w.add_image(std::move(tag), std::move(pixels), static_cast<int>(image.shape(0)),
                        static_cast<int>(image.shape(1)), static_cast<int>(image.shape(2)), step,
                        walltime);
          },
          nb::arg("tag"), nb::arg("image"), nb::arg("step"), nb::arg("walltime") = 0.0, Release())
      .def(
          "add_audio",
          [](LogWriter& w, std::string tag,
             const nb::ndarray<const float, nb::ndim<2>, nb::c_contig, nb::device::cpu>& samples,
             int sample_rate, int64_t step, double walltime) {
            std::vector<float> values(samples.data(), samples.data() + samples.size());
            w.add_audio(std::move(tag), std::move(values), static_cast<int64_t>(samples.shape(0)),
                        static_cast<int>(samples.shape(1)), sample_rate, step, walltime);
          },
          nb::arg("tag"), nb::arg("samples"), nb::arg("sample_rate"), nb::arg("step"),
          nb::arg("walltime") = 0.0, Release())
      .def("add_text", &LogWriter::add_text, nb::arg("tag"), nb::arg("text"), nb::arg("step"),
           nb::arg("walltime") = 0.0, Release())
      .def(
          "add_pr_curve",
          [](LogWriter& w, std::string tag, const Column<double>& labels,
             const Column<double>& predictions, int64_t step, double walltime, int num_thresholds,
             std::optional<Column<double>> weights) {
            w.add_pr_curve(std::move(tag), to_vector(labels), to_vector(predictions), step,
                           num_thresholds, weights ? to_vector(*weights) : std::vector<double>{},
                           walltime);
          },
          nb::arg("tag"), nb::arg("labels"), nb::arg("predictions"), nb::arg("step"),
          nb::arg("walltime") = 0.0, nb::arg("num_thresholds") = 10,
          nb::arg("weights").none() = nb::none(), Release())
      .def(
          "add_hparams",
          [](LogWriter& w, const nb::dict& hparams, std::vector<std::string> metrics,
             double walltime) { w.add_hparams(hparams_of(hparams), std::move(metrics), walltime); },
          nb::arg("hparams"), nb::arg("metrics"), nb::arg("walltime") = 0.0)
      .def("flush", &LogWriter::flush, Release())
      .def("close", &LogWriter::close, Release());
}

void define_reader(nb::module_& m) {
  nb::class_<RunLog>(m, "RunLog")
      .def(nb::init<std::string>(), nb::arg("path"))
      .def_prop_ro("path", &RunLog::dir)
      // (without the GIL: a server's other threads go on while a run loads; one caller at
      // a time per RunLog)
      .def("reload", &RunLog::reload, nb::call_guard<nb::gil_scoped_release>())
      .def("warnings", &RunLog::take_warnings)
      .def("tags",
           [](const RunLog& r) {
             nb::dict d;
             d["scalars"] = r.tags(board::TagKind::kScalars);
             d["histograms"] = r.tags(board::TagKind::kHistograms);
             d["images"] = r.tags(board::TagKind::kImages);
             d["audio"] = r.tags(board::TagKind::kAudio);
             d["text"] = r.tags(board::TagKind::kText);
             d["pr_curves"] = r.tags(board::TagKind::kPrCurves);
             return d;
           })
      .def("scalars",
           [](const RunLog& r, const std::string& tag) -> nb::object {
             const board::ScalarSeries* s = r.scalars(tag);
             if (!s) return nb::none();
             return nb::make_tuple(numpy_copy(s->steps), numpy_copy(s->wall_times),
                                   numpy_copy(s->values));
           })
      .def("histograms",
           [](const RunLog& r, const std::string& tag) {
             return records_of(r.histograms(tag), [](const board::HistogramRecord& h, nb::dict& d) {
               d["min"] = h.min;
               d["max"] = h.max;
               d["num"] = h.num;
               d["sum"] = h.sum;
               d["sum_squares"] = h.sum_squares;
               d["limits"] = h.limits;
               d["counts"] = h.counts;
             });
           })
      .def("images",
           [](const RunLog& r, const std::string& tag) {
             return records_of(r.images(tag), [](const board::BlobRecord& b, nb::dict& d) {
               d["width"] = b.width;
               d["height"] = b.height;
               d["content_type"] = b.content_type;
             });
           })
      .def("image",
           [](const RunLog& r, const std::string& tag, int64_t index) {
             const std::string& data = blob_at(r.images(tag), tag, index).data;
             return nb::bytes(data.data(), data.size());
           })
      .def("audio",
           [](const RunLog& r, const std::string& tag) {
             return records_of(r.audio(tag), [](const board::BlobRecord& b, nb::dict& d) {
               d["sample_rate"] = b.sample_rate;
               d["frames"] = b.frames;
               d["content_type"] = b.content_type;
             });
           })
      .def("audio_clip",
           [](const RunLog& r, const std::string& tag, int64_t index) {
             const std::string& data = blob_at(r.audio(tag), tag, index).data;
             return nb::bytes(data.data(), data.size());
           })
      .def("texts",
           [](const RunLog& r, const std::string& tag) {
             return records_of(r.texts(tag), [](const board::TextRecord& t, nb::dict& d) {
               // (text tensors hold bytes: what is not UTF-8 shows as U+FFFD)
               d["text"] = nb::steal(PyUnicode_DecodeUTF8(
                   t.text.data(), static_cast<Py_ssize_t>(t.text.size()), "replace"));
             });
           })
      .def("pr_curves",
           [](const RunLog& r, const std::string& tag) {
             return records_of(r.pr_curves(tag), [](const board::PrCurveRecord& p, nb::dict& d) {
               d["thresholds"] = p.thresholds;
               d["tp"] = p.tp;
               d["fp"] = p.fp;
               d["tn"] = p.tn;
               d["fn"] = p.fn;
               d["precision"] = p.precision;
               d["recall"] = p.recall;
             });
           })
      .def("hparams", [](const RunLog& r) -> nb::object {
        const board::HParamsRecord* h = r.hparams();
        if (!h) return nb::none();
        nb::dict values;
        for (const auto& [name, value] : h->hparams) values[name.c_str()] = hparam_value(value);
        nb::dict d;
        d["hparams"] = values;
        d["metrics"] = h->metrics;
        return d;
      });
  m.def(
      "downsample",
      [](const Column<int64_t>& steps, const Column<float>& values, size_t max_points) {
        SKIFF_CHECK(steps.shape(0) == values.shape(0), "downsample: ", steps.shape(0),
                    " steps but ", values.shape(0), " values");
        return numpy_copy(
            board::downsample(steps.data(), values.data(), steps.shape(0), max_points));
      },
      nb::arg("steps"), nb::arg("values"), nb::arg("max_points"));
}

}  // namespace

void define_board(nb::module_& m) {
  define_writer(m);
  define_reader(m);
}

}  // namespace skiff::python
