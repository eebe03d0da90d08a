#include "sdscprov/walk/shard.hpp"

#include <stdexcept>

namespace sdscprov {

namespace {

constexpr std::uint64_t max_shards = 1'000'000;

} // namespace

std::optional<Shard> make_shard(std::uint64_t index, std::uint64_t count, std::string& why) {
    if (count == 0) {
        why = "N must be at least 1";
    } else if (count > max_shards) {
        why = "N must be at most " + std::to_string(max_shards);
    } else if (index == 0 || index > count) {
        why = "I must be from 1 to " + std::to_string(count) + " (shards are numbered from 1)";
    } else {
        return Shard{static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(count)};
    }
    return std::nullopt;
}

std::string to_string(const Shard& shard) {
    return std::to_string(shard.index) + "/" + std::to_string(shard.count);
}

std::uint64_t fnv1a64(std::string_view bytes) {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : bytes) {
        h ^= c;
        h *= 0x100000001b3ULL;
    }
    return h;
}

std::uint32_t shard_of(std::string_view path, std::uint32_t count) {
    return static_cast<std::uint32_t>(fnv1a64(path) % count) + 1;
}

bool ShardFilter::keep(KernelDir& dir) {
    dir.position = walk_.positions++;
    if (shard_of(dir.path, walk_.shard.count) != walk_.shard.index) {
        return false;
    }
    ++walk_.kernels;
    return true;
}

bool ShardFilter::keep(const Problem& walk_problem) {
    std::uint64_t position = walk_.positions++;
    if (shard_of(walk_problem.path, walk_.shard.count) != walk_.shard.index) {
        return false;
    }
    walk_.problem_positions.push_back(position);
    return true;
}

std::string_view to_string(ProblemScope scope) {
    switch (scope) {
    case ProblemScope::run:
        return "run";
    case ProblemScope::walk:
        return "walk";
    case ProblemScope::kernel:
        return "kernel";
    }
    return "run";
}

std::vector<ProblemPlace> place_problems(const ShardWalk& walk,
                                         const std::vector<PlacedKernel>& kernels,
                                         std::size_t problems) {
    std::size_t listed = walk.problem_positions.size();
    for (const auto& k : kernels) {
        listed += k.problems;
    }
    if (listed > problems) {
        throw std::logic_error("place_problems: more walk and kernel problems than problems");
    }
    std::vector<ProblemPlace> places;
    places.reserve(problems);
    places.resize(problems - listed, ProblemPlace{ProblemScope::run, 0});
    const auto& walked = walk.problem_positions;
    std::size_t w = 0;
    for (const auto& k : kernels) {
        for (; w < walked.size() && walked[w] < k.position; ++w) {
            places.push_back({ProblemScope::walk, walked[w]});
        }
        places.insert(places.end(), k.problems, ProblemPlace{ProblemScope::kernel, k.position});
    }
    for (; w < walked.size(); ++w) {
        places.push_back({ProblemScope::walk, walked[w]});
    }
    return places;
}

} // namespace sdscprov
