// SPDX-License-Identifier: MIT OR Apache-2.0
// A witness graph's file and its evaluation; see witness_graph.hpp.
#include "witness/witness_graph.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <span>
#include <unordered_map>

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "base/bulk_array.hpp"
#include "base/posix_io.hpp"
#include "formats/file_io.hpp"
#include "witness/circom_element.hpp"

namespace cuzk::witness {

namespace {

constexpr char magic[8] = {'C', 'U', 'Z', 'K', 'W', 'G', 'R', '\0'};
constexpr uint32_t format = 1;

// The fixed header; the XXH3-64 covers every byte after it.
struct file_header {
  char magic[8];
  uint32_t format;
  uint32_t n32;
  uint32_t witness_size;
  uint32_t input_values;
  uint32_t inputs;
  uint32_t constants;
  uint32_t slots;
  uint32_t unused;
  uint64_t program;
  uint64_t field_calls;
  uint64_t digest;
};
static_assert(sizeof(file_header) == 64);
static_assert(sizeof(graph_instr) == 16);
static_assert(sizeof(graph_input) == 16);

// An array's bytes as they lie in memory, which is how the file holds them.
template <class T>
std::string_view bytes_of(std::span<const T> v) {
  return {reinterpret_cast<const char*>(v.data()), v.size_bytes()};
}
template <class T>
std::string_view bytes_of(const std::vector<T>& v) {
  return bytes_of(std::span<const T>(v));
}


template <class F>
F from_words(const uint32_t* w) {
  typename F::repr r;
  for (std::size_t i = 0; i < F::N; ++i) r.limb[i] = uint64_t{w[2 * i]} | (uint64_t{w[2 * i + 1]} << 32);
  return F::from_canonical_unchecked(r);
}

template <class F>
void to_words(const F& v, uint32_t* w) {
  const typename F::repr r = v.to_canonical();
  for (std::size_t i = 0; i < F::N; ++i) {
    w[2 * i] = static_cast<uint32_t>(r.limb[i]);
    w[2 * i + 1] = static_cast<uint32_t>(r.limb[i] >> 32);
  }
}

// The input values in the order of the recorded run, or nullopt where `inputs` are not its names
// and sizes, each once.
template <class F>
std::optional<std::vector<F>> input_values(const witness_graph& g, std::span<const input_signal> inputs) {
  std::unordered_map<uint64_t, const input_signal*> by_hash;
  for (const input_signal& s : inputs)
    if (!by_hash.emplace(s.name_hash, &s).second) return std::nullopt;
  if (by_hash.size() != g.inputs.size()) return std::nullopt;
  std::vector<F> values(g.input_values);
  const uint32_t n32 = g.n32();
  for (const graph_input& in : g.inputs) {
    const auto it = by_hash.find(in.name_hash);
    if (it == by_hash.end() || it->second->count != in.count) return std::nullopt;
    for (uint32_t i = 0; i < in.count; ++i) values[in.first + i] = from_words<F>(it->second->words.data() + std::size_t{i} * n32);
  }
  return values;
}

template <class F>
result<bool> evaluate_in(const witness_graph& g, std::span<const input_signal> inputs, const field_caller& call,
                         const int* stopped, std::span<uint32_t> wires) {
  auto in = input_values<F>(g, inputs);
  if (!in) return false;
  const uint32_t n32 = g.n32();
  std::vector<F> s(g.slots);
  const std::size_t constants = g.constants.size() / n32;
  for (std::size_t c = 0; c < constants; ++c) s[c] = from_words<F>(g.constants.data() + c * n32);
  if (wires.size() != std::size_t{g.witness_size} * n32) return status(errc::internal, "a witness buffer of another size than the graph's");
  std::vector<uint32_t> a(n32), b(n32), r(n32);
  std::size_t done = 0;
  for (const graph_instr& i : g.instructions()) {
    if ((++done & 0x3fff) == 0 && stopped && __atomic_load_n(stopped, __ATOMIC_RELAXED))
      return status(errc::cancelled, "the witness calculation was stopped");
    switch (i.op) {
      case graph_op::input: s[i.dst] = (*in)[i.a]; break;
      case graph_op::add: s[i.dst] = s[i.a] + s[i.b]; break;
      case graph_op::sub: s[i.dst] = s[i.a] - s[i.b]; break;
      case graph_op::mul: s[i.dst] = s[i.a] * s[i.b]; break;
      case graph_op::neg: s[i.dst] = -s[i.a]; break;
      case graph_op::field_call:
        to_words(s[i.a], a.data());
        to_words(s[i.b], b.data());
        if (!call || !call(i.fn, a, b, r)) return false;
        s[i.dst] = from_words<F>(r.data());
        break;
      case graph_op::guard_nonzero:
        if (s[i.a].is_zero()) return false;
        break;
      case graph_op::guard_zero:
        if (!s[i.a].is_zero()) return false;
        break;
      case graph_op::guard_equal:
        if (!(s[i.a] == s[i.b])) return false;
        break;
      case graph_op::output: to_words(s[i.a], wires.data() + std::size_t{i.b} * n32); break;
    }
  }
  return true;
}

}  // namespace

status witness_graph::check() const {
  const uint32_t n = n32();
  if (n == 0 || constants.size() % n != 0) return {errc::format_error, "its field or constants are malformed"};
  if (constants.size() / n > slots) return {errc::format_error, "more constants than slots"};
  uint64_t values = 0;
  for (const graph_input& in : inputs) {
    if (in.first != values || in.count == 0) return {errc::format_error, "its inputs are not contiguous"};
    values += in.count;
  }
  if (values != input_values) return {errc::format_error, "its input count does not match its inputs"};
  std::vector<uint8_t> wired(witness_size, 0);
  for (const graph_instr& i : instructions()) {
    const bool two = i.op == graph_op::add || i.op == graph_op::sub || i.op == graph_op::mul ||
                     i.op == graph_op::field_call || i.op == graph_op::guard_equal;
    switch (i.op) {
      case graph_op::input:
        if (i.dst >= slots || i.a >= input_values) return {errc::format_error, "an input instruction out of range"};
        break;
      case graph_op::output:
        if (i.a >= slots || i.b >= witness_size) return {errc::format_error, "an output instruction out of range"};
        wired[i.b] = 1;
        break;
      case graph_op::add:
      case graph_op::sub:
      case graph_op::mul:
      case graph_op::neg:
      case graph_op::field_call:
        if (i.dst >= slots || i.a >= slots || (two && i.b >= slots)) return {errc::format_error, "an instruction out of range"};
        if (i.op == graph_op::field_call && !field_function_of(i.fn)) return {errc::format_error, "an unknown field function"};
        break;
      case graph_op::guard_nonzero:
      case graph_op::guard_zero:
      case graph_op::guard_equal:
        if (i.a >= slots || (two && i.b >= slots)) return {errc::format_error, "a guard out of range"};
        break;
      default: return {errc::format_error, "an unknown instruction"};
    }
  }
  for (uint8_t w : wired)
    if (!w) return {errc::format_error, "a wire without a value"};
  return status::ok();
}

status witness_graph::save(const std::string& path) const {
  // The parts as they are in memory, digested and written in turn: no copy of the program.
  std::array<std::string_view, 5> parts{std::string_view{}, bytes_of(prime), bytes_of(inputs), bytes_of(constants),
                                        bytes_of(instructions())};
  XXH3_state_t* state = XXH3_createState();
  if (!state) return status(errc::resource_exhausted, path + ": out of memory digesting the witness graph");
  XXH3_64bits_reset(state);
  for (std::size_t i = 1; i < parts.size(); ++i) XXH3_64bits_update(state, parts[i].data(), parts[i].size());
  const XXH64_hash_t digest = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  file_header h{};
  std::memcpy(h.magic, magic, sizeof magic);
  h.format = format;
  h.n32 = n32();
  h.witness_size = witness_size;
  h.input_values = input_values;
  h.inputs = static_cast<uint32_t>(inputs.size());
  h.constants = static_cast<uint32_t>(constants.size() / n32());
  h.slots = slots;
  h.program = instructions().size();
  h.field_calls = field_calls;
  h.digest = digest;
  parts[0] = std::string_view(reinterpret_cast<const char*>(&h), sizeof h);
  return formats::write_file_atomically(path, parts);
}

namespace {

// A graph's file, open for reading; closed with the scope.
class graph_file_reader {
 public:
  explicit graph_file_reader(const std::string& path) : path_(path), fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}
  ~graph_file_reader() {
    if (fd_ >= 0) ::close(fd_);
  }
  graph_file_reader(const graph_file_reader&) = delete;
  graph_file_reader& operator=(const graph_file_reader&) = delete;

