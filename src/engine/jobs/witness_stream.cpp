// SPDX-License-Identifier: MIT OR Apache-2.0
// The threads behind witness_stream.hpp.
#include "engine/jobs/witness_stream.hpp"

#include <algorithm>
#include <exception>
#include <new>
#include <string>
#include <utility>

#include "base/in_order_async.hpp"

namespace cuzk::engine {

witness_stream::witness_stream(std::size_t count, std::size_t at_once, read_fn read, on_driver_fn on_driver,
                               std::shared_ptr<reads_ended> after)
    : read_(std::move(read)), slots_(count) {
  if (count == 0) {
    ended_->count_down();
    return;
  }
  try {
    // `after` copied, not moved: the fallback below still needs it if no thread can be started.
    driver_ = std::jthread([this, at_once, on_driver = std::move(on_driver), after] { drive(at_once, on_driver, after); });
  } catch (const std::system_error&) {  // no thread to be had: read them here, in turn
    drive(1, [](std::size_t) { return true; }, after);
  }
}

witness_stream::~witness_stream() {
  {
    std::lock_guard lk(m_);
    stopping_ = true;
  }
  if (driver_.joinable()) driver_.join();
}

result<any_witness> witness_stream::read_or_skip(std::size_t p) {
  {
    std::lock_guard lk(m_);
    if (stopping_ || failed_at_ < p)
      return status(errc::cancelled, "witness " + std::to_string(p) +
                                         " of the batch: not read: an earlier one failed or the batch ended");
  }
  try {
    return read_(p);
  } catch (const std::bad_alloc&) {
    return status(errc::resource_exhausted, "witness " + std::to_string(p) + " of the batch: out of memory");
  } catch (const std::exception& e) {
    return status(errc::internal, "witness " + std::to_string(p) + " of the batch: " + e.what());
  }
}

void witness_stream::drive(std::size_t at_once, const on_driver_fn& on_driver,
                           const std::shared_ptr<reads_ended>& after) {
  if (after) after->wait();
  in_order_async<bool>(
      slots_.size(), at_once,
      [this](std::size_t p) {
        publish(p, read_or_skip(p));
        return true;
      },
      on_driver);
  // The read function's captures (the job's state) go with the reads.
  read_ = nullptr;
  ended_->count_down();
}

void witness_stream::publish(std::size_t p, result<any_witness> got) {
  std::lock_guard lk(m_);
  if (!got && p < failed_at_) failed_at_ = p;
  slots_[p].emplace(std::move(got));
  done_.notify_all();
}

result<const any_witness*> witness_stream::wait(std::size_t p) {
  if (p >= slots_.size())
    return status(errc::out_of_range, "witness stream: no partition " + std::to_string(p) + " in a batch of " +
                                          std::to_string(slots_.size()));
  std::unique_lock lk(m_);
  done_.wait(lk, [&] { return slots_[p].has_value(); });
  const auto& got = *slots_[p];
  if (!got) {
    handed_out_ = std::min(handed_out_, p);
    return got.error();
  }
  return &*got;
}

bool witness_stream::ready(std::size_t p) const {
  std::lock_guard lk(m_);
  return p < slots_.size() && slots_[p].has_value();
}

status witness_stream::first_failure() const {
  std::lock_guard lk(m_);
  if (failed_at_ == SIZE_MAX) return status::ok();
  return slots_[failed_at_]->error();
}

status witness_stream::handed_out_failure() const {
  std::lock_guard lk(m_);
  if (handed_out_ == SIZE_MAX) return status::ok();
  return slots_[handed_out_]->error();
}

status witness_stream::wait_all() {
  for (std::size_t p = 0; p < slots_.size(); ++p)
    if (auto w = wait(p); !w) return first_failure();
  return status::ok();
}

}  // namespace cuzk::engine
