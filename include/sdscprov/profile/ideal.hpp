// The compiler's ideal cycles of a kernel: `perf/ideal_cycles.json` in its kernel directory, which
// the Spyre compiler writes when the compile ran with SENPERFORMANCE=2 (docs/ideal-cycles.md). The
// file is a JSON array of entries, each with `ideal_cycles` (a non-negative integer) and
// `op_category` (a string), other members allowed. Its exact shape follows the compiler build, so
// it is read tolerantly: an entry "TOTAL" gives the kernel's ideal when there is one, else the
// entries add up to it, and the result says which rule applied.
//
// A file that cannot be used is a warning (bad-ideal-cycles) at its path:line:col that leaves the
// kernel without an ideal; an absent file is neither a problem nor an ideal of zero: the ideal is
// unknown.
#pragma once

#include "sdscprov/core/file_size.hpp"
#include "sdscprov/core/problem.hpp"

#include <cstdint>
#include <optional>
#include <simdjson.h>
#include <string>
#include <string_view>
#include <vector>

namespace sdscprov {

// Where the file is, relative to its kernel directory.
inline constexpr std::string_view ideal_cycles_path = "perf/ideal_cycles.json";
// The entry whose cycles are the kernel's whole ideal (compared exactly, case included).
inline constexpr std::string_view ideal_total_category = "TOTAL";

// Which rule gave a kernel's ideal.
enum class IdealRule {
    total_entry,    // the one entry whose op_category is "TOTAL"
    sum_of_entries, // no such entry: the sum of every entry's cycles
};

std::string_view to_string(IdealRule rule); // "total", "sum"

struct KernelIdeal {
    std::uint64_t cycles = 0;
    IdealRule rule = IdealRule::total_entry;
    // The op_category of the entry with the most cycles, "TOTAL" aside (the first such entry in
    // the file on a tie); nullopt when the file holds only a TOTAL entry.
    std::optional<std::string> category;
    std::uint64_t entries = 0; // entries in the array, the TOTAL entry included
    // The entries' other member names (neither ideal_cycles nor op_category), each once, in the
    // order first met: what else this compiler build writes, for reports.
    std::vector<std::string> other_members;

    bool operator==(const KernelIdeal&) const = default;
};

// What a kernel directory's file gives: an ideal, a problem (a warning: the kernel has no ideal),
// or neither (no file: the ideal is unknown).
struct IdealCyclesRead {
    std::optional<KernelIdeal> ideal;
    std::optional<Problem> problem;

    bool absent() const { return !ideal && !problem; }
};

struct IdealReadOptions {
    std::uint64_t max_file_size = default_max_file_size; // --max-file-size
    // Read through a symbolic link at `perf` or at the file (--follow-symlinks); refused else.
    bool follow_symlinks = false;
};

// Reads ideal-cycles files, one after another, with one simdjson parser (one reader per thread).
class IdealCyclesReader {
public:
    // The file's bytes, already loaded (`path` names it in the problem). The whole document is
    // validated: a malformed file is refused whole, never read in part. A UTF-8 byte order mark
    // at the start is skipped.
    IdealCyclesRead parse(const std::string& path, std::string_view bytes);

    // <kernel_dir>/perf/ideal_cycles.json, read as every other file is: regular files only (a fifo
    // is refused without blocking), refused by size above `max_file_size` before a byte is read,
    // symbolic links on the way refused unless `follow_symlinks`. A missing `perf` directory or
    // file is absent(); any other failure to read is a bad-ideal-cycles warning.
    IdealCyclesRead read(const std::string& kernel_dir, const IdealReadOptions& options = {});

private:
    IdealCyclesRead parse_padded(const std::string& path, std::string_view padded_bytes);

    simdjson::dom::parser parser_;
};

// The core clock that turns cycles into time when none is given (MHz).
inline constexpr std::uint32_t default_core_mhz = 1100;

// Ideal time of `cycles` at `core_mhz`: cycles x 1000 / MHz nanoseconds, computed exactly in
// integers and rounded half up to the nanosecond; the largest uint64 when the result does not fit
// (and for a clock of 0, which the command line never gives).
std::uint64_t ideal_ns(std::uint64_t cycles, std::uint32_t core_mhz);

// The largest clock the command line takes (--core-mhz, whole MHz from 1).
inline constexpr std::uint32_t max_core_mhz = 1000000;

} // namespace sdscprov
