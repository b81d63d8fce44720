// A server's checkpoints: each one a folder `ckpt-<number>` holding every table's file
// and the server's state (checkpoint.pb: configuration, tables, per-trainer progress),
// named by the file LATEST once complete, so a server killed while writing one restarts
// from the one before. Older folders are removed once a newer one is named.
//
//   CheckpointFolder folder("ckpts/shard0-of-2");
//   folder.write(state, [&](const std::string& dir) { table.save(dir + "/emb"); });
//   proto::Checkpoint last;
//   std::string dir;
//   if (folder.latest(&last, &dir)) table.load(dir + "/emb");
#pragma once

#include <functional>
#include <string>

#include "ps.pb.h"

namespace skiff::ps {

class CheckpointFolder {
 public:
  // Creates `path` (and its parents) if needed; errors name it.
  explicit CheckpointFolder(std::string path);

  const std::string& path() const { return path_; }
  // The last complete checkpoint's state and folder; false when there is none.
  bool latest(proto::Checkpoint* state, std::string* dir) const;
  // Writes checkpoint state.number(): `save_tables(dir)` writes the tables' files into
  // its folder, then the state is written and the checkpoint named in LATEST.
  void write(const proto::Checkpoint& state,
             const std::function<void(const std::string& dir)>& save_tables);

 private:
  std::string dir_of(int64_t number) const;

  std::string path_;
};

}  // namespace skiff::ps
