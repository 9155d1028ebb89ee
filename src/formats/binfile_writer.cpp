// SPDX-License-Identifier: MIT OR Apache-2.0
// The iden3 container writer; see binfile_writer.hpp.
#include "formats/binfile_writer.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace cuzk::formats {

result<binfile_writer> binfile_writer::create(const std::string& path, std::string_view magic,
                                              uint32_t version) {
  if (magic.size() != 4)
    return status(errc::invalid_argument,
                  path + ": a binfile magic has 4 bytes, got '" + std::string(magic) + "'");
  binfile_writer w;
  w.path_ = path;
  w.tmp_ = path + ".tmp.XXXXXX";
  const int fd = ::mkstemp(w.tmp_.data());
  if (fd < 0) return status(errc::io_error, w.tmp_ + ": cannot create: " + std::strerror(errno));
  if (::fchmod(fd, 0644) != 0 || (w.f_ = ::fdopen(fd, "wb")) == nullptr) {
    const status s(errc::io_error, w.tmp_ + ": cannot open for writing: " + std::strerror(errno));
    ::close(fd);
    ::unlink(w.tmp_.c_str());
    w.tmp_.clear();
    return s;
  }
  CUZK_TRY(w.write({reinterpret_cast<const uint8_t*>(magic.data()), 4}));
  CUZK_TRY(w.write_u32(version));
  CUZK_TRY(w.write_u32(0));  // section count, patched by commit()
  return w;
}

binfile_writer::binfile_writer(binfile_writer&& o) noexcept
    : path_(std::move(o.path_)),
      tmp_(std::exchange(o.tmp_, {})),
      f_(std::exchange(o.f_, nullptr)),
      n_sections_(o.n_sections_),
      section_header_at_(o.section_header_at_),
      committed_(o.committed_) {}

binfile_writer::~binfile_writer() {
  if (f_ != nullptr) std::fclose(f_);
  if (!committed_ && !tmp_.empty()) ::unlink(tmp_.c_str());
}

status binfile_writer::io_failure(const char* what) {
  return {errc::io_error, tmp_ + " (for " + path_ + "): " + what + ": " + std::strerror(errno)};
}

status binfile_writer::write(std::span<const uint8_t> bytes) {
  if (f_ == nullptr) return {errc::invalid_argument, path_ + ": write after commit"};
  if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), f_) != bytes.size())
    return io_failure("write failed");
  return status::ok();
}

status binfile_writer::write_u32(uint32_t v) {
  uint8_t b[4];
  std::memcpy(b, &v, 4);  // little-endian host
  return write(b);
}

status binfile_writer::begin_section(uint32_t type) {
  if (section_header_at_ >= 0)
    return {errc::invalid_argument, path_ + ": begin_section inside an open section"};
  section_header_at_ = std::ftell(f_);
  if (section_header_at_ < 0) return io_failure("ftell failed");
  CUZK_TRY(write_u32(type));
  const uint64_t zero = 0;
  return write({reinterpret_cast<const uint8_t*>(&zero), 8});
}

status binfile_writer::end_section() {
  if (section_header_at_ < 0) return {errc::invalid_argument, path_ + ": end_section without begin_section"};
  const long end = std::ftell(f_);
  if (end < 0) return io_failure("ftell failed");
  const uint64_t size = static_cast<uint64_t>(end - section_header_at_ - 12);
  if (std::fseek(f_, section_header_at_ + 4, SEEK_SET) != 0) return io_failure("seek failed");
  CUZK_TRY(write({reinterpret_cast<const uint8_t*>(&size), 8}));
  if (std::fseek(f_, end, SEEK_SET) != 0) return io_failure("seek failed");
  section_header_at_ = -1;
  ++n_sections_;
  return status::ok();
}

status binfile_writer::write_section(uint32_t type, std::span<const uint8_t> payload) {
  CUZK_TRY(begin_section(type));
  CUZK_TRY(write(payload));
  return end_section();
}

status binfile_writer::commit() {
  if (section_header_at_ >= 0) return {errc::invalid_argument, path_ + ": commit with a section still open"};
  if (f_ == nullptr) return {errc::invalid_argument, path_ + ": committed twice"};
  if (std::fseek(f_, 8, SEEK_SET) != 0) return io_failure("seek failed");
  CUZK_TRY(write_u32(n_sections_));
  if (std::fflush(f_) != 0 || ::fsync(::fileno(f_)) != 0) return io_failure("flush failed");
  const int rc = std::fclose(std::exchange(f_, nullptr));
  if (rc != 0) return io_failure("close failed");
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) return io_failure("cannot rename over the destination");
  committed_ = true;
  return status::ok();
}

}  // namespace cuzk::formats
