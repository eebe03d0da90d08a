// bundle.mlir: the only record of which OpSpec position runs which SDSC file.
#pragma once

#include "sdscprov/core/file_size.hpp"
#include "sdscprov/core/problem.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sdscprov {

struct BundleOrder {
    // The sdsc_filename of each sdsc_execute, in OpSpec order (depth first). With SDSC
    // de-duplication a file name appears more than once.
    std::vector<std::string> files;
    // The spec path of each sdsc_execute (parallel to files): [i] for the i-th item of the
    // bundle, [i, j] for the j-th inside the i-th when that item is an scf.for loop (a LoopSpec),
    // and so on. Items are sdsc_execute operations and scf.for loops.
    std::vector<std::vector<std::uint64_t>> spec_paths;
};

struct BundleReadResult {
    std::optional<BundleOrder> order;
    std::vector<Problem> problems;
};

BundleReadResult parse_bundle(const std::string& path, std::string_view text);
// Reads a regular file of at most `max_size` bytes (--max-file-size): a fifo, a device or a huge
// sparse file named bundle.mlir is refused before a byte of it is read. With `dir_fd` (the kernel
// directory held open), opened there by the path's last name instead of by the path.
BundleReadResult read_bundle(const std::string& path,
                             std::uint64_t max_size = default_max_file_size, int dir_fd = -1);

} // namespace sdscprov
