// SPDX-License-Identifier: MIT OR Apache-2.0
// Loading a compiled circom witness generator and running it; see circom_wasm.hpp.
#include "witness/circom_wasm.hpp"

#include <dlfcn.h>
#include <malloc.h>
#include <xxhash.h>

#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <string_view>
#include <thread>
#include <unordered_set>
#include <utility>
#include <vector>

#include "formats/file_io.hpp"
#include "witness/circom_element.hpp"
#include "witness/fnv1a.hpp"
#include "witness/graph_recorder.hpp"
#include "witness/native_field.hpp"

namespace cuzk::witness {

namespace {

// The glue's interface version this code speaks (CUZK_WITNESS_GLUE_VERSION in circom_wasm_glue.c).
constexpr int glue_version = 8;

// The glue's code for a calculation stopped from outside (CUZK_WITNESS_STOPPED).
constexpr uint32_t stopped_code = 0xfffffffeu;

// How often a calculation's stop_polled is asked: a cancel takes effect within about this long.
constexpr auto poll_interval = std::chrono::milliseconds(10);

// Raises a calculation's stop flag at its deadline or on its stop token, whichever comes first;
// nothing where neither is set. The flag is read by the compiled code without a lock.
class stop_watch {
 public:
  explicit stop_watch(const calculation_limits& limits) {
    if (limits.stop.stop_possible())
      on_stop_ = std::make_unique<std::stop_callback<std::function<void()>>>(limits.stop, [this] { raise(false); });
    if (limits.deadline || limits.stop_polled) {
      timer_ = std::jthread([this, deadline = limits.deadline, poll = limits.stop_polled](std::stop_token done) {
        std::mutex m;
        std::condition_variable_any cv;
        std::unique_lock lock(m);
        for (;;) {
          auto wake = poll ? std::chrono::steady_clock::now() + poll_interval : *deadline;
          if (deadline && *deadline < wake) wake = *deadline;
          cv.wait_until(lock, done, wake, [] { return false; });
          if (done.stop_requested()) return;
          if (deadline && std::chrono::steady_clock::now() >= *deadline) return raise(true);
          if (poll && poll()) return raise(false);
        }
      });
    }
  }
  ~stop_watch() {
    on_stop_.reset();
    if (timer_.joinable()) {
      timer_.request_stop();
      timer_.join();
    }
  }
  stop_watch(const stop_watch&) = delete;
  stop_watch& operator=(const stop_watch&) = delete;

  const int* flag() const noexcept { return &flag_; }
  // Why the flag was raised: the first reason wins, so a cancel stays a cancel when the deadline
  // passes before the calculation unwinds.
  bool timed_out() const noexcept { return __atomic_load_n(&flag_, __ATOMIC_ACQUIRE) == deadline_reason; }

