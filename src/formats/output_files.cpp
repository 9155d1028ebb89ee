// SPDX-License-Identifier: MIT OR Apache-2.0
// Output files checked and written together (see output_files.hpp).
#include "formats/output_files.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <optional>
#include <utility>

#include "base/posix_io.hpp"

namespace cuzk::formats {
namespace {

// How a path is compared with another: resolved, and by inode when the file exists.
struct identity {
  std::string resolved;
  std::optional<std::pair<dev_t, ino_t>> inode;
  bool same(const identity& o) const {
    return resolved == o.resolved || (inode && o.inode && *inode == *o.inode);
  }
};

identity identify(const std::string& path) {
  identity id;
  std::error_code ec;
  const auto r = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
  id.resolved = ec ? path : r.string();
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) id.inode = std::make_pair(st.st_dev, st.st_ino);
  return id;
}

const char* kind_of(mode_t m) {
  if (S_ISLNK(m)) return "a symbolic link";
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

}  // namespace

result<output_files> output_files::prepare(const std::vector<named_path>& outputs,
                                           const std::vector<named_path>& inputs) {
  std::vector<identity> out_ids;
  for (const auto& o : outputs) {
    if (o.path.empty())
      return status(errc::invalid_argument, o.role + ": expected a file path, found an empty one");
    struct stat st {};
    if (::lstat(o.path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
      return status(errc::invalid_argument,
                    o.path + ": " + o.role + " is " + kind_of(st.st_mode) +
                        "; expected a regular file or a new path (it is not replaced)");
    identity id = identify(o.path);
    for (std::size_t k = 0; k < out_ids.size(); ++k)
      if (id.same(out_ids[k]))
        return status(errc::invalid_argument, o.path + ": given as both " + outputs[k].role + " and " +
                                                  o.role + "; expected two different files");
    for (const auto& in : inputs)
      if (id.same(identify(in.path)))
        return status(errc::invalid_argument, o.path + ": " + o.role + " is the same file as " + in.role +
                                                  " " + in.path + "; expected another path");
    out_ids.push_back(std::move(id));
  }
  output_files f;
  for (const auto& o : outputs) {
    const std::filesystem::path p(o.path);
    const std::string dir = p.has_parent_path() ? p.parent_path().string() : std::string(".");
    std::string tmp = dir + "/." + p.filename().string() + ".cuzk-XXXXXX";
    const int fd = ::mkstemp(tmp.data());
    if (fd < 0)
      return sys_error(o.path, ("cannot write " + o.role + ": no file can be created in its folder").c_str());
    ::close(fd);
    f.dest_.push_back(o.path);
    f.tmp_.push_back(std::move(tmp));
  }
  return f;
}

output_files::output_files(output_files&& o) noexcept : dest_(std::move(o.dest_)), tmp_(std::move(o.tmp_)) {
  o.dest_.clear();
  o.tmp_.clear();
}

output_files::~output_files() {
  for (const auto& t : tmp_)
    if (!t.empty()) ::unlink(t.c_str());
}

status output_files::commit() {
  for (std::size_t i = 0; i < tmp_.size(); ++i) {
    if (::rename(tmp_[i].c_str(), dest_[i].c_str()) != 0)
      return sys_error(dest_[i], "cannot rename the finished temporary file over it");
    tmp_[i].clear();
  }
  return status::ok();
}

}  // namespace cuzk::formats
