// SPDX-License-Identifier: MIT OR Apache-2.0
// wasm -> C -> shared object, cached; see wasm_compiler.hpp.
#include "witness/wasm_compiler.hpp"

#include <fcntl.h>
#include <openssl/evp.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <utility>
#include <vector>

#include "formats/file_io.hpp"
#include "witness/circom_wasm_glue_abi_h.hpp"
#include "witness/circom_wasm_glue_c.hpp"
#include "witness/circom_wasm_interface.hpp"
#include "witness/generated_c.hpp"

extern char** environ;

namespace cuzk::witness {

namespace {

namespace fs = std::filesystem;

// The version of what generated_c.cpp does to wasm2c's C, part of the cache's key.
constexpr std::string_view generated_c_version = "native field stubs, data blob, per-thread runtime, traced field functions and memory: 6";

// -O1: on the 1M-constraint benchmark circuit (docs/witness.md) its witness runs as fast as -O2's
// (1.7-2.1 s both) and it compiles in 70% of the time (86 s against 121 s, on a loaded 2-core
// machine): most of the C is the wasm's data segments, which optimisation does not speed up.
// Bounds checks instead of guard pages (WASM_RT_MEMCHECK_SIGNAL_HANDLER=0): the guard-page variant
// installs a process-wide SIGSEGV handler, which a daemon must not have taken from it. The call
// depth limit turns circom code that recurses without end into a trap, not a stack overflow.
constexpr const char* c_flags[] = {"-O1", "-shared", "-fPIC", "-fvisibility=hidden", "-w",
                                   "-DWASM_RT_MEMCHECK_SIGNAL_HANDLER=0", "-DWASM_RT_MAX_CALL_STACK_DEPTH=10000"};

std::string sha256_hex(std::span<const std::span<const uint8_t>> parts) {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr);
  for (const auto& p : parts) EVP_DigestUpdate(ctx, p.data(), p.size());
  unsigned char md[32];
  unsigned int n = 0;
  EVP_DigestFinal_ex(ctx, md, &n);
  EVP_MD_CTX_free(ctx);
  static const char hex[] = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < n; ++i) {
    out += hex[md[i] >> 4];
    out += hex[md[i] & 15];
  }
  return out;
}