 private:
  static constexpr int cancel_reason = 1, deadline_reason = 2;
  void raise(bool deadline) {
    int none = 0;
    __atomic_compare_exchange_n(&flag_, &none, deadline ? deadline_reason : cancel_reason, false, __ATOMIC_ACQ_REL,
                                __ATOMIC_ACQUIRE);
  }
  int flag_ = 0;  // 0: run on; else the reason (read by the compiled code as nonzero)
  std::unique_ptr<std::stop_callback<std::function<void()>>> on_stop_;  // (not std::optional: GCC 12 warns)
  std::jthread timer_;
};

// circom writes <name>.sym beside its output folder's <name>_js/<name>.wasm; a copy may sit beside
// the wasm itself. The first that exists, or "".
std::string sym_file_for(const std::string& wasm) {
  namespace fs = std::filesystem;
  const fs::path w(wasm);
  const fs::path name = w.stem().string() + ".sym";
  for (const fs::path& p : {w.parent_path() / name, w.parent_path().parent_path() / name}) {
    std::error_code ec;
    if (!p.empty() && fs::is_regular_file(p, ec)) return p.string();
  }
  return {};
}

// The signals of the main component a .sym lists ("labelIdx,varIdx,componentIdx,main.x[0][1]"):
// the names without "main." and without indices, each once, in the file's order. Signals of
// subcomponents ("main.c.x") are not the circuit's inputs.
std::vector<std::string> main_signals(const std::string& sym) {
  std::vector<std::string> names;
  std::unordered_set<std::string> seen;
  std::ifstream in(sym);
  for (std::string line; std::getline(in, line);) {
    const auto comma = line.rfind(',');
    if (comma == std::string::npos) continue;
    std::string_view full = std::string_view(line).substr(comma + 1);
    if (!full.starts_with("main.")) continue;
    full.remove_prefix(5);
    const std::string_view base = full.substr(0, full.find('['));
    if (base.empty() || base.find('.') != std::string_view::npos) continue;
    if (seen.emplace(base).second) names.emplace_back(base);
  }
  return names;
}

}  // namespace

struct glue_api {
  using instance = void*;
  int (*glue_version)();
  instance (*create)();
  int (*instantiate)(instance);
  void (*destroy)(instance);
  const char* (*error)(instance);
  uint32_t (*error_code)(instance);
  std::size_t (*take_log)(instance, char*, std::size_t);
  int (*field)(instance, uint32_t*, uint32_t*, uint32_t);
  int (*sizes)(instance, uint32_t*, uint32_t*);
  int (*init)(instance, int);
  int (*input_size)(instance, uint32_t, uint32_t, int32_t*);
  int (*set_input)(instance, uint32_t, uint32_t, uint32_t, const uint32_t*, uint32_t);
  int (*values)(instance, uint32_t, uint32_t*, uint32_t, uint32_t);
  void (*configure)(instance, const native_field_ops*, const int*);
  int (*native_stubs)();
  int (*traceable)();
  void (*trace)(instance, cuzk_trace*);
  int (*shared_element)(instance, uint32_t*);
  int (*scratch)(instance, uint32_t*);
  uint8_t* (*memory)(instance, uint64_t*);
  int (*field_call)(instance, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t*);
  void (*memory_growth)(instance, int (*)(void*, uint32_t), void*);
  void (*memory_pages)(uint32_t*, uint32_t*);
};

namespace {

// An instance of the circuit, freed with the scope.
class instance_guard {
 public:
  explicit instance_guard(const glue_api& a) : a_(a), w_(a.create()) {}
  ~instance_guard() {
    if (w_) a_.destroy(w_);
  }
  instance_guard(const instance_guard&) = delete;
  instance_guard& operator=(const instance_guard&) = delete;
  void* get() const noexcept { return w_; }
  // The instance freed now (its linear memory is most of a calculation's).
  void reset() noexcept {
    if (w_) a_.destroy(w_);
    w_ = nullptr;
  }

