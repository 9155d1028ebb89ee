// SPDX-License-Identifier: MIT OR Apache-2.0
// The WAL check (see sqlite_wal_check.hpp). Offsets and the checksum are those of the file format
// document cited there: a 32-byte header, then frames of a 24-byte header and one page each.
#include "engine/jobs/sqlite_wal_check.hpp"

#include <array>
#include <cstdint>
#include <fstream>
#include <vector>

namespace cuzk::engine {
namespace {

constexpr std::size_t wal_header_bytes = 32, frame_header_bytes = 24;

uint32_t be32(const uint8_t* p) {
  return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | uint32_t{p[3]};
}
uint32_t le32(const uint8_t* p) {
  return uint32_t{p[3]} << 24 | uint32_t{p[2]} << 16 | uint32_t{p[1]} << 8 | uint32_t{p[0]};
}

// The WAL checksum over `n` bytes (a multiple of 8), continuing from `s`; the words are big-endian
// when the magic's low bit is set.
void checksum(std::array<uint32_t, 2>& s, const uint8_t* p, std::size_t n, bool big) {
  for (std::size_t i = 0; i < n; i += 8) {
    const uint32_t x0 = big ? be32(p + i) : le32(p + i), x1 = big ? be32(p + i + 4) : le32(p + i + 4);
    s[0] += x0 + s[1];
    s[1] += x1 + s[0];
  }
}

}  // namespace

status check_sqlite_wal(const std::string& wal_path) {
  std::ifstream in(wal_path, std::ios::binary);
  if (!in) return status::ok();  // no log: nothing SQLite could drop
  std::array<uint8_t, wal_header_bytes> h{};
  in.read(reinterpret_cast<char*>(h.data()), h.size());
  const auto got = in.gcount();
  if (got == 0) return status::ok();
  auto damaged = [&](const std::string& why) {
    return status(errc::format_error, wal_path + ": damaged write-ahead log of the job database: " + why +
                                          "; SQLite would drop the jobs it holds. Nothing was changed; "
                                          "restore the file or move it and the database away");
  };
  if (got < static_cast<std::streamsize>(h.size()))
    return damaged("header: expected 32 bytes, found " + std::to_string(got));
  const uint32_t magic = be32(h.data());
  if (magic != 0x377f0682 && magic != 0x377f0683)
    return damaged("header magic: expected 0x377f0682 or 0x377f0683, found " + std::to_string(magic));
  const bool big = (magic & 1) != 0;
  const uint32_t page = be32(h.data() + 8);
  if (page < 512 || page > 65536 || (page & (page - 1)) != 0)
    return damaged("page size: expected a power of two in 512..65536, found " + std::to_string(page));
  std::array<uint32_t, 2> s{0, 0};
  checksum(s, h.data(), 24, big);
  if (s[0] != be32(h.data() + 24) || s[1] != be32(h.data() + 28))
    return damaged("header checksum does not match");
  const uint32_t salt1 = be32(h.data() + 16), salt2 = be32(h.data() + 20);

  std::vector<uint8_t> f(frame_header_bytes + page);
  std::array<uint32_t, 2> prev_stored = s;  // the stored checksum of the frame before
  long first_bad = -1;
  for (long i = 0;; ++i) {
    in.read(reinterpret_cast<char*>(f.data()), static_cast<std::streamsize>(f.size()));
    if (in.gcount() != static_cast<std::streamsize>(f.size())) break;  // end (or a torn last frame)
    const bool ours = be32(f.data() + 8) == salt1 && be32(f.data() + 12) == salt2;
    const std::array<uint32_t, 2> stored{be32(f.data() + 16), be32(f.data() + 20)};
    // Each frame's checksum continues the one stored in the frame before it, so a frame after a
    // damaged one can still be checked on its own.
    std::array<uint32_t, 2> c = prev_stored;
    checksum(c, f.data(), 8, big);
    checksum(c, f.data() + frame_header_bytes, page, big);
    const bool valid = ours && c == stored;
    const bool commit = be32(f.data() + 4) != 0;
    if (first_bad < 0) {
      if (!ours) break;  // frames from before a restart of the log: its end
      if (!valid) first_bad = i;
    } else if (valid && commit) {
      return damaged("frame " + std::to_string(first_bad) + " fails its checksum, and committed frame " +
                     std::to_string(i) + " follows it");
    }
    prev_stored = stored;
  }
  return status::ok();
}

}  // namespace cuzk::engine
