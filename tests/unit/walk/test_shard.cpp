// Shards: I of N checked, the FNV-1a 64 rule, numbering the walk, placing problems, and a sharded
// pipeline whose shards are disjoint and cover the whole walk in its order.
#include "sdscprov/commands/pipeline.hpp"
#include "sdscprov/walk/shard.hpp"
#include "temp_dir.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>

using namespace sdscprov;
namespace fs = std::filesystem;

TEST_CASE("shard: I of N is 1-based, anything else is refused with a reason") {
    struct Good {
        std::uint64_t index;
        std::uint64_t count;
    };
    for (const auto& c : {Good{1, 3}, Good{3, 3}, Good{1, 1}, Good{7, 1000000}}) {
        CAPTURE(c.index);
        CAPTURE(c.count);
        std::string why;
        auto shard = make_shard(c.index, c.count, why);
        REQUIRE(shard);
        CHECK(shard->index == c.index);
        CHECK(shard->count == c.count);
        CHECK(why.empty());
    }
    struct Bad {
        std::uint64_t index;
        std::uint64_t count;
        const char* reason;
    };
    const Bad bad[] = {
        {0, 3, "I must be from 1 to 3 (shards are numbered from 1)"},
        {4, 3, "I must be from 1 to 3 (shards are numbered from 1)"},
        {1, 0, "N must be at least 1"},
        {0, 0, "N must be at least 1"},
        {1, 1000001, "N must be at most 1000000"},
        {1, std::uint64_t{1} << 32, "N must be at most 1000000"}, // not cut to 32 bits
        {std::uint64_t{1} << 32, 3, "I must be from 1 to 3 (shards are numbered from 1)"},
    };
    for (const auto& c : bad) {
        CAPTURE(c.index);
        CAPTURE(c.count);
        std::string why;
        CHECK_FALSE(make_shard(c.index, c.count, why));
        CHECK(why == c.reason);
    }
    CHECK(to_string(Shard{2, 5}) == "2/5");
}

TEST_CASE("shard: FNV-1a 64 test vectors, and the shard of a path") {
    // The published FNV-1a 64 vectors (offset basis for the empty string).
    CHECK(fnv1a64("") == 0xcbf29ce484222325ULL);
    CHECK(fnv1a64("a") == 0xaf63dc4c8601ec8cULL);
    CHECK(fnv1a64("foobar") == 0x85944171f73967e8ULL);
    // The same path in every run and on every machine: computed independently (Python).
    const std::string path = "cache/inductor-spyre/sdsc_fused_add_0_abcdefgh";
    CHECK(fnv1a64(path) == 0x11dfffa07b10a086ULL);
    CHECK(shard_of(path, 3) == 3);
    CHECK(shard_of("foobar", 3) == 1);
    CHECK(shard_of("a", 3) == 2);
    // Bytes as they are: no normalisation of "./" or a trailing slash.
    CHECK(fnv1a64("./" + path) != fnv1a64(path));
    CHECK(fnv1a64(path + "/") != fnv1a64(path));
}

TEST_CASE("shard: every path is in exactly one shard, and the shards share the paths out") {
    std::map<std::uint32_t, int> per_shard;
    for (int k = 0; k < 3000; ++k) {
        std::string path = "cache/inductor-spyre/sdsc_fused_k" + std::to_string(k) + "_abcdefgh";
        CHECK(shard_of(path, 1) == 1);
        auto s = shard_of(path, 3);
        REQUIRE(s >= 1);
        REQUIRE(s <= 3);
        ++per_shard[s];
        int holders = 0;
        for (std::uint32_t i = 1; i <= 3; ++i) {
            KernelDir dir;
            dir.path = path;
            ShardFilter filter({i, 3});
            holders += filter.keep(dir) ? 1 : 0;
        }
        CHECK(holders == 1);
    }
    REQUIRE(per_shard.size() == 3);
    for (const auto& entry : per_shard) {
        CAPTURE(entry.first);      // not a structured binding: clang before 16 cannot capture one
        CHECK(entry.second > 800); // 1000 expected each: a hash, not a bias to one shard
    }
}

TEST_CASE("shard: the filter numbers kernel directories and walk problems in the source order") {
    // Pick paths by their shard among 2, so that the test does not depend on luck.
    std::vector<std::string> in_1;
    std::vector<std::string> in_2;
    for (int k = 0; in_1.size() < 3 || in_2.size() < 3; ++k) {
        std::string path = "d" + std::to_string(k);
        (shard_of(path, 2) == 1 ? in_1 : in_2).push_back(path);
    }
    ShardFilter filter({1, 2});
    KernelDir a;
    a.path = in_1[0];
    KernelDir b;
    b.path = in_2[0];
    KernelDir c;
    c.path = in_1[1];
    CHECK(filter.keep(a));
    CHECK_FALSE(filter.keep(make_problem(in_2[1], {}, ProblemCode::bad_argument, "x")));
    CHECK_FALSE(filter.keep(b));
    CHECK(filter.keep(make_problem(in_1[2], {}, ProblemCode::io_error, "x")));
    CHECK(filter.keep(c));
    CHECK(a.position == 0);
    CHECK(b.position == 2);
    CHECK(c.position == 4);
    const auto& walk = filter.walk();
    CHECK(walk.positions == 5);
    CHECK(walk.kernels == 2);
    CHECK(walk.problem_positions == std::vector<std::uint64_t>{3});
}