 private:
  const glue_api& a_;
  void* w_;
};

template <class F>
bool resolve(void* handle, const char* name, F& fn) {
  fn = reinterpret_cast<F>(dlsym(handle, name));
  return fn != nullptr;
}

// The log lines the circuit printed so far.
std::string take_log(const glue_api& a, void* w) {
  std::string out(a.take_log(w, nullptr, 0), '\0');
  if (!out.empty()) a.take_log(w, out.data(), out.size());
  return out;
}

}  // namespace

witness_generator::~witness_generator() {
  // A recording beside a calculation runs the compiled code: it ends before the code is unloaded.
  if (recording_.joinable()) {
    recording_.request_stop();
    recording_.join();
  }
  if (handle_) dlclose(handle_);
}

result<std::shared_ptr<const witness_generator>> witness_generator::load(const std::string& library,
                                                                         const std::string& source,
                                                                         witness_graph::holding graph) {
  std::shared_ptr<witness_generator> g(new witness_generator());
  g->source_ = source;
  g->library_ = library;
  g->handle_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!g->handle_) return status(errc::io_error, source + ": cannot load its compiled witness code " + library + ": " + dlerror());
  auto a = std::make_unique<glue_api>();
  const bool all = resolve(g->handle_, "cuzk_witness_glue_version", a->glue_version) &&
                   resolve(g->handle_, "cuzk_witness_new", a->create) &&
                   resolve(g->handle_, "cuzk_witness_instantiate", a->instantiate) &&
                   resolve(g->handle_, "cuzk_witness_delete", a->destroy) &&
                   resolve(g->handle_, "cuzk_witness_error", a->error) &&
                   resolve(g->handle_, "cuzk_witness_error_code", a->error_code) &&
                   resolve(g->handle_, "cuzk_witness_take_log", a->take_log) &&
                   resolve(g->handle_, "cuzk_witness_field", a->field) &&
                   resolve(g->handle_, "cuzk_witness_sizes", a->sizes) &&
                   resolve(g->handle_, "cuzk_witness_init", a->init) &&
                   resolve(g->handle_, "cuzk_witness_input_size", a->input_size) &&
                   resolve(g->handle_, "cuzk_witness_set_input", a->set_input) &&
                   resolve(g->handle_, "cuzk_witness_values", a->values) &&
                   resolve(g->handle_, "cuzk_witness_configure", a->configure) &&
                   resolve(g->handle_, "cuzk_witness_native_stubs", a->native_stubs) &&
                   resolve(g->handle_, "cuzk_witness_traceable", a->traceable) &&
                   resolve(g->handle_, "cuzk_witness_trace", a->trace) &&
                   resolve(g->handle_, "cuzk_witness_shared_element", a->shared_element) &&
                   resolve(g->handle_, "cuzk_witness_scratch", a->scratch) &&
                   resolve(g->handle_, "cuzk_witness_test_memory", a->memory) &&
                   resolve(g->handle_, "cuzk_witness_field_call", a->field_call) &&
                   resolve(g->handle_, "cuzk_witness_memory_growth", a->memory_growth) &&
                   resolve(g->handle_, "cuzk_witness_memory_pages", a->memory_pages);
  if (!all || a->glue_version() != glue_version)
    return status(errc::format_error, source + ": " + library + " is not a witness generator this cuzk built (remove it from the cache)");
  g->api_ = std::move(a);
  g->api_->memory_pages(&g->declared_pages_, &g->declared_max_pages_);
  if (g->take_recorded_graph(graph)) return std::shared_ptr<const witness_generator>(std::move(g));

  // The field and the sizes, from an instance made for the purpose.
  instance_guard w(*g->api_);
  if (!w.get()) return status(errc::resource_exhausted, source + ": out of memory making an instance");
  const auto failed = [&](const char* what) {
    return status(errc::format_error, source + ": " + what + ": " + g->api_->error(w.get()));
  };
  if (g->instantiate(w.get()) != 0) return failed("the wasm does not instantiate");
  uint32_t n32 = 0;
  std::vector<uint32_t> prime(16);
  if (g->api_->field(w.get(), &n32, prime.data(), static_cast<uint32_t>(prime.size())) != 0)
    return failed("reading its prime");
  if (n32 == 0 || n32 > prime.size())
    return status(errc::unsupported, source + ": a field of " + std::to_string(n32) +
                                         " 32-bit words: not circom 2 witness code for a known prime");
  prime.resize(n32);
  g->prime_ = std::move(prime);
  // The native field where cuzk has the prime and the wasm's arithmetic was given its stubs.
  g->native_ = g->api_->native_stubs() ? native_field_for(g->prime_) : nullptr;
  uint32_t input_size = 0;
  if (g->api_->sizes(w.get(), &g->witness_size_, &input_size) != 0) return failed("reading its sizes");
  g->traceable_ = g->native_ && g->api_->traceable();
  g->load_graph(graph);
  return std::shared_ptr<const witness_generator>(std::move(g));
}

namespace {
std::span<const uint8_t> prime_bytes(const std::vector<uint32_t>& prime) {
  return {reinterpret_cast<const uint8_t*>(prime.data()), prime.size() * 4};
}
std::string graph_file(const std::string& library) { return library + ".graph"; }

// A calculation its stop watch stopped: deadline_exceeded or cancelled, `during` after the words.
status stopped_status(const std::string& source, const stop_watch& watch, const std::string& during) {
  if (watch.timed_out())
    return status(errc::deadline_exceeded, source + ": the witness calculation ran past its time limit and was stopped" + during);
  return status(errc::cancelled, source + ": the witness calculation was cancelled" + during);
}
std::string refusal_file(const std::string& library) { return library + ".nograph"; }

// circom's error code for a memory.grow that failed (reserveStackFr).
constexpr uint32_t not_enough_memory_code = 5;
}  // namespace

