// The model repository on disk, in Triton's layout: one folder per model, holding an
// optional config.pbtxt and one numeric folder per version with the model's files (a
// program saved by jit.save, NAME.skmodel + NAME.skparams, or a library from
// `skiff compile --lib`, libmodel.so and maybe model.skparams).
//
//   Repository repo = scan_repository("models");
//   for (const RepositoryModel& m : repo.models)
//     if (m.error.empty()) for (int64_t v : m.available) load(m, *m.find_version(v));
//     else report(m.name, m.error);                  // listed as UNAVAILABLE with a reason
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "skiff/serve/model_config.h"

namespace skiff::serve {

// What a version folder holds and where.
struct ModelArtifact {
  enum class Kind { kProgram, kLibrary };
  Kind kind = Kind::kProgram;
  std::string model_path;   // the .skmodel program or the .so library
  std::string params_path;  // the .skparams file; "" for a library with embedded parameters
};

struct ModelVersion {
  int64_t version = 0;
  std::string dir;
  std::optional<ModelArtifact> artifact;  // absent when `error` says why
  std::string error;
};

struct RepositoryModel {
  std::string name;
  std::string dir;
  std::optional<ModelConfig> config;   // absent: no config.pbtxt (or one that failed to read)
  std::vector<ModelVersion> versions;  // every numeric folder, lowest version first
  std::vector<int64_t> available;      // the versions the policy serves, lowest first
  // Why the model cannot be served at all: a bad config.pbtxt, no version folders, none the
  // policy selects, or every selected version broken. "" when it can be.
  std::string error;
  // Changes whenever a file of the model's folder is added, removed or rewritten.
  uint64_t fingerprint = 0;

  // The entry of `version`; nullptr when there is no such folder.
  const ModelVersion* find_version(int64_t version) const;
};

struct Repository {
  std::string dir;
  std::vector<RepositoryModel> models;  // sorted by name
};

// Every model folder of `dir` (hidden folders and plain files skipped). A model that fails
// to read carries its error and does not stop the others. Throws skiff::Error only when
// `dir` itself is not a readable folder.
Repository scan_repository(const std::string& dir);
// The model folder `dir / name` as scan_repository reads it; a missing folder is an error
// of the model, not an exception.
RepositoryModel scan_model(const std::string& dir, const std::string& name);

// The versions of `present` that `policy` serves, lowest first. Throws skiff::Error when
// a kSpecific policy names a version not present.
std::vector<int64_t> select_versions(const VersionPolicy& policy,
                                     const std::vector<int64_t>& present);

// The model file(s) of one version folder: the file `default_model_filename` names, else
// the only .skmodel (with the .skparams of the same stem) or the only .so (with the only
// .skparams beside it, if any). Throws skiff::Error naming the folder and what is wrong.
ModelArtifact find_artifact(const std::string& version_dir,
                            const std::string& default_model_filename);

// A hash of the paths, sizes and modification times of every file under `model_dir`;
// cheap (no file is read), and 0 when the folder does not exist.
uint64_t model_fingerprint(const std::string& model_dir);

}  // namespace skiff::serve
