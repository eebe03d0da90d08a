// Several traces in one report: the ranks of a multi-card run, or a fleet's traces profiled one
// by one (a job runner's shards). Each trace is profiled on its own (ProfileBuilder: never two
// traces' events at once); their reports are then added up into one, which holds the sum of every
// row and bundle and each trace's share of it (rank_ns). `profile T1 T2 ...` and `sdscprov merge`
// of the single-trace JSON reports both build their report here, so they give the same bytes.
// docs/profile.md describes the rules.
#pragma once

#include "sdscprov/core/problem.hpp"
#include "sdscprov/profile/profile.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sdscprov {

// A digest of what a run pairs events with: the sidecars' bundle identities and handles, the
// caches' handles and the names of the kernel directories holding them (not where the caches
// are). Two runs over copies of one compile's caches have the same digest.
std::string pairing_digest(const PairingSources& sources);

// The reports of several traces (each of one trace or already of several) as one. Ranks are
// numbered by distributedInfo.rank when every trace has one and no two share it (and ordered by
// it), else by their position in `reports` (ranks_by_argument). nullopt, with `refusal` set (a
// merge-refused problem of no one input, its message naming the traces), when the reports were
// paired against other sources (sources_digest) or at another core clock. A single trace's
// report comes back as it is.
std::optional<ProfileReport> merge_profiles(std::vector<ProfileReport> reports,
                                            std::optional<Problem>& refusal);

// The ranks of a row, bundle or report: which one took longest, the longest and shortest times,
// and their ratio (nullopt when the shortest is 0).
struct RankSpread {
    std::size_t slowest = 0; // index into ProfileReport::ranks
    std::size_t fastest = 0;
    std::uint64_t max_ns = 0;
    std::uint64_t min_ns = 0;
    std::optional<double> ratio; // max / min
    std::uint64_t lead_ns() const { return max_ns - min_ns; }
};
RankSpread rank_spread(const std::vector<std::uint64_t>& rank_ns);

// The per-rank device time of the whole report (each rank's kernel_ns).
std::vector<std::uint64_t> rank_totals(const ProfileReport& report);

} // namespace sdscprov
