// SPDX-License-Identifier: MIT OR Apache-2.0
// wasm -> C -> shared object, cached; see wasm_compiler.hpp.
#include "witness/wasm_compiler.hpp"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sched.h>
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
#include "witness/c_units.hpp"
#include "witness/circom_wasm_interface.hpp"
#include "witness/generated_c.hpp"

extern char** environ;

namespace cuzk::witness {

namespace {

namespace fs = std::filesystem;

// The version of what generated_c.cpp does to wasm2c's C, part of the cache's key.
constexpr std::string_view generated_c_version =
    "native field stubs, data blob, per-thread runtime, traced field functions and memory, units, memory pages: 8, memory growth asked: 9";

// -Og: the compiled wasm runs once per circuit at full length, to record the witness graph that
// every later calculation replays (docs/witness.md), and after that only for an input the graph
// does not fit; its compile is on a first run's path. On the 1M-constraint benchmark circuit -Og
// compiles in 60% of -O1's time (6.2 s against 10.3 s for the whole C on one core of the 2-core
// development machine) and its wasm runs 1.29x as long as -O1's (0.94 s against 0.73 s), so a
// first run (compile and recording) is shorter. (-O2 compiled in 140% of -O1's time for no speed.)
// Bounds checks instead of guard pages (WASM_RT_MEMCHECK_SIGNAL_HANDLER=0): the guard-page variant
// installs a process-wide SIGSEGV handler, which a daemon must not have taken from it. The call
// depth limit turns circom code that recurses without end into a trap, not a stack overflow.
// Each source is compiled to an object on its own (several at once), then linked with -shared.
constexpr const char* c_flags[] = {"-Og", "-fPIC", "-fvisibility=hidden", "-w", "-DWASM_RT_MEMCHECK_SIGNAL_HANDLER=0",
                                   "-DWASM_RT_MAX_CALL_STACK_DEPTH=10000"};

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

// Starts argv[0] (looked up in PATH) with stdout and stderr into `log`: its pid, or -1 with errno
// when it could not be started.
pid_t start_tool(const std::vector<std::string>& argv, const std::string& log) {
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
  return pid;
}

// The exit status of a started tool, or -1 with errno.
int wait_tool(pid_t pid) {
  if (pid < 0) return -1;
  int st = 0;
  while (waitpid(pid, &st, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

// One tool to run, and how to read its failure (step() below).
struct tool_run {
  std::vector<std::string> argv;
  std::string log;
  const char* package;
  errc failure;
};

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
status outcome(int rc, const tool_run& t, const std::string& source) {
  const auto& [argv, log, package, failure] = t;
  if (rc == -1 || rc == 127) {
    return {errc::unavailable, source + ": cannot run " + argv[0] + " (" + (rc == -1 ? std::strerror(errno) : "not found") +
                                   "), which turns circom's witness code into native code: install " + package};
  }
  if (rc != 0) {
    return {failure, source + ": " + argv[0] + " failed (exit " + std::to_string(rc) + "):\n" + tail_of(log)};
  }
  return status::ok();
}

status step(const tool_run& t, const std::string& source) {
  const int rc = wait_tool(start_tool(t.argv, t.log));
  return outcome(rc, t, source);
}

// Runs `tools` all at once; the first failure, in their order, once every one has ended.
status steps_at_once(const std::vector<tool_run>& tools, const std::string& source) {
  std::vector<std::pair<pid_t, int>> started;
  for (const tool_run& t : tools) {
    const pid_t pid = start_tool(t.argv, t.log);
    started.emplace_back(pid, pid < 0 ? errno : 0);
  }
  status first = status::ok();
  for (std::size_t i = 0; i < tools.size(); ++i) {
    int rc = -1;
    if (started[i].first < 0) {
      errno = started[i].second;
    } else {
      rc = wait_tool(started[i].first);
    }
    status s = outcome(rc, tools[i], source);
    if (!s.is_ok() && first.is_ok()) first = std::move(s);
  }
  return first;
}

// The cores this process may run on: as many compilers at once.
unsigned usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return static_cast<unsigned>(std::max(1, CPU_COUNT(&set)));
  return 1;
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
                                                     const std::string& cache_dir, const compile_options& options) {
  // Any other module would reach the C compiler and fail there on cuzk's glue: said plainly here,
  // before any work (circom_wasm_interface.hpp).
  CUZK_TRY(check_circom_wasm_interface(wasm, source));
  std::string flags;
  for (const char* f : c_flags) (flags += f) += ' ';
  // What the compiled object depends on besides the wasm: the glue, the rewriting of wasm2c's C
  // (its version below: raise it with every change to generated_c.cpp or c_units.cpp) and the
  // flags. Not the number of units: the object computes the same either way.
  const std::span<const uint8_t> parts[] = {bytes_of(circom_wasm_glue_c), bytes_of(circom_wasm_glue_abi_h),
                                            bytes_of(generated_c_version), bytes_of(flags), wasm};
  const std::string library = cache_dir + "/" + sha256_hex(parts) + ".so";
  if (access(library.c_str(), R_OK) == 0) return compiled_generator{library, true, 0, 0};

  const auto start = std::chrono::steady_clock::now();
  auto dir = scratch_dir::create(cache_dir);
  if (!dir) return dir.error();
  const std::string d = dir->path();
  CUZK_TRY(write_file(d + "/circuit.wasm", wasm));
  CUZK_TRY(write_file(d + "/circom_wasm_glue.c", bytes_of(circom_wasm_glue_c)));
  CUZK_TRY(write_file(d + "/circom_wasm_glue_abi.h", bytes_of(circom_wasm_glue_abi_h)));
  CUZK_TRY(step({{"wasm2c", d + "/circuit.wasm", "-n", "circuit", "-o", d + "/circuit.c"}, d + "/wasm2c.log",
                 "wabt (apt-get install wabt)", errc::invalid_argument},
                source));
  std::vector<std::string> units;
  {
    auto c = formats::read_text_file(d + "/circuit.c");
    if (!c) return status(errc::io_error, source + ": cannot read the C that wasm2c made: " + c.error().message());
    auto rewritten = rewrite_generated_c(*c, d);
    if (!rewritten) return rewritten.error().with_context(source);
    CUZK_TRY(write_file(d + "/circuit.c", bytes_of(*rewritten)));
    units = split_into_units(*rewritten, options.units ? options.units : std::min(usable_cores(), 8u), options.min_unit_bytes);
  }
  CUZK_TRY(write_thread_local_runtime(CUZK_WASM2C_RUNTIME_DIR, CUZK_WASM2C_HEADER_DIR, d));

  // Each source to an object, all at once, then one link.
  const auto object_of = [&](const std::string& c_file, const std::string& object) {
    tool_run t{{compiler()}, d + "/" + object + ".log", "a C compiler (apt-get install gcc)", errc::internal};
    t.argv.insert(t.argv.end(), std::begin(c_flags), std::end(c_flags));
    for (const std::string& a : {"-I" + d, std::string("-c"), d + "/" + c_file, std::string("-o"), d + "/" + object}) t.argv.push_back(a);
    return t;
  };
  const auto compile = [&](const std::vector<std::string>& c_files) -> status {
    std::vector<tool_run> runs = {object_of("circom_wasm_glue.c", "glue.o"), object_of("wasm-rt-impl.c", "runtime.o")};
    tool_run link{{compiler(), "-shared", "-o", d + "/circuit.so", d + "/glue.o", d + "/runtime.o"}, d + "/link.log",
                  "a C compiler (apt-get install gcc)", errc::internal};
    for (std::size_t n = 0; n < c_files.size(); ++n) {
      runs.push_back(object_of(c_files[n], "unit" + std::to_string(n) + ".o"));
      link.argv.push_back(d + "/unit" + std::to_string(n) + ".o");
    }
    CUZK_TRY(steps_at_once(runs, source));
    return step(link, source);
  };
  std::vector<std::string> c_files;
  if (units.size() > 1) {
    for (std::size_t n = 0; n < units.size(); ++n) {
      c_files.push_back("circuit_unit" + std::to_string(n) + ".c");
      CUZK_TRY(write_file(d + "/" + c_files.back(), bytes_of(units[n])));
    }
  }
  std::size_t compiled_units = units.size();
  // A cut the C compiler refuses (a shape of wasm2c's C the cut did not foresee) costs time, never
  // the circuit: the whole file is compiled as it stands.
  if (units.size() < 2 || !compile(c_files).is_ok()) {
    CUZK_TRY(compile({"circuit.c"}));
    compiled_units = 1;
  }
  if (std::rename((d + "/circuit.so").c_str(), library.c_str()) != 0)
    return status(errc::io_error, library + ": cannot move the compiled witness code into the cache: " + std::strerror(errno));
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return compiled_generator{library, false, s, compiled_units};
}

}  // namespace cuzk::witness