std::string witness_generator::memory_refused_note(uint32_t pages) const {
  return " (cuzk's host budget had no room for the wasm's linear memory beyond " + std::to_string(pages) +
         " pages of 64 KiB (the " + std::to_string(declared_pages_) +
         " its module declares and what its stack took since): every calculation's memory is charged to the "
         "host budget; docs/witness.md, 'A calculation's memory in the host budget')";
}

int linear_growth::ask(void* context, uint32_t pages) noexcept {
  auto* self = static_cast<linear_growth*>(context);
  if (pages <= self->counted_pages) return 1;
  if (!self->limits || !self->limits->within || !self->limits->memory_growth) {
    self->counted_pages = pages;  // no budget: never capped
    return 1;
  }
  try {
    const uint64_t bytes = uint64_t{pages - self->counted_pages} * self->bytes_per_page;
    if (self->limits->memory_growth(bytes)) {
      self->counted_pages = pages;
      return 1;
    }
  } catch (...) {
  }
  self->refused = true;
  return 0;
}

// The witness graph an earlier calculation recorded from this compiled object (its file is named
// after the object, whose name is the digest of the wasm it was compiled from), with the field and
// the wire count in its header: a generator that has it needs no instance to learn them. An
// instance is most of a load's time (a million-wire circuit's linear memory is 70 MB, its data
// segments 5 MB to copy), and a calculation the graph fits never makes one. False where there is
// no usable graph: load() then asks an instance, and load_graph() looks again.
bool witness_generator::take_recorded_graph(witness_graph::holding how) {
  if (!api_->native_stubs() || !api_->traceable()) return false;
  std::error_code ec;
  if (std::filesystem::exists(refusal_file(library_), ec) || !std::filesystem::exists(graph_file(library_), ec)) return false;
  auto g = witness_graph::load(graph_file(library_), how);
  if (!g) return false;
  native_ = native_field_for(g->prime);
  if (!native_) return false;
  prime_ = g->prime;
  witness_size_ = g->witness_size;
  traceable_ = true;
  graph_ = std::make_shared<const witness_graph>(std::move(*g));
  graph_state_ = graph_state::ready;
  return true;
}

// A graph recorded by an earlier process, or its refusal; a file that fails its checks is
// ignored (and replaced by the next recording).
void witness_generator::load_graph(witness_graph::holding how) {
  if (!traceable_) {
    graph_state_ = graph_state::refused;
    graph_reason_ = native_ ? "its compiled code does not show the trace everything it does with field elements"
                            : "cuzk has no native field for its prime";
    return;
  }
  std::error_code ec;
  if (std::filesystem::exists(refusal_file(library_), ec)) {
    auto why = formats::read_text_file(refusal_file(library_));
    graph_state_ = graph_state::refused;
    graph_reason_ = why ? *why : "refused by an earlier calculation";
    return;
  }
  if (!std::filesystem::exists(graph_file(library_), ec)) return;
  auto g = witness_graph::load(graph_file(library_), how);
  if (!g || g->prime != prime_ || g->witness_size != witness_size_) return;
  graph_ = std::make_shared<const witness_graph>(std::move(*g));
  graph_state_ = graph_state::ready;
}

int witness_generator::instantiate(void* instance, linear_growth* growth) const {
  if (api_->instantiate(instance) != 0) return -1;
  if (growth) api_->memory_growth(instance, &linear_growth::ask, growth);
  return 0;
}

circuit_sizes witness_generator::sizes() const noexcept {
  return {static_cast<uint32_t>(prime_.size()), witness_size_, declared_pages_, declared_max_pages_};
}

calculation_memory witness_generator::memory_needed(uint64_t input_json_bytes, const calculation_limits& limits) const {
  const bool use_graph = limits.graph && limits.native_field && native_;
  std::shared_ptr<const witness_graph> g;
  graph_state state = graph_state::refused;
  {
    std::lock_guard lock(graph_mutex_);
    g = graph_;
    state = graph_state_;
  }
  calculation_kind kind = calculation_kind::wasm;
  graph_sizes gs;
  if (use_graph && g) {
    kind = calculation_kind::replay;
    gs = {g->slots, g->input_values, g->field_calls > 0};
  } else if (use_graph && traceable_ && state == graph_state::none_yet) {
    kind = limits.graph_recording == calculation_limits::recording::beside ? calculation_kind::record_beside
                                                                          : calculation_kind::record_in_line;
  }
  return calculation_memory_bound(sizes(), kind, gs, input_json_bytes);
}

