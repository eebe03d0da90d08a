// Internal: reading a whole file that is not an SDSC file (bundle.mlir, a sidecar, a source file
// explain shows) the way the scanner reads SDSC files: opened without blocking (a fifo has no
// writer to wait for), regular files only, refused by size before a byte is read.
#pragma once

#include "sdscprov/core/problem.hpp"

#include <cstdint>
#include <optional>
#include <simdjson.h>
#include <string>
#include <string_view>
#include <sys/types.h>

namespace sdscprov::detail {

// "is a fifo, not a regular file" and the like, for a file of mode `mode` that is not regular.
const char* not_regular_message(mode_t mode);

// Reads `path` (links followed) into a buffer followed by simdjson::SIMDJSON_PADDING readable
// bytes. On failure nullopt and `problem`: io-error ("cannot read <what>: ..."),
// not-a-regular-file, or file-too-large when it has more than `max_size` bytes (--max-file-size).
// With `dir_fd` (a directory held open), the file is opened there by the path's last name.
std::optional<simdjson::padded_string> read_whole_file(const std::string& path,
                                                       std::uint64_t max_size,
                                                       std::string_view what, Problem& problem,
                                                       int dir_fd = -1);

// The same for a file already opened (O_NONBLOCK, so that a fifo did not block the open), `path`
// naming it in the problem; `fd` is closed in every case.
std::optional<simdjson::padded_string> read_open_file(int fd, const std::string& path,
                                                      std::uint64_t max_size, std::string_view what,
                                                      Problem& problem);

} // namespace sdscprov::detail
