// SPDX-License-Identifier: MIT OR Apache-2.0
// The output files of one command, checked before any work is done and written together.
//
// A command with two outputs (prove: proof.json and public.json; setup: the zkey and the
// verification key) must not leave one written when the other fails: a proof.json beside the
// public.json of an earlier run verifies against nothing the user asked for. So every output is
// first written to a temporary file in its own folder (a rename across folders is not atomic), and
// only once all of them are complete are they renamed over their destinations, in order. The
// renames, in folders already shown writable, are the only step that can still fail part-way.
//
// What an output path may not be, refused before anything is written:
//   - a symbolic link or anything but a regular file (a device, a FIFO, a directory): renaming over
//     it would replace the link or the node by a regular file, not write where it points. Refusing
//     is the clear choice; writing through a link or into /dev/stdout is not atomic and cannot be
//     undone when the other output fails;
//   - the same file as another output (proof and public given one path: one overwrites the other);
//   - the same file as an input (proof path = the zkey: the key is destroyed).
// "The same file" compares the paths with symbolic links and ".." resolved, and for files that exist
// their device and inode (a hard link is the same file).
//
// Thread safety: a value owned by one thread.
#pragma once

#include <string>
#include <vector>

#include "base/result.hpp"

namespace cuzk::formats {

// A path with what it is for in messages ("the proof output", "the zkey input").
struct named_path {
  std::string role;
  std::string path;
};

class output_files {
 public:
  // invalid_argument naming the path and its role for the refusals above; io_error naming the path
  // when no temporary file can be made beside it.
  static result<output_files> prepare(const std::vector<named_path>& outputs,
                                      const std::vector<named_path>& inputs);
  output_files(output_files&& o) noexcept;
  output_files& operator=(output_files&&) = delete;
  output_files(const output_files&) = delete;
  ~output_files();  // removes every temporary not renamed

  // Where output i is to be written. It exists (empty, mode 0600); a writer that replaces its target
  // atomically (write_file_atomically, binfile_writer) may be given it.
  const std::string& staging_path(std::size_t i) const { return tmp_.at(i); }
  // Renames every staged file over its destination.
  status commit();

 private:
  output_files() = default;
  std::vector<std::string> dest_, tmp_;
};

}  // namespace cuzk::formats