std::span<const uint8_t> bytes_of(std::string_view s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

std::string compiler() {
  const char* cc = std::getenv("CC");
  return cc && *cc ? cc : "cc";
}

// Runs argv[0] (looked up in PATH) with stdout and stderr into `log`; its exit status, or -1 with
// errno when it could not be started.
int run_tool(const std::vector<std::string>& argv, const std::string& log) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    errno = rc;
    return -1;
  }
  int st = 0;
  while (waitpid(pid, &st, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

// What a failed tool printed, its last lines: a C compiler's errors on 40 MB of C can be long.
std::string tail_of(const std::string& log) {
  auto text = formats::read_text_file(log);
  if (!text) return "";
  std::string t = *text;
  constexpr std::size_t keep = 2000;
  if (t.size() > keep) t = "..." + t.substr(t.size() - keep);
  while (!t.empty() && t.back() == '\n') t.pop_back();
  return t;
}

// `failure`: the code of a tool that ran and refused: wasm2c's refusal is the wasm's fault
// (invalid_argument), the C compiler's is cuzk's (internal).
status step(const std::vector<std::string>& argv, const std::string& log, const std::string& source,
            const char* package, errc failure) {
  const int rc = run_tool(argv, log);
  if (rc == -1 || rc == 127) {
    return {errc::unavailable, source + ": cannot run " + argv[0] + " (" + (rc == -1 ? std::strerror(errno) : "not found") +
                                   "), which turns circom's witness code into native code: install " + package};
  }
  if (rc != 0) {
    return {failure, source + ": " + argv[0] + " failed (exit " + std::to_string(rc) + "):\n" + tail_of(log)};
  }
  return status::ok();
}

// A private folder inside `cache_dir`, removed with everything in it when the scope ends.
class scratch_dir {
 public:
  static result<scratch_dir> create(const std::string& cache_dir) {
    std::error_code ec;
    fs::create_directories(cache_dir, ec);
    if (ec) return status(errc::io_error, cache_dir + ": cannot create the witness cache folder: " + ec.message());
    std::string tmpl = cache_dir + "/build-XXXXXX";
    if (!mkdtemp(tmpl.data())) return status(errc::io_error, cache_dir + ": cannot create a build folder: " + std::strerror(errno));
    return scratch_dir(tmpl);
  }
  scratch_dir(scratch_dir&& o) noexcept : path_(std::exchange(o.path_, {})) {}
  scratch_dir& operator=(scratch_dir&&) = delete;
  ~scratch_dir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  const std::string& path() const noexcept { return path_; }

 private:
  explicit scratch_dir(std::string p) : path_(std::move(p)) {}
  std::string path_;
};

status write_file(const std::string& path, std::span<const uint8_t> bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  f.close();
  if (!f) return {errc::io_error, path + ": cannot write"};
  return status::ok();
}

}  // namespace

std::string default_witness_cache_dir() {
  if (const char* d = std::getenv("CUZK_WITNESS_CACHE"); d && *d) return d;
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return std::string(d) + "/cuzk/witness";
  if (const char* d = std::getenv("HOME"); d && *d) return std::string(d) + "/.cache/cuzk/witness";
  return (fs::temp_directory_path() / ("cuzk-witness-" + std::to_string(getuid()))).string();
}

result<compiled_generator> compile_witness_generator(std::span<const uint8_t> wasm, const std::string& source,
                                                     const std::string& cache_dir) {
  // Any other module would reach the C compiler and fail there on cuzk's glue: said plainly here,
  // before any work (circom_wasm_interface.hpp).
  CUZK_TRY(check_circom_wasm_interface(wasm, source));
  std::string flags;
  for (const char* f : c_flags) (flags += f) += ' ';
  // What the compiled object depends on besides the wasm: the glue, the rewriting of wasm2c's C
  // (its version below: raise it with every change to generated_c.cpp) and the flags.
  const std::span<const uint8_t> parts[] = {bytes_of(circom_wasm_glue_c), bytes_of(circom_wasm_glue_abi_h),
                                            bytes_of(generated_c_version), bytes_of(flags), wasm};
  const std::string library = cache_dir + "/" + sha256_hex(parts) + ".so";
  if (access(library.c_str(), R_OK) == 0) return compiled_generator{library, true, 0};

  const auto start = std::chrono::steady_clock::now();
  auto dir = scratch_dir::create(cache_dir);
  if (!dir) return dir.error();
  const std::string d = dir->path();
  CUZK_TRY(write_file(d + "/circuit.wasm", wasm));
  CUZK_TRY(write_file(d + "/circom_wasm_glue.c", bytes_of(circom_wasm_glue_c)));
  CUZK_TRY(write_file(d + "/circom_wasm_glue_abi.h", bytes_of(circom_wasm_glue_abi_h)));
  CUZK_TRY(step({"wasm2c", d + "/circuit.wasm", "-n", "circuit", "-o", d + "/circuit.c"}, d + "/wasm2c.log",
                source, "wabt (apt-get install wabt)", errc::invalid_argument));
  {
    auto c = formats::read_text_file(d + "/circuit.c");
    if (!c) return status(errc::io_error, source + ": cannot read the C that wasm2c made: " + c.error().message());
    auto rewritten = rewrite_generated_c(*c, d);
    if (!rewritten) return rewritten.error().with_context(source);
    CUZK_TRY(write_file(d + "/circuit.c", bytes_of(*rewritten)));
  }
  CUZK_TRY(write_thread_local_runtime(CUZK_WASM2C_RUNTIME_DIR, CUZK_WASM2C_HEADER_DIR, d));
  std::vector<std::string> cc = {compiler()};
  cc.insert(cc.end(), std::begin(c_flags), std::end(c_flags));
  for (const std::string& s : {"-I" + d, d + "/circuit.c", d + "/circom_wasm_glue.c", d + "/wasm-rt-impl.c",
                                std::string("-o"), d + "/circuit.so"})
    cc.push_back(s);
  CUZK_TRY(step(cc, d + "/cc.log", source, "a C compiler (apt-get install gcc)", errc::internal));
  if (std::rename((d + "/circuit.so").c_str(), library.c_str()) != 0)
    return status(errc::io_error, library + ": cannot move the compiled witness code into the cache: " + std::strerror(errno));
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return compiled_generator{library, false, s};
}

}  // namespace cuzk::witness
