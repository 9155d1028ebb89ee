// SPDX-License-Identifier: MIT OR Apache-2.0
// Huge-page advice for bulk_array (see bulk_array.hpp).
#include "base/bulk_array.hpp"

#include <sys/mman.h>

namespace cuzk {

void advise_huge_pages(void* p, std::size_t bytes) noexcept {
  // Advice only: EINVAL where THP is not built in, and nothing to do about it.
  (void)::madvise(p, bytes, MADV_HUGEPAGE);
}

}  // namespace cuzk
