// Shards: a deterministic share of a run's kernel directories, so that one cache can be processed
// by several jobs (a CI matrix) whose JSON reports `sdscprov merge` puts back together into the
// bytes a single run would have printed (merge.hpp, docs/report-json.md "Shards").
//
// The rule: a kernel directory belongs to shard I of N (I is 1-based, 1..N) when
// fnv1a64(path) % N == I - 1, where `path` is the directory's path exactly as the JSON report's
// `dir` gives it (as reached from the command-line argument: no normalisation, no realpath). A
// walk problem (an argument that does not exist, a directory that cannot be read) goes by its own
// path the same way. FNV-1a 64 is fixed here, not std::hash: the shard of a path is the same on
// every machine, build and run.
//
// Every shard walks the whole tree (directories only, which is cheap) and keeps its own kernel
// directories, so that all shards agree on the walk's order: each kernel directory and each walk
// problem gets its position in that order, and merge sorts by it.
#pragma once

#include "sdscprov/walk/discover.hpp"
#include "sdscprov/core/problem.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sdscprov {

struct Shard {
    std::uint32_t index = 1; // 1-based: 1..count
    std::uint32_t count = 1;
};

// Shard I of N, given 1 <= I <= N <= 1,000,000; nullopt with `why` set (a sentence saying what
// is wrong) otherwise. The command line's `--shard I/N` reads I and N as plain decimal numbers
// first (cli/options.hpp).
std::optional<Shard> make_shard(std::uint64_t index, std::uint64_t count, std::string& why);
std::string to_string(const Shard& shard); // "I/N"

// FNV-1a, 64 bits (offset basis 0xcbf29ce484222325, prime 0x100000001b3), over the bytes.
std::uint64_t fnv1a64(std::string_view bytes);

// The 1-based shard of `path` among `count` shards.
std::uint32_t shard_of(std::string_view path, std::uint32_t count);

// What a sharded run saw of the whole walk, for its report (Totals::shard).
struct ShardWalk {
    Shard shard;
    std::uint64_t positions = 0; // kernel directories and walk problems of the whole walk
    std::uint64_t kernels = 0;   // kernel directories of this shard
    std::vector<std::uint64_t> problem_positions; // this shard's walk problems, in order
};

// Numbers what a kernel source gives (kernel directories and walk problems, in its order) and
// keeps this shard's: run_pipeline filters its source through one when PipelineOptions::shard is
// set. Used by one thread at a time.
class ShardFilter {
public:
    explicit ShardFilter(Shard shard) { walk_.shard = shard; }
    // Sets dir.position; true when the directory is this shard's.
    bool keep(KernelDir& dir);
    bool keep(const Problem& walk_problem);
    const ShardWalk& walk() const { return walk_; }

private:
    ShardWalk walk_;
};

// Where a problem of a sharded run's list stands in the whole run's list.
enum class ProblemScope {
    run,    // the run's own, before any walk problem (annotate's origins maps): in every shard
    walk,   // reported by the walk, at its own position
    kernel, // a kernel directory's (its files', joining, writing), at the directory's position
};
std::string_view to_string(ProblemScope scope); // "run", "walk", "kernel"

struct ProblemPlace {
    ProblemScope scope = ProblemScope::run;
    std::uint64_t position = 0; // meaningless for ProblemScope::run
};

// A delivered kernel directory: its position and how many problems the pipeline listed for it.
struct PlacedKernel {
    std::uint64_t position = 0;
    std::size_t problems = 0;
};

// The places of a sharded run's `problems` problems, listed as run_pipeline lists them: the run's
// own first, then in walk order each walk problem before the first kernel directory that comes
// after it, each kernel directory's problems in a row. `kernels`: in delivery order. Throws
// std::logic_error when the counts do not add up (a bug, not bad input).
std::vector<ProblemPlace> place_problems(const ShardWalk& walk,
                                         const std::vector<PlacedKernel>& kernels,
                                         std::size_t problems);

} // namespace sdscprov
