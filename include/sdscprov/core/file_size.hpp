// The size limit of every file sdscprov reads (--max-file-size): SDSC files, bundle.mlir and the
// sidecars. A larger file is refused by its size before a byte of it is read, so that memory stays
// bounded by the limit (a file read costs about 1.5 times its size, a sidecar parsed a few times).
#pragma once

#include <cstdint>

namespace sdscprov {

inline constexpr std::uint64_t default_max_file_size = std::uint64_t{1} << 30; // 1 GiB

// The largest limit: the largest file size there can be (2^63-1, off_t's largest). The command
// line takes decimal digits up to it: "-1" or a number past 64 bits would wrap around to a limit
// that is no limit.
inline constexpr std::uint64_t largest_max_file_size = (std::uint64_t{1} << 63) - 1;

} // namespace sdscprov