  int fd() const noexcept { return fd_; }
  // `count` elements at the file's next bytes into `v` (sized here), folded into the digest.
  template <class T>
  bool read(std::vector<T>& v, std::size_t count, XXH3_state_t* digest) {
    v.reserve(count);
    // The program is tens of MiB: huge pages make its first touch a few faults.
    const std::size_t bytes = count * sizeof(T);
    const auto first = (reinterpret_cast<std::uintptr_t>(v.data()) + 4095) & ~std::uintptr_t{4095};
    const auto end = reinterpret_cast<std::uintptr_t>(v.data()) + bytes;
    if (bytes >= bulk_huge_page && end > first) advise_huge_pages(reinterpret_cast<void*>(first), (end - first) & ~std::uintptr_t{4095});
    v.resize(count);
    auto* p = reinterpret_cast<char*>(v.data());
    for (std::size_t done = 0; done < bytes;) {
      const ssize_t n = ::pread(fd_, p + done, bytes - done, static_cast<off_t>(offset_ + done));
      if (n <= 0) return false;
      done += static_cast<std::size_t>(n);
    }
    offset_ += bytes;
    if (digest) XXH3_64bits_update(digest, p, bytes);
    return true;
  }

 private:
  std::string path_;
  int fd_;
  uint64_t offset_ = 0;
};

// The header's own checks, against the file's size.
status check_header(const file_header& h, uint64_t file_size) {
  if (std::memcmp(h.magic, magic, sizeof magic) != 0) return {errc::format_error, "no witness graph header"};
  if (h.format != format)
    return {errc::format_error, "format " + std::to_string(h.format) + ", expected " + std::to_string(format)};
  if (h.n32 == 0 || h.n32 > 16) return {errc::format_error, "a field of " + std::to_string(h.n32) + " words"};
  const uint64_t size = sizeof h + uint64_t{h.n32} * 4 + uint64_t{h.inputs} * sizeof(graph_input) +
                        uint64_t{h.constants} * h.n32 * 4 + h.program * sizeof(graph_instr);
  if (h.program > (uint64_t{1} << 40) || file_size != size)
    return {errc::format_error, "its size is " + std::to_string(file_size) + " bytes, its header says " + std::to_string(size)};
  return status::ok();
}

// The header's sizes into a graph whose sections are read, then the whole checked.
status take_sizes(witness_graph& g, const file_header& h) {
  g.witness_size = h.witness_size;
  g.input_values = h.input_values;
  g.slots = h.slots;
  g.field_calls = h.field_calls;
  return g.check();
}

// The file mapped: its header and small sections copied, its instructions used in place.
result<witness_graph> load_mapped(const std::string& path) {
  const auto bad = [&](const std::string& why) { return status(errc::format_error, path + ": not a witness graph cuzk can use: " + why); };
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return status(errc::not_found, path + ": no such file");
  auto mapped = formats::mapped_file::open(path);
  if (!mapped) return mapped.error();
  auto file = std::make_shared<const formats::mapped_file>(std::move(*mapped));
  const std::span<const uint8_t> f = file->bytes();
  file_header h;
  if (f.size() < sizeof h) return bad("shorter than its header");
  std::memcpy(&h, f.data(), sizeof h);
  if (auto ok = check_header(h, f.size()); !ok) return bad(ok.message());
  if (XXH3_64bits(f.data() + sizeof h, f.size() - sizeof h) != h.digest) return bad("its digest does not match its contents");
  witness_graph g;
  std::size_t at = sizeof h;
  const auto take = [&](auto& v, std::size_t count) {
    v.resize(count);
    std::memcpy(v.data(), f.data() + at, count * sizeof(v[0]));
    at += count * sizeof(v[0]);
  };
  take(g.prime, h.n32);
  take(g.inputs, h.inputs);
  take(g.constants, std::size_t{h.constants} * h.n32);
  if (at % alignof(graph_instr) != 0) return bad("its instructions are not aligned");
  g.mapped = {reinterpret_cast<const graph_instr*>(f.data() + at), h.program};
  g.file = std::move(file);
  if (auto ok = take_sizes(g, h); !ok) return bad(ok.message());
  return g;
}

}  // namespace