graph_state witness_generator::graph() const {
  std::lock_guard lock(graph_mutex_);
  return graph_state_;
}

std::string witness_generator::graph_reason() const {
  std::lock_guard lock(graph_mutex_);
  return graph_reason_;
}

bool witness_generator::start_recording() const {
  std::lock_guard lock(graph_mutex_);
  if (graph_state_ != graph_state::none_yet) return false;
  graph_state_ = graph_state::recording;
  return true;
}

// The end of a recording: its graph kept in memory and beside the compiled object, or the
// refusal (for good where the trace itself refused; a calculation that failed leaves the next one
// to try again).
void witness_generator::recorded(result<witness_graph> g) const {
  std::lock_guard lock(graph_mutex_);
  if (g) {
    (void)g->save(graph_file(library_));  // a cache that cannot be written still serves this process
    graph_ = std::make_shared<const witness_graph>(std::move(*g));
    graph_state_ = graph_state::ready;
  } else if (g.error().code() == errc::failed_precondition) {
    graph_state_ = graph_state::refused;
    graph_reason_ = g.error().message();
    (void)formats::write_file_atomically(refusal_file(library_), graph_reason_);
  } else {
    graph_state_ = graph_state::none_yet;
  }
}

result<calculated_witness> witness_generator::calculate(std::span<const input_signal> inputs, const std::string& input_source,
                                                        const calculation_limits& limits) const {
  const bool use_graph = limits.graph && limits.native_field && native_;
  // Where the caller reserved memory by an estimate, nothing it did not count: no replay of a graph
  // recorded since, no recording it left out.
  const bool may_replay = !limits.within || limits.within->kind == calculation_kind::replay;
  const bool may_record = !limits.within || limits.within->records();
  const bool beside = limits.within ? limits.within->kind == calculation_kind::record_beside
                                    : limits.graph_recording == calculation_limits::recording::beside;
  if (use_graph && may_replay) {
    std::shared_ptr<const witness_graph> g;
    {
      std::lock_guard lock(graph_mutex_);
      g = graph_;
    }
    if (g) {
      auto by_graph = calculate_by_graph(*g, inputs, limits);
      if (!by_graph) return by_graph.error();
      if (*by_graph) return std::move(**by_graph);
      // Not this input's path: the wasm computes it (and reports circom's error where there is one).
    }
  }
  const bool record = use_graph && may_record && traceable_ && start_recording();
  if (record && beside) {
    // The recording runs the same inputs a few times slower than the wasm alone: it gets five times
    // what is left of this calculation's time, and stops with the generator. It takes the memory
    // callback along (and with it whatever holds the recording's memory for the caller), so that
    // memory is held until the recording ends.
    calculation_limits on_its_own;
    if (limits.deadline)
      on_its_own.deadline = std::chrono::steady_clock::now() + 5 * (*limits.deadline - std::chrono::steady_clock::now());
    on_its_own.recording_memory = limits.recording_memory;
    // Its linear memory beyond the estimate, from the recording's share (which it holds).
    on_its_own.within = limits.within;
    on_its_own.memory_growth = limits.recording_memory;
    std::vector<input_signal> copy(inputs.begin(), inputs.end());
    recording_ = std::jthread([this, copy = std::move(copy), input_source, on_its_own](std::stop_token stop) mutable {
      on_its_own.stop = stop;
      (void)calculate_by_wasm(copy, input_source, on_its_own, true);
      // The memory goes back now (both hold the recording's reservation), not when the next
      // recording replaces this thread.
      on_its_own.recording_memory = nullptr;
      on_its_own.memory_growth = nullptr;
    });
    return calculate_by_wasm(inputs, input_source, limits, false);
  }
  return calculate_by_wasm(inputs, input_source, limits, record);
}

