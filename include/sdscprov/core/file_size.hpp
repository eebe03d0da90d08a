// The size limit of every file sdscprov reads (--max-file-size): SDSC files, bundle.mlir and the
// sidecars. A larger file is refused by its size before a byte of it is read, so that memory stays
// bounded by the limit (a file read costs about 1.5 times its size, a sidecar parsed a few times).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sdscprov {

inline constexpr std::uint64_t default_max_file_size = std::uint64_t{1} << 30; // 1 GiB

// The limit as given on the command line: decimal digits only (no sign, no unit), at most the
// largest file size there can be (2^63-1). nullopt with a message in `error` otherwise (the
// option's name not included): "-1" or a number past 64 bits would wrap around to a limit that is
// no limit.
std::optional<std::uint64_t> parse_max_file_size(std::string_view text, std::string& error);

} // namespace sdscprov
