// SPDX-License-Identifier: MIT OR Apache-2.0
#include "apps/progress.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

namespace cuzk::apps {

namespace {
// Wide enough for "write proof.json and public.json".
constexpr int label_width = 34;
}  // namespace

struct step_reporter::live_line::state {
  std::string label;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::thread thread;

  void draw() const {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // \r and "erase to end of line" (ECMA-48 EL): redraw in place.
    std::fprintf(stderr, "\r\033[Kcuzk: %s ... %.1f s", label.c_str(), s);
    std::fflush(stderr);
  }
  void run() {
    std::unique_lock lock(m);
    // Short steps never draw: the first frame comes after 300 ms.
    if (cv.wait_for(lock, std::chrono::milliseconds(300), [&] { return done; })) return;
    while (!done) {
      draw();
      cv.wait_for(lock, std::chrono::milliseconds(200), [&] { return done; });
    }
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
  }
};

step_reporter::live_line::live_line(const std::string& label) {
  if (!stderr_is_terminal()) return;
  s_ = new state;
  s_->label = label;
  s_->thread = std::thread([s = s_] { s->run(); });
}

void step_reporter::live_line::stop() {
  if (s_ == nullptr) return;
  {
    std::lock_guard lock(s_->m);
    s_->done = true;
  }
  s_->cv.notify_one();
  s_->thread.join();
  delete s_;
  s_ = nullptr;
}

step_reporter::live_line::~live_line() { stop(); }

step_reporter::step_reporter(bool verbose) : verbose_(verbose), start_(std::chrono::steady_clock::now()) {}

bool step_reporter::stderr_is_terminal() {
  if (isatty(STDERR_FILENO) == 0) return false;
  const char* term = std::getenv("TERM");
  return term == nullptr || std::strcmp(term, "dumb") != 0;
}

void step_reporter::note(const std::string& line) const {
  if (verbose_) std::fprintf(stderr, "%s\n", line.c_str());
}

void step_reporter::phase(const std::string& label, double seconds, bool sub) const {
  if (!verbose_) return;
  std::fprintf(stderr, "%s%-*s %9.3f s\n", sub ? "    " : "  ", sub ? label_width - 2 : label_width, label.c_str(),
               seconds);
}

void step_reporter::finish() const {
  if (!verbose_) return;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::fprintf(stderr, "  %-*s %9.3f s\n", label_width, "total", s);
  rusage self{};
  if (::getrusage(RUSAGE_SELF, &self) == 0)
    std::fprintf(stderr, "  %-*s %9.1f MB\n", label_width, "peak memory (this process)", static_cast<double>(self.ru_maxrss) / 1024);
}

}  // namespace cuzk::apps