result<std::optional<calculated_witness>> witness_generator::calculate_by_graph(const witness_graph& g,
                                                                               std::span<const input_signal> inputs,
                                                                               const calculation_limits& limits) const {
  stop_watch watch(limits);
  const glue_api& a = *api_;
  const uint32_t n32 = static_cast<uint32_t>(prime_.size());
  // The field functions without native code run on an instance of the wasm, on a page of its own.
  linear_growth growth{&limits, instance_pages(sizes()), wasm_page_bytes};
  std::unique_ptr<instance_guard> w;
  uint32_t scratch = 0;
  field_caller call;
  if (g.field_calls > 0) {
    w = std::make_unique<instance_guard>(a);
    if (!w->get()) return status(errc::resource_exhausted, source_ + ": out of memory making an instance");
    a.configure(w->get(), static_cast<const native_field_ops*>(native_), nullptr);
    if (instantiate(w->get(), &growth) != 0 || a.init(w->get(), 0) != 0 || a.scratch(w->get(), &scratch) != 0)
      return std::optional<calculated_witness>{};  // the wasm path says what is wrong
    call = [&](field_fn fn, std::span<const uint32_t> x, std::span<const uint32_t> y, std::span<uint32_t> out) {
      const uint32_t size = 8 + 4 * n32, ra = scratch, rb = scratch + size, rr = scratch + 2 * size;
      uint64_t mem_size = 0;
      uint8_t* m = a.memory(w->get(), &mem_size);
      const auto put = [&](uint32_t at, std::span<const uint32_t> v) {
        const uint32_t header[2] = {0, long_bit};
        std::memcpy(m + at, header, 8);
        std::memcpy(m + at + 8, v.data(), 4 * n32);
      };
      put(ra, x);
      put(rb, y);
      uint32_t ignored = 0;
      if (a.field_call(w->get(), static_cast<uint32_t>(fn), rr, ra, rb, &ignored) != 0) return false;
      if (a.field_call(w->get(), static_cast<uint32_t>(field_fn::to_long_normal), 0, rr, 0, &ignored) != 0) return false;
      m = a.memory(w->get(), &mem_size);
      std::memcpy(out.data(), m + rr + 8, 4 * n32);
      return true;
    };
  }
  calculated_witness out;
  auto room = formats::wtns_with_room(prime_bytes(prime_), witness_size_);
  if (!room) return room.error();
  out.n32 = n32;
  out.wires = witness_size_;
  out.wtns = std::move(*room);
  auto done = evaluate_graph(g, inputs, call, watch.flag(), out.words());
  if (!done) {
    if (done.error().code() != errc::cancelled) return done.error();
    return stopped_status(source_, watch, "");
  }
  if (!*done) return std::optional<calculated_witness>{};
  out.by_graph = true;
  return std::optional<calculated_witness>{std::move(out)};
}

