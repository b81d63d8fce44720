#include "skiff/serve/repository.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tests/testing/error_of.h"

namespace skiff::serve {
namespace {

namespace fs = std::filesystem;
using skiff::testing::error_of;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A model repository in a fresh temp folder, removed at the end of the test. The scanner
// reads no file's contents, so the model files hold any bytes.
class RepositoryTest : public ::testing::Test {
 protected:
  RepositoryTest() {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ = fs::temp_directory_path() /
            ("skiff_repository_" + std::string(test->name()) + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  ~RepositoryTest() override { fs::remove_all(root_); }

  std::string path(const std::string& relative) const { return (root_ / relative).string(); }
  void write(const std::string& relative, const std::string& text = "bytes") const {
    fs::create_directories((root_ / relative).parent_path());
    std::ofstream(root_ / relative) << text;
  }
  // A program as jit.save writes it: NAME.skmodel and NAME.skparams.
  void program(const std::string& version_dir, const std::string& name = "model") const {
    write(version_dir + "/" + name + ".skmodel");
    write(version_dir + "/" + name + ".skparams");
  }
  Repository scan() const { return scan_repository(root_.string()); }
  RepositoryModel model(const std::string& name) const { return scan_model(root_.string(), name); }

  fs::path root_;
};

TEST_F(RepositoryTest, ListsModelsVersionsAndTheirFiles) {
  write("mnist/config.pbtxt", "name: \"mnist\" platform: \"onnxruntime_onnx\"");
  for (const char* v : {"mnist/1", "mnist/2", "mnist/10"}) program(v);
  write("mnist/labels.txt");
  fs::create_directories(path("mnist/notes"));  // not a version: skipped, as are "01" and "x1"
  program("mnist/01");
  program("mnist/x1");
  write("compiled/3/libmodel.so");  // skiff compile --lib --params file
  write("compiled/3/model.skparams");
  write("compiled/3/model.h");
  write("embedded/1/libmodel.so");  // the parameters inside the library
  write("README.md");               // not a folder: not a model
  program(".trash/1");              // hidden: not a model

  const Repository repo = scan();
  ASSERT_EQ(repo.models.size(), 3u);
  const RepositoryModel& compiled = repo.models[0];
  const RepositoryModel& embedded = repo.models[1];
  const RepositoryModel& mnist = repo.models[2];
  EXPECT_EQ(compiled.name, "compiled");
  EXPECT_EQ(mnist.name, "mnist");
  EXPECT_EQ(mnist.dir, path("mnist"));

  EXPECT_EQ(mnist.error, "");
  ASSERT_TRUE(mnist.config.has_value());
  ASSERT_EQ(mnist.versions.size(), 3u);
  EXPECT_EQ(mnist.versions[0].version, 1);
  EXPECT_EQ(mnist.versions[2].version, 10);       // numeric order, not the names' order
  EXPECT_THAT(mnist.available, ElementsAre(10));  // Triton's default: the latest one
  const ModelVersion* v10 = mnist.find_version(10);
  ASSERT_NE(v10, nullptr);
  EXPECT_EQ(v10->dir, path("mnist/10"));
  ASSERT_TRUE(v10->artifact.has_value());
  EXPECT_EQ(v10->artifact->kind, ModelArtifact::Kind::kProgram);
  EXPECT_EQ(v10->artifact->model_path, path("mnist/10/model.skmodel"));
  EXPECT_EQ(v10->artifact->params_path, path("mnist/10/model.skparams"));
  EXPECT_EQ(mnist.find_version(4), nullptr);

  EXPECT_EQ(compiled.error, "");
  EXPECT_FALSE(compiled.config.has_value());
  EXPECT_THAT(compiled.available, ElementsAre(3));
  const ModelArtifact& lib = *compiled.versions[0].artifact;
  EXPECT_EQ(lib.kind, ModelArtifact::Kind::kLibrary);
  EXPECT_EQ(lib.model_path, path("compiled/3/libmodel.so"));
  EXPECT_EQ(lib.params_path, path("compiled/3/model.skparams"));
  EXPECT_EQ(embedded.versions[0].artifact->params_path, "");
}

TEST_F(RepositoryTest, VersionPolicies) {
  for (const char* v : {"m/1", "m/2", "m/3"}) program(v);
  write("m/config.pbtxt", "version_policy { all {} }");
  EXPECT_THAT(model("m").available, ElementsAre(1, 2, 3));
  write("m/config.pbtxt", "version_policy { latest { num_versions: 2 } }");
  EXPECT_THAT(model("m").available, ElementsAre(2, 3));
  write("m/config.pbtxt", "version_policy { latest { num_versions: 5 } }");
  EXPECT_THAT(model("m").available, ElementsAre(1, 2, 3));
  write("m/config.pbtxt", "version_policy { specific { versions: [3, 1] } }");
  EXPECT_THAT(model("m").available, ElementsAre(1, 3));
  write("m/config.pbtxt", "version_policy { specific { versions: [2, 7] } }");
  const RepositoryModel m = model("m");
  EXPECT_EQ(m.error, path("m") +
                         "/config.pbtxt: version_policy.specific names version 7, which has no "
                         "folder (versions present: 1, 2, 3)");
  EXPECT_TRUE(m.available.empty());
  EXPECT_EQ(m.versions.size(), 3u);  // still listed for the repository index
}

TEST_F(RepositoryTest, SelectVersions) {
  VersionPolicy latest;
  EXPECT_THAT(select_versions(latest, {4, 2, 9}), ElementsAre(9));
  EXPECT_TRUE(select_versions(latest, {}).empty());
  VersionPolicy specific;
  specific.kind = VersionPolicy::Kind::kSpecific;
  specific.versions = {2};
  EXPECT_THAT(select_versions(specific, {1, 2}), ElementsAre(2));
  EXPECT_THAT(error_of([&] { select_versions(specific, {1}); }),
              HasSubstr("names version 2, which has no folder (versions present: 1)"));
}

TEST_F(RepositoryTest, ABrokenModelDoesNotStopTheOthers) {
  program("good/1");
  program("bad_config/1");
  write("bad_config/config.pbtxt", "max_batch_size: 4\ninput { name: \"x\" dims: 1 }");
  write("no_versions/config.pbtxt", "");
  fs::create_directories(path("no_versions/latest"));
  fs::create_directories(path("empty_version/1"));
  const Repository repo = scan();
  ASSERT_EQ(repo.models.size(), 4u);
  EXPECT_EQ(repo.models[0].name, "bad_config");
  EXPECT_EQ(repo.models[0].error,
            path("bad_config/config.pbtxt") + ":2: input[\"x\"].data_type: no data_type given");
  EXPECT_FALSE(repo.models[0].config.has_value());
  EXPECT_EQ(repo.models[0].versions.size(), 1u);
  EXPECT_THAT(repo.models[1].error,
              HasSubstr(path("empty_version/1") + ": holds no model (a program NAME.skmodel"));
  EXPECT_EQ(repo.models[2].error, "");
  EXPECT_THAT(repo.models[2].available, ElementsAre(1));
  EXPECT_EQ(repo.models[3].error, path("no_versions") +
                                      ": has no version folders (each version of a model is a "
                                      "numeric folder, such as no_versions/1)");
}

TEST_F(RepositoryTest, ABrokenVersionOutsideThePolicyOrBesideAGoodOne) {
  program("m/1");
  fs::create_directories(path("m/2"));
  write("m/config.pbtxt", "version_policy { all {} }");
  RepositoryModel m = model("m");
  EXPECT_EQ(m.error, "");  // version 1 serves; version 2 says why it cannot
  EXPECT_THAT(m.available, ElementsAre(1, 2));
  EXPECT_THAT(m.find_version(2)->error, HasSubstr(path("m/2") + ": holds no model"));
  EXPECT_FALSE(m.find_version(2)->artifact.has_value());
  write("m/config.pbtxt", "");  // latest: 2, the broken one
  m = model("m");
  EXPECT_THAT(m.error, HasSubstr("the version the policy serves is broken: " + path("m/2")));
  EXPECT_TRUE(m.available.empty());
}

TEST_F(RepositoryTest, VersionFolderErrors) {
  write("m/1/model.skmodel");
  EXPECT_EQ(error_of([&] { find_artifact(path("m/1"), ""); }),
            path("m/1") +
                ": the program model.skmodel has no model.skparams beside it (jit.save writes "
                "both)");
  program("m/2", "a");
  program("m/2", "b");
  EXPECT_EQ(error_of([&] { find_artifact(path("m/2"), ""); }),
            path("m/2") +
                ": holds 2 programs (a.skmodel, b.skmodel); keep one or name it in the config's "
                "default_model_filename");
  EXPECT_EQ(find_artifact(path("m/2"), "b.skmodel").model_path, path("m/2/b.skmodel"));
  EXPECT_THAT(error_of([&] { find_artifact(path("m/2"), "c.skmodel"); }),
              HasSubstr(path("m/2") + ": has no c.skmodel (the config's default_model_filename)"));
  program("m/3");
  write("m/3/libmodel.so");
  EXPECT_THAT(error_of([&] { find_artifact(path("m/3"), ""); }),
              HasSubstr(": holds both a program (model.skmodel) and a library (libmodel.so)"));
  EXPECT_EQ(find_artifact(path("m/3"), "libmodel.so").kind, ModelArtifact::Kind::kLibrary);
  write("m/4/a.so");
  write("m/4/b.so");
  EXPECT_THAT(error_of([&] { find_artifact(path("m/4"), ""); }),
              HasSubstr(": holds 2 libraries (a.so, b.so)"));
}

TEST_F(RepositoryTest, TheParametersOfALibrary) {
  write("m/1/fast.so");
  write("m/1/fast.skparams");
  write("m/1/other.skparams");
  EXPECT_EQ(find_artifact(path("m/1"), "").params_path, path("m/1/fast.skparams"));
  fs::remove(path("m/1/fast.skparams"));
  write("m/1/third.skparams");
  EXPECT_EQ(error_of([&] { find_artifact(path("m/1"), ""); }),
            path("m/1") +
                ": holds 2 parameter files (other.skparams, third.skparams) and none is named "
                "for the library fast.so; keep the one it reads");
  fs::remove(path("m/1/third.skparams"));
  EXPECT_EQ(find_artifact(path("m/1"), "").params_path, path("m/1/other.skparams"));
}

TEST_F(RepositoryTest, DefaultModelFilenameFromTheConfig) {
  program("m/1", "fp32");
  program("m/1", "int8");
  write("m/config.pbtxt", "default_model_filename: \"int8.skmodel\"");
  const RepositoryModel m = model("m");
  EXPECT_EQ(m.error, "");
  EXPECT_EQ(m.versions[0].artifact->model_path, path("m/1/int8.skmodel"));
  EXPECT_EQ(m.versions[0].artifact->params_path, path("m/1/int8.skparams"));
}

TEST_F(RepositoryTest, MissingFolders) {
  EXPECT_EQ(model("absent").error, path("absent") + ": no such model folder");
  EXPECT_EQ(model("absent").fingerprint, 0u);
  EXPECT_THAT(error_of([&] { scan_repository(path("nowhere")); }),
              HasSubstr(path("nowhere") + ": is not a folder (the model repository)"));
  write("file");
  EXPECT_THAT(error_of([&] { scan_repository(path("file")); }), HasSubstr("is not a folder"));
  EXPECT_TRUE(scan().models.empty());
}

TEST_F(RepositoryTest, TheFingerprintChangesWithTheModelsFiles) {
  program("m/1");
  write("m/config.pbtxt", "max_batch_size: 2");
  program("other/1");
  const uint64_t first = model("m").fingerprint;
  EXPECT_NE(first, 0u);
  EXPECT_EQ(model("m").fingerprint, first);  // nothing changed
  EXPECT_NE(model("other").fingerprint, first);

  write("m/config.pbtxt", "max_batch_size: 4");  // same size, another time
  const auto later = fs::last_write_time(path("m/config.pbtxt")) + std::chrono::seconds(5);
  fs::last_write_time(path("m/config.pbtxt"), later);
  const uint64_t touched = model("m").fingerprint;
  EXPECT_NE(touched, first);

  write("m/1/model.skparams", "more bytes");  // another size
  const uint64_t rewritten = model("m").fingerprint;
  EXPECT_NE(rewritten, touched);
  program("m/2");  // a new version
  const uint64_t added = model("m").fingerprint;
  EXPECT_NE(added, rewritten);
  fs::remove_all(path("m/2"));
  EXPECT_EQ(model("m").fingerprint, rewritten);  // back as it was
  program("other/2");
  EXPECT_EQ(model("m").fingerprint, rewritten);  // another model's change is not this one's
  EXPECT_EQ(model_fingerprint(path("m")), rewritten);
}

}  // namespace
}  // namespace skiff::serve
