#include "skiff/ir/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "skiff/core/error.h"

namespace skiff {

namespace {

std::string errno_text() { return std::strerror(errno); }

// Closes a descriptor when it goes out of scope.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  // Closes now, reporting failure (a failed close can mean lost data).
  bool close() {
    int fd = fd_;
    fd_ = -1;
    return ::close(fd) == 0;
  }

 private:
  int fd_;
};

std::string parent_folder(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// A name no other writer of this process or another one uses at the same moment.
std::string temp_name_for(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  return str_cat(path, ".tmp-", ::getpid(), "-", counter++);
}

void write_all(int fd, const std::string& bytes, const std::string& temp) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("cannot write '", temp, "': ", errno_text());
    done += static_cast<size_t>(n);
  }
}

}  // namespace

std::string read_file(const std::string& path) {
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) fail("cannot open '", path, "': ", errno_text());
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) fail("cannot read '", path, "': ", errno_text());
  if (S_ISDIR(st.st_mode)) fail("cannot read '", path, "': it is a directory");
  std::string out;
  if (S_ISREG(st.st_mode)) out.reserve(static_cast<size_t>(st.st_size));
  char buffer[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("cannot read '", path, "': ", errno_text());
    if (n == 0) break;
    out.append(buffer, static_cast<size_t>(n));
  }
  return out;
}

void write_file_atomically(const std::string& path, const std::string& bytes) {
  SKIFF_CHECK(!path.empty(), "cannot write a file with an empty path");
  const std::string temp = temp_name_for(path);
  int raw = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (raw < 0) fail("cannot create '", temp, "' (to write '", path, "'): ", errno_text());
  FileDescriptor fd(raw);
  try {
    write_all(fd.get(), bytes, temp);
    if (::fsync(fd.get()) != 0) fail("cannot flush '", temp, "' to disk: ", errno_text());
    if (!fd.close()) fail("cannot close '", temp, "': ", errno_text());
    if (::rename(temp.c_str(), path.c_str()) != 0) {
      fail("cannot rename '", temp, "' to '", path, "': ", errno_text());
    }
  } catch (...) {
    ::unlink(temp.c_str());
    throw;
  }
  // Make the rename itself durable; a folder that cannot be opened (unusual
  // permissions) leaves the data written but the rename possibly unflushed.
  FileDescriptor folder(::open(parent_folder(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (folder.get() >= 0) ::fsync(folder.get());
}

}  // namespace skiff
