#include "skiff/serve/repository.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <system_error>

#include "skiff/core/error.h"

namespace skiff::serve {

namespace {

namespace fs = std::filesystem;

// How deep model_fingerprint looks below a model folder (a guard against link cycles).
constexpr int kMaxFingerprintDepth = 8;

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() > suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The names of the entries of `dir` that `keep` accepts, sorted; none when it cannot be
// listed. Symbolic links count as what they point to.
template <typename Keep>
std::vector<std::string> entries(const fs::path& dir, Keep keep) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (keep(*it)) out.push_back(it->path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

bool is_folder(const fs::directory_entry& e) {
  std::error_code ec;
  return e.is_directory(ec);
}

bool is_file(const fs::directory_entry& e) {
  std::error_code ec;
  return e.is_regular_file(ec);
}

// The version a folder name gives: digits only, no leading zero (so that "01" and "1" are
// not two folders of one version), within int64; nullopt for any other name.
std::optional<int64_t> version_of(const std::string& name) {
  if (name.empty() || (name.size() > 1 && name[0] == '0')) return std::nullopt;
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), v);
  if (ec != std::errc() || end != name.data() + name.size() || v < 0) return std::nullopt;
  return v;
}

std::string join(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

std::string join(const std::vector<int64_t>& versions) {
  std::string s;
  for (int64_t v : versions) s += (s.empty() ? "" : ", ") + std::to_string(v);
  return s;
}

ModelArtifact program_artifact(const fs::path& dir, const std::string& file) {
  const std::string params = fs::path(file).stem().string() + ".skparams";
  std::error_code ec;
  SKIFF_CHECK(fs::is_regular_file(dir / params, ec), dir.string(), ": the program ", file,
              " has no ", params, " beside it (jit.save writes both)");
  return {ModelArtifact::Kind::kProgram, (dir / file).string(), (dir / params).string()};
}

// A library's parameters: "" when it embeds them (no .skparams beside it), else the file
// named for it (libmodel.so: model.skparams or libmodel.skparams) or the only one there.
ModelArtifact library_artifact(const fs::path& dir, const std::string& file) {
  const std::vector<std::string> params = entries(
      dir, [](const auto& e) { return is_file(e) && ends_with(e.path().string(), ".skparams"); });
  std::string stem = fs::path(file).stem().string();
  std::string chosen;
  for (const std::string& p : params)
    if (p == stem + ".skparams" || (stem.rfind("lib", 0) == 0 && p == stem.substr(3) + ".skparams"))
      chosen = p;
  if (chosen.empty() && params.size() == 1) chosen = params[0];
  SKIFF_CHECK(!chosen.empty() || params.empty(), dir.string(), ": holds ", params.size(),
              " parameter files (", join(params), ") and none is named for the library ", file,
              "; keep the one it reads");
  return {ModelArtifact::Kind::kLibrary, (dir / file).string(),
          chosen.empty() ? "" : (dir / chosen).string()};
}

// The model's versions (numbers and folders only) and its config, if it has one.
void read_model(RepositoryModel& m) {
  std::error_code ec;
  SKIFF_CHECK(fs::is_directory(m.dir, ec), m.dir, ": no such model folder");
  for (const std::string& name : entries(m.dir, is_folder))
    if (const auto v = version_of(name))
      m.versions.push_back({*v, (fs::path(m.dir) / name).string(), std::nullopt, ""});
  std::sort(m.versions.begin(), m.versions.end(),
            [](const ModelVersion& a, const ModelVersion& b) { return a.version < b.version; });
  if (fs::exists(fs::path(m.dir) / "config.pbtxt", ec)) m.config = read_model_config(m.dir);
  SKIFF_CHECK(!m.versions.empty(), m.dir, ": has no version folders (each version of a model ",
              "is a numeric folder, such as ", m.name, "/1)");
  const std::string default_file = m.config ? m.config->default_model_filename : "";
  for (ModelVersion& v : m.versions) {
    try {
      v.artifact = find_artifact(v.dir, default_file);
    } catch (const Error& e) {
      v.error = e.what();
    }
  }
  std::vector<int64_t> present;
  for (const ModelVersion& v : m.versions) present.push_back(v.version);
  try {
    m.available = select_versions(m.config ? m.config->version_policy : VersionPolicy(), present);
  } catch (const Error& e) {
    fail(m.dir, "/config.pbtxt: ", e.what());
  }
  std::string first_error;
  for (int64_t v : m.available) {
    const ModelVersion* version = m.find_version(v);
    if (version->error.empty()) return;
    if (first_error.empty()) first_error = version->error;
  }
  fail(m.available.size() == 1 ? "the version the policy serves is broken: "
                               : "every version the policy serves is broken, the first: ",
       first_error);
}

}  // namespace

const ModelVersion* RepositoryModel::find_version(int64_t version) const {
  for (const ModelVersion& v : versions)
    if (v.version == version) return &v;
  return nullptr;
}

Repository scan_repository(const std::string& dir) {
  std::error_code ec;
  SKIFF_CHECK(fs::is_directory(dir, ec), dir, ": is not a folder (the model repository)");
  Repository repo;
  repo.dir = dir;
  fs::directory_iterator probe(dir, ec);
  SKIFF_CHECK(!ec, dir, ": cannot be listed: ", ec.message());
  const auto is_model = [](const fs::directory_entry& e) {
    return is_folder(e) && e.path().filename().string()[0] != '.';
  };
  for (const std::string& name : entries(dir, is_model))
    repo.models.push_back(scan_model(dir, name));
  return repo;
}

RepositoryModel scan_model(const std::string& dir, const std::string& name) {
  RepositoryModel m;
  m.name = name;
  m.dir = (fs::path(dir) / name).string();
  m.fingerprint = model_fingerprint(m.dir);
  try {
    read_model(m);
  } catch (const Error& e) {
    m.error = e.what();
    m.available.clear();
  }
  return m;
}

std::vector<int64_t> select_versions(const VersionPolicy& policy,
                                     const std::vector<int64_t>& present) {
  std::vector<int64_t> sorted = present;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  switch (policy.kind) {
    case VersionPolicy::Kind::kAll:
      return sorted;
    case VersionPolicy::Kind::kLatest: {
      const size_t n = std::min(sorted.size(), static_cast<size_t>(policy.num_versions));
      return std::vector<int64_t>(sorted.end() - n, sorted.end());
    }
    case VersionPolicy::Kind::kSpecific:
      for (int64_t v : policy.versions)
        SKIFF_CHECK(std::binary_search(sorted.begin(), sorted.end(), v),
                    "version_policy.specific names version ", v,
                    ", which has no folder (versions present: ", join(sorted), ")");
      return policy.versions;
  }
  fail("unknown version policy");
}

ModelArtifact find_artifact(const std::string& version_dir,
                            const std::string& default_model_filename) {
  const fs::path dir(version_dir);
  if (!default_model_filename.empty()) {
    std::error_code ec;
    SKIFF_CHECK(fs::is_regular_file(dir / default_model_filename, ec), version_dir, ": has no ",
                default_model_filename, " (the config's default_model_filename)");
    return ends_with(default_model_filename, ".skmodel")
               ? program_artifact(dir, default_model_filename)
               : library_artifact(dir, default_model_filename);
  }
  const auto with = [&](const char* suffix) {
    return entries(
        dir, [&](const auto& e) { return is_file(e) && ends_with(e.path().string(), suffix); });
  };
  const std::vector<std::string> programs = with(".skmodel");
  const std::vector<std::string> libraries = with(".so");
  SKIFF_CHECK(!programs.empty() || !libraries.empty(), version_dir,
              ": holds no model (a program NAME.skmodel with NAME.skparams from jit.save, or a "
              "library .so from skiff compile --lib)");
  SKIFF_CHECK(programs.empty() || libraries.empty(), version_dir, ": holds both a program (",
              join(programs), ") and a library (", join(libraries),
              "); keep one or name it in the config's default_model_filename");
  const std::vector<std::string>& found = programs.empty() ? libraries : programs;
  SKIFF_CHECK(found.size() == 1, version_dir, ": holds ", found.size(),
              programs.empty() ? " libraries (" : " programs (", join(found),
              "); keep one or name it in the config's default_model_filename");
  return programs.empty() ? library_artifact(dir, found[0]) : program_artifact(dir, found[0]);
}

uint64_t model_fingerprint(const std::string& model_dir) {
  std::error_code ec;
  if (!fs::is_directory(model_dir, ec)) return 0;
  // Each entry as "relative path, size, mtime"; sorted, since listing order may vary.
  std::vector<std::string> lines;
  const auto options = fs::directory_options::follow_directory_symlink |
                       fs::directory_options::skip_permission_denied;
  for (fs::recursive_directory_iterator it(model_dir, options, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (it.depth() >= kMaxFingerprintDepth) it.disable_recursion_pending();
    std::error_code e;
    std::string line = it->path().lexically_relative(model_dir).string();
    if (it->is_regular_file(e)) {
      const uintmax_t size = it->file_size(e);
      const auto mtime = it->last_write_time(e).time_since_epoch().count();
      line += str_cat('\0', size, '\0', static_cast<int64_t>(mtime));
    }
    lines.push_back(std::move(line));
  }
  std::sort(lines.begin(), lines.end());
  uint64_t hash = 14695981039346656037ull;  // 64-bit FNV-1a
  for (const std::string& line : lines)
    for (const char c : line + '\n')
      hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return hash == 0 ? 1 : hash;
}

}  // namespace skiff::serve
