// Whole-file reads and crash-safe writes shared by skiff's file formats (.skmodel,
// .skparams, .npy). A write goes to a temporary file in the same folder, is fsynced,
// then renamed over the target, so a crash leaves either the old file or the new one.
//
//   write_file_atomically("model.skmodel", bytes);
//   std::string back = read_file("model.skmodel");
#pragma once

#include <string>

namespace skiff {

// The whole content of `path`; throws skiff::Error naming the file and the reason.
std::string read_file(const std::string& path);

// Replaces `path` with `bytes` atomically (temp file + fsync + rename + fsync of the
// folder). Throws skiff::Error naming the file; the temp file is removed on failure.
void write_file_atomically(const std::string& path, const std::string& bytes);

}  // namespace skiff