result<witness_graph> witness_graph::load(const std::string& path, holding how) {
  if (how == holding::map) return load_mapped(path);
  const auto bad = [&](const std::string& why) { return status(errc::format_error, path + ": not a witness graph cuzk can use: " + why); };
  graph_file_reader in(path);
  if (in.fd() < 0) return errno == ENOENT ? status(errc::not_found, path + ": no such file") : sys_error(path, "open");
  struct stat st {};
  if (::fstat(in.fd(), &st) != 0) return sys_error(path, "fstat");
  std::vector<file_header> header;
  if (!in.read(header, 1, nullptr)) return bad("shorter than its header");
  const file_header& h = header[0];
  if (auto ok = check_header(h, static_cast<uint64_t>(st.st_size)); !ok) return bad(ok.message());
  std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> digest(XXH3_createState(), &XXH3_freeState);
  if (!digest) throw std::bad_alloc();
  XXH3_64bits_reset(digest.get());
  witness_graph g;
  if (!in.read(g.prime, h.n32, digest.get()) || !in.read(g.inputs, h.inputs, digest.get()) ||
      !in.read(g.constants, std::size_t{h.constants} * h.n32, digest.get()) || !in.read(g.program, h.program, digest.get()))
    return bad("it changed size while it was read");
  if (XXH3_64bits_digest(digest.get()) != h.digest) return bad("its digest does not match its contents");
  if (auto ok = take_sizes(g, h); !ok) return bad(ok.message());
  return g;
}

result<bool> evaluate_graph(const witness_graph& g, std::span<const input_signal> inputs, const field_caller& call,
                            const int* stopped, std::span<uint32_t> wires) {
  if (is_prime_of<bn254::fr>(g.prime)) return evaluate_in<bn254::fr>(g, inputs, call, stopped, wires);
  if (is_prime_of<bls12_381::fr>(g.prime)) return evaluate_in<bls12_381::fr>(g, inputs, call, stopped, wires);
  return status(errc::unsupported, "a witness graph for a field cuzk has no native code for");
}

}  // namespace cuzk::witness
