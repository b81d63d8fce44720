#include "skiff/ps/checkpoint.h"

#include <cstdio>
#include <filesystem>
#include <system_error>

#include "skiff/core/error.h"
#include "skiff/ps/table_file.h"

namespace skiff::ps {
namespace {

namespace fs = std::filesystem;

constexpr char kStateMagic[8] = {'S', 'K', 'P', 'S', 'C', 'K', 'P', 'T'};
constexpr char kLatestMagic[8] = {'S', 'K', 'P', 'S', 'L', 'A', 'S', 'T'};
constexpr uint32_t kVersion = 1;
constexpr size_t kMaxState = size_t{1} << 30;

}  // namespace

CheckpointFolder::CheckpointFolder(std::string path) : path_(std::move(path)) {
  std::error_code error;
  fs::create_directories(path_, error);
  SKIFF_CHECK(!error && fs::is_directory(path_), "parameter server checkpoints: cannot create '",
              path_, "': ", error.message());
}

std::string CheckpointFolder::dir_of(int64_t number) const {
  char name[32];
  std::snprintf(name, sizeof name, "ckpt-%08lld", static_cast<long long>(number));
  return path_ + "/" + name;
}

bool CheckpointFolder::latest(proto::Checkpoint* state, std::string* dir) const {
  const std::string latest = path_ + "/LATEST";
  if (!fs::exists(latest)) return false;
  TableFileReader names(latest);
  names.expect_header(kLatestMagic, kVersion, "checkpoint name");
  const int64_t number = names.get_i64();
  names.finish();
  *dir = dir_of(number);
  TableFileReader file(*dir + "/checkpoint.pb");
  file.expect_header(kStateMagic, kVersion, "checkpoint state");
  const std::string bytes = file.get_string(kMaxState);
  file.finish();
  if (!state->ParseFromString(bytes) || state->number() != number) {
    file.corrupt("not the state of checkpoint " + std::to_string(number));
  }
  return true;
}

void CheckpointFolder::write(const proto::Checkpoint& state,
                             const std::function<void(const std::string& dir)>& save_tables) {
  const std::string dir = dir_of(state.number());
  std::error_code error;
  fs::remove_all(dir, error);  // a checkpoint left half written by a killed server
  fs::create_directories(dir, error);
  SKIFF_CHECK(!error, "parameter server checkpoint: cannot create '", dir, "': ", error.message());
  save_tables(dir);
  {
    TableFileWriter file(dir + "/checkpoint.pb");
    file.put_header(kStateMagic, kVersion);
    file.put_string(state.SerializeAsString());
    file.commit();
  }
  {
    TableFileWriter names(path_ + "/LATEST");
    names.put_header(kLatestMagic, kVersion);
    names.put_i64(state.number());
    names.commit();
  }
  // Only the newest checkpoint is kept.
  for (const auto& entry : fs::directory_iterator(path_, error)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("ckpt-", 0) == 0 && entry.path().string() != dir) {
      fs::remove_all(entry.path(), error);
    }
  }
}

}  // namespace skiff::ps
