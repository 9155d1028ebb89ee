// SPDX-License-Identifier: MIT OR Apache-2.0
// Long steps of a subcommand, shown while they run and timed for --verbose.
//
// On a terminal (stderr is a TTY and TERM is not "dumb") a running step shows one live line,
// "cuzk: proving (bn254, 2^17) ... 3.4 s", redrawn five times a second by a helper thread and
// erased when the step ends, so the shell prompt comes back clean. Anywhere else (a pipe, a log,
// CI) nothing is drawn: a redrawn line would only be noise there.
//
// With --verbose every step (and every phase timed elsewhere, such as the prover's own) prints one
// plain line on stderr when it ends, "  synthesis        0.031 s", and finish() prints the total,
// so the same text reaches a terminal and a log. Without --verbose only errors are printed, as
// rapidsnark and snarkjs do.
//
// Thread safety: one reporter per command, used from the main thread.
#pragma once

#include <chrono>
#include <string>
#include <utility>

namespace cuzk::apps {

class step_reporter {
 public:
  explicit step_reporter(bool verbose);

  bool verbose() const noexcept { return verbose_; }

  // A header line (verbose only): "cuzk prove: bn254, nVars 65,662, ...".
  void note(const std::string& line) const;

  // Runs body() with the live line "label" on a terminal; prints its time when verbose. Returns
  // what body returns.
  template <class F>
  decltype(auto) step(const std::string& label, F&& body) {
    const auto start = std::chrono::steady_clock::now();
    live_line line(label);
    struct on_exit {
      step_reporter* self;
      const std::string* label;
      std::chrono::steady_clock::time_point start;
      live_line* line;
      ~on_exit() {
        line->stop();
        self->phase(*label, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      }
    } done{this, &label, start, &line};
    return std::forward<F>(body)();
  }

  // A phase timed elsewhere, printed when verbose (indented one more level with `sub`).
  void phase(const std::string& label, double seconds, bool sub = false) const;

  // "  total  1.234 s" since construction, then the process's peak resident memory ("peak memory
  // (this process)  155.8 MB", its own: not a child's, such as the C compiler of a witness
  // generator's first compile), when verbose.
  void finish() const;

  // Is stderr a terminal that can redraw a line?
  static bool stderr_is_terminal();

 private:
  // The redrawn line of one step; does nothing off a terminal.
  class live_line {
   public:
    explicit live_line(const std::string& label);
    ~live_line();
    live_line(const live_line&) = delete;
    live_line& operator=(const live_line&) = delete;
    void stop();

   private:
    struct state;
    state* s_ = nullptr;
  };

  bool verbose_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace cuzk::apps