result<calculated_witness> witness_generator::calculate_by_wasm(std::span<const input_signal> inputs,
                                                                const std::string& input_source,
                                                                const calculation_limits& limits, bool record) const {
  const glue_api& a = *api_;
  const auto n32 = static_cast<uint32_t>(prime_.size());
  // Past what the estimate counted, the linear memory grows only as the budget grants it (and, while
  // recording, the marks over it: calculation_memory.hpp).
  const uint64_t page = wasm_page_bytes;
  linear_growth growth{&limits, instance_pages(sizes()),
                       record ? page + marks_bytes(page) + saved_marks_bytes(page) : page};
  instance_guard w(a);
  if (!w.get()) return status(errc::resource_exhausted, source_ + ": out of memory making an instance");
  stop_watch watch(limits);
  a.configure(w.get(), limits.native_field ? static_cast<const native_field_ops*>(native_) : nullptr, watch.flag());
  calculated_witness out;
  out.n32 = n32;
  // A failure inside the wasm: circom's message, and what the circuit logged before it.
  const auto failed = [&](const std::string& during) {
    if (a.error_code(w.get()) == stopped_code) {
      return stopped_status(source_, watch, " " + during);
    }
    std::string msg = a.error(w.get());
    while (!msg.empty() && msg.back() == '\n') msg.pop_back();
    // Refused by the budget, not the circuit's code failing: resource_exhausted, so that a caller
    // can tell (a witness computed ahead leaves it to its worker, witness_ahead.hpp).
    const bool refused = a.error_code(w.get()) == not_enough_memory_code && growth.refused;
    if (refused) msg += memory_refused_note(growth.counted_pages);
    std::string log = take_log(a, w.get());
    return status(refused ? errc::resource_exhausted : errc::failed_precondition,
                  source_ + ": the circuit's witness code failed " + during + " (circom error " +
                      std::to_string(a.error_code(w.get())) + "): " + msg +
                      (log.empty() ? "" : "\nits log before the failure:\n" + log));
  };
  // A recording that ends without a graph (a failure, a stop) leaves the next calculation to try.
  std::unique_ptr<graph_recorder> recorder;
  struct recording_end {
    const witness_generator* g;
    bool open;
    ~recording_end() {
      if (open) g->recorded(status(errc::cancelled, "the recording calculation did not finish"));
    }
  } end{this, record};
  if (instantiate(w.get(), &growth) != 0) return failed("starting");
  if (a.init(w.get(), 0) != 0) return failed("in init");
  if (record) {
    uint32_t shared = 0;
    if (a.shared_element(w.get(), &shared) != 0) return failed("finding its shared memory");
    recorder = graph_recorder::make(prime_, witness_size_, shared, linear_memory{w.get(), a.memory}, limits.recording_memory);
    if (recorder) a.trace(w.get(), recorder->trace());
  }

  std::size_t set = 0;
  for (const input_signal& s : inputs) {
    const auto msb = static_cast<uint32_t>(s.name_hash >> 32), lsb = static_cast<uint32_t>(s.name_hash);
    int32_t size = 0;
    if (a.input_size(w.get(), msb, lsb, &size) != 0) return failed("looking up input " + s.name);
    // circom 2.2's getInputSignalSize answers 0 for a name it does not know (older versions -1);
    // no input has zero values.
    if (size <= 0)
      return status(errc::invalid_argument, input_source + ": " + s.name + ": the circuit (" + source_ +
                                                ") has no input signal of this name");
    if (s.count != static_cast<std::size_t>(size))
      return status(errc::invalid_argument, input_source + ": " + s.name + ": expected " + std::to_string(size) +
                                                (size == 1 ? " value" : " values") + " (the circuit's size of this input), found " +
                                                std::to_string(s.count));
    for (std::size_t i = 0; i < s.count; ++i) {
      if (a.set_input(w.get(), msb, lsb, static_cast<uint32_t>(i), s.words.data() + i * n32, n32) != 0) {
        std::string where = "after input " + s.name;
        if (s.count > 1) where.append("[").append(std::to_string(i)).append("] (flattened)");
        return failed(where);
      }
      ++set;
    }
  }
  uint32_t witness_size = 0, input_size = 0;
  if (a.sizes(w.get(), &witness_size, &input_size) != 0) return failed("reading its sizes");
  if (set < input_size) {
    std::string msg = input_source + ": not all inputs are given: " + std::to_string(set) + " of the circuit's " +
                      std::to_string(input_size) + " input values";
    // The wasm answers by a name's hash only; circom's .sym names the main component's signals, and
    // the wasm says which of those are inputs.
    const std::string sym = sym_file_for(source_);
    std::vector<std::string> missing;
    if (!sym.empty()) {
      std::unordered_set<std::string> given;
      for (const input_signal& s : inputs) given.insert(s.name);
      for (const std::string& name : main_signals(sym)) {
        if (given.contains(name)) continue;
        const uint64_t h = fnv1a_64(name);
        int32_t size = 0;
        if (a.input_size(w.get(), static_cast<uint32_t>(h >> 32), static_cast<uint32_t>(h), &size) == 0 && size > 0)
          missing.push_back(name);
      }
    }
    if (!missing.empty()) {
      msg += "; missing:";
      for (std::size_t i = 0; i < missing.size(); ++i) msg += (i ? ", " : " ") + missing[i];
      msg += " (from " + sym + ")";
    } else {
      msg += sym.empty() ? " (circom's .sym file beside the wasm, or beside its _js folder, would name the missing ones)"
                         : " (the circuit's .sym file lists its input signals: " + sym + ")";
    }
    return status(errc::failed_precondition, std::move(msg));
  }
  // A recording that can still make a graph reads the wasm's witness through a small buffer and
  // keeps only its digest: the witness is written by the graph's replay, once the instance and the
  // recorder are gone, and must have that digest. So the witness is never held beside the linear
  // memory, the recorder's marks and its nodes (docs/witness.md, 'Peak memory of the recording').
  if (recorder && recorder->may_finish() && a.take_log(w.get(), nullptr, 0) == 0) {
    std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> digest(XXH3_createState(), &XXH3_freeState);
    if (!digest) return status(errc::resource_exhausted, source_ + ": out of memory digesting the witness");
    XXH3_128bits_reset(digest.get());
    constexpr uint32_t chunk_wires = 4096;
    std::vector<uint32_t> chunk(std::size_t{std::min(chunk_wires, witness_size_)} * n32);
    for (uint32_t first = 0; first < witness_size_; first += chunk_wires) {
      const uint32_t count = std::min(chunk_wires, witness_size_ - first);
      if (a.values(w.get(), first, chunk.data(), count, n32) != 0) return failed("reading the witness");
      XXH3_128bits_update(digest.get(), chunk.data(), std::size_t{count} * n32 * sizeof(uint32_t));
    }
    const XXH128_hash_t wasm_digest = XXH3_128bits_digest(digest.get());
    a.trace(w.get(), nullptr);
    w.reset();
    end.open = false;
    result<witness_graph> g = recorder->finish();
    recorder.reset();  // its nodes: the graph holds what the replay needs
    // The nodes (24 MB of small blocks for the benchmark circuit) and the making of the program
    // were in the heap, whose free pages glibc gives back only past a threshold that an earlier
    // large free raises (the compile before a first calculation): given back before the witness.
    ::malloc_trim(0);
    if (!g) {
      recorded(std::move(g));
      return calculate_by_wasm(inputs, input_source, limits, false);  // rare: a wire never read
    }
    auto replayed = calculate_by_graph(*g, inputs, limits);
    if (!replayed && (replayed.error().code() == errc::cancelled || replayed.error().code() == errc::deadline_exceeded)) {
      recorded(status(errc::cancelled, "the recording calculation did not finish"));
      return replayed.error();
    }
    if (replayed && *replayed) {
      if (limits.replay_of_recording) limits.replay_of_recording((**replayed).words());
      std::span<const uint32_t> words = std::as_const(**replayed).words();
      const XXH128_hash_t graph_digest = XXH3_128bits(words.data(), words.size_bytes());
      if (XXH128_isEqual(graph_digest, wasm_digest)) {
        recorded(std::move(g));
        calculated_witness out_of_graph = std::move(**replayed);
        out_of_graph.by_graph = false;  // the wasm's witness: written by the replay, checked by its digest
        return out_of_graph;
      }
    }
    if (!replayed) {
      recorded(status(errc::internal, replayed.error().message()));  // the next calculation records again
    } else {
      // A graph whose replay of its own recording is not the wasm's witness is never used.
      recorded(status(errc::failed_precondition, "its replay of the recorded calculation is not the wasm's witness"));
    }
    return calculate_by_wasm(inputs, input_source, limits, false);
  }
  auto room = formats::wtns_with_room(prime_bytes(prime_), witness_size_);
  if (!room) return room.error();
  out.wires = witness_size_;
  out.wtns = std::move(*room);
  if (a.values(w.get(), 0, out.words().data(), witness_size_, n32) != 0) return failed("reading the witness");
  out.log = take_log(a, w.get());
  if (recorder) {
    a.trace(w.get(), nullptr);
    w.reset();  // the graph is made from the trace alone: the instance's memory goes first
    end.open = false;
    // A circuit that logs prints on every calculation, which a replay would not.
    recorded(out.log.empty() ? recorder->finish()
                             : result<witness_graph>(status(errc::failed_precondition, "the circuit's witness code logs")));
  }
  return out;
}

}  // namespace cuzk::witness