TEST_CASE("shard: problems are placed as the pipeline lists them") {
    ShardWalk walk;
    walk.shard = {2, 3};
    walk.positions = 20;
    walk.problem_positions = {0, 4, 5, 19};
    // Kernels at 3 (2 problems), 7 (none), 12 (1); two run problems first.
    std::vector<PlacedKernel> kernels = {{3, 2}, {7, 0}, {12, 1}};
    auto places = place_problems(walk, kernels, 2 + 4 + 3);
    std::vector<std::pair<ProblemScope, std::uint64_t>> got;
    for (const auto& p : places) {
        got.emplace_back(p.scope, p.scope == ProblemScope::run ? 0 : p.position);
    }
    using S = ProblemScope;
    std::vector<std::pair<ProblemScope, std::uint64_t>> want = {
        {S::run, 0},  {S::run, 0},  {S::walk, 0},    {S::kernel, 3}, {S::kernel, 3},
        {S::walk, 4}, {S::walk, 5}, {S::kernel, 12}, {S::walk, 19}};
    CHECK(got == want);
    CHECK(to_string(ProblemScope::walk) == "walk");
    CHECK_THROWS_AS(place_problems(walk, kernels, 6), std::logic_error);
}

namespace {

struct Tree : test::TempDir {
    Tree() : test::TempDir("sdscprov-shard") {
        for (int k = 0; k < 60; ++k) {
            std::string dir = (k % 2 ? "inductor-spyre/sdsc_fused_k" : "other/sub/sdsc_fused_k") +
                              std::to_string(k) + "_0_abcdefgh/";
            for (int i = 0; i <= k % 3; ++i) {
                file(dir + "sdsc_" + std::to_string(i) + ".json",
                     k % 7 == 0 && i == 0
                         ? std::string("{\"0_add\": {")
                         : "{\"" + std::to_string(i) + "_add\": {\"debug_handle_\": null}}");
            }
        }
    }
};

struct Seen {
    std::vector<std::string> dirs;
    std::vector<std::uint64_t> positions;
    PipelineResult result;
};

Seen run(const std::vector<std::string>& roots, std::optional<Shard> shard, unsigned jobs) {
    PipelineOptions options;
    options.jobs = jobs;
    options.shard = shard;
    Seen seen;
    seen.result =
        run_pipeline(discover_source(roots, {}), options, scan_kernel, [&](const KernelReport& k) {
            seen.dirs.push_back(k.dir.path);
            seen.positions.push_back(k.dir.position.value_or(UINT64_MAX));
        });
    return seen;
}

} // namespace

TEST_CASE("shard: a sharded pipeline keeps its share of the walk, numbered in the walk's order") {
    Tree t;
    std::vector<std::string> roots = {(t.root / "missing").string(), t.root.string(),
                                      (t.root / "gone").string()};
    Seen whole = run(roots, std::nullopt, 2);
    REQUIRE(whole.dirs.size() == 60);
    CHECK_FALSE(whole.result.totals.shard);
    CHECK(whole.positions == std::vector<std::uint64_t>(60, UINT64_MAX)); // no positions unsharded

    std::map<std::uint64_t, std::string> by_position;
    std::set<std::uint64_t> problem_positions;
    std::uint64_t files = 0;
    for (std::uint32_t i = 1; i <= 3; ++i) {
        CAPTURE(i);
        Seen part = run(roots, Shard{i, 3}, i); // the number of workers does not matter
        REQUIRE(part.result.totals.shard);
        const auto& walk = *part.result.totals.shard;
        CHECK(walk.positions == 62); // 60 directories and the two missing roots
        CHECK(walk.kernels == part.dirs.size());
        CHECK(part.result.totals.kernels == part.dirs.size());
        for (std::size_t k = 0; k < part.dirs.size(); ++k) {
            CHECK(shard_of(part.dirs[k], 3) == i);
            CHECK(by_position.emplace(part.positions[k], part.dirs[k]).second); // disjoint
        }
        for (auto p : walk.problem_positions) {
            CHECK(problem_positions.insert(p).second);
        }
        files += part.result.totals.counts.files;
    }
    CHECK(problem_positions == std::set<std::uint64_t>{0, 61});
    // Together the shards are the whole walk, and positions give its order.
    std::vector<std::string> merged;
    for (const auto& [position, dir] : by_position) {
        merged.push_back(dir);
    }
    CHECK(merged == whole.dirs);
    CHECK(by_position.begin()->first == 1);
    CHECK(by_position.rbegin()->first == 60);
    CHECK(files == whole.result.totals.counts.files);
}
