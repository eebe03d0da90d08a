// Internal: reading a whole file that is not an SDSC file (bundle.mlir, a sidecar, a source file
// explain shows) the way the scanner reads SDSC files: opened without blocking (a fifo has no
// writer to wait for), regular files only, refused by size before a byte is read. Only an input
// the user names as such (merge's reports) may also be a stream: read_named_input().
#pragma once

#include "sdscprov/core/problem.hpp"
#include "sdscprov/core/stream_wait.hpp"

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

// An input named by the user: a regular file as read_whole_file() reads it, or a stream read to
// its end as cat reads it: a pipe or FIFO at `path` (`<(cat a.json)`), or standard input for "-"
// (whatever it is but a directory). A stream is waited on without a timeout, `wait.waiting` told
// once when nothing has come for `wait.after`; past `max_size` bytes it is refused
// (file-too-large), as a file is. Anything else (a device, a socket, a directory) is refused as
// read_whole_file() refuses it (not-a-regular-file).
std::optional<simdjson::padded_string> read_named_input(const std::string& path,
                                                        std::uint64_t max_size,
                                                        std::string_view what, Problem& problem,
                                                        const StreamWait& wait);

} // namespace sdscprov::detail
