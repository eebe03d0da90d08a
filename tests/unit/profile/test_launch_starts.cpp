// The timeline's launch starts: each correlation's earliest start, whatever order the launches
// come in and the devices look them up in, against a std::map that keeps the same.
#include "profile/launch_starts.hpp"

#include <algorithm>
#include <doctest/doctest.h>
#include <map>
#include <random>
#include <vector>

using namespace sdscprov::launch_starts;

namespace {

struct Case {
    const char* name;
    std::vector<std::uint64_t> correlations; // in the order added
};

// Adds each (with a random start) to both, then looks every correlation (and some never added)
// up from `lanes` devices in turn, in the order added or in reverse, and checks each answer.
std::size_t check(const Case& c, std::uint64_t seed_value, int lanes, bool reverse) {
    std::mt19937_64 seed(seed_value);
    LaunchStarts starts;
    std::map<std::uint64_t, std::uint64_t> expected;
    for (std::uint64_t corr : c.correlations) {
        const std::uint64_t start = seed() % 1000000;
        starts.add(corr, start);
        if (corr == no_correlation) {
            continue;
        }
        auto [at, added] = expected.try_emplace(corr, start);
        if (!added) {
            at->second = std::min(at->second, start);
        }
    }
    std::vector<std::uint64_t> asked(c.correlations);
    for (std::uint64_t k = 0; k < 64; ++k) {
        asked.push_back(seed() % 5000); // mostly never added
    }
    if (reverse) {
        std::reverse(asked.begin(), asked.end());
    }
    std::size_t found = 0;
    for (std::size_t i = 0; i < asked.size(); ++i) {
        const std::uint64_t corr = asked[i];
        CAPTURE(corr);
        const auto it = expected.find(corr);
        const auto got = starts.find(corr, i % static_cast<std::size_t>(lanes));
        REQUIRE(got.has_value() == (it != expected.end()));
        if (got) {
            CHECK(*got == it->second);
            ++found;
        }
    }
    return found;
}

} // namespace

TEST_CASE("launch starts: each correlation's earliest start, in any order of launches and "
          "look-ups") {
    std::mt19937_64 seed(77);
    std::vector<Case> cases;
    Case in_turn{"in turn, each launch twice (a later one earlier)", {}};
    for (std::uint64_t k = 1; k <= 3000; ++k) {
        in_turn.correlations.push_back(k);
        in_turn.correlations.push_back(k);
    }
    cases.push_back(in_turn);
    Case gaps{"increasing with gaps, some again long after", {}};
    for (std::uint64_t k = 1; k <= 3000; ++k) {
        gaps.correlations.push_back(k * 3);
        if (k % 50 == 0) {
            gaps.correlations.push_back(k * 3 - 99); // again (3 (k - 33)), out of order
            gaps.correlations.push_back(k * 3 - 1);   // new, out of order
        }
    }
    cases.push_back(gaps);
    Case scrambled{"random", {}};
    for (int k = 0; k < 4000; ++k) {
        scrambled.correlations.push_back(seed() % 3000);
    }
    cases.push_back(scrambled);
    Case descending{"descending", {}};
    for (std::uint64_t k = 3000; k > 0; --k) {
        descending.correlations.push_back(k);
    }
    cases.push_back(descending);
    Case edges{"the largest numbers, and the one kept for none", {}};
    for (std::uint64_t k = 0; k < 100; ++k) {
        edges.correlations.push_back(no_correlation - 1 - k);
        edges.correlations.push_back(no_correlation);
        edges.correlations.push_back(k);
    }
    cases.push_back(edges);
    for (const Case& c : cases) {
        for (int lanes : {1, 2, 3, 9}) {
            for (bool reverse : {false, true}) {
                CAPTURE(c.name);
                CAPTURE(lanes);
                CAPTURE(reverse);
                CHECK(check(c, 1000 + static_cast<std::uint64_t>(lanes), lanes, reverse) > 100);
            }
        }
    }
    LaunchStarts none;
    CHECK_FALSE(none.find(1));
    none.add(no_correlation, 5); // not kept: no activity is looked up by it
    CHECK_FALSE(none.find(no_correlation));
    CHECK_FALSE(none.find(1));
}

// As the timeline uses them: launches come a little out of order (threads launching at once, as
// torch.profiler writes them), some twice, and devices look up the ones launched a little before
// while more come; a launch put in its place among the last ones moves the places the devices
// looked up last. Every answer is checked against a map of the earliest starts so far.
TEST_CASE("launch starts: launches a little out of order, looked up while more come") {
    for (std::uint64_t seed_value : {1, 2, 3}) {
        std::mt19937_64 seed(seed_value);
        std::vector<std::uint64_t> order;
        for (std::uint64_t k = 1; k <= 6000; ++k) {
            order.push_back(k);
        }
        // Each launch moved up to `jitter` places later (a swap with a near one), some far.
        const std::size_t jitter = seed_value == 3 ? 20 : 6;
        for (std::size_t i = 0; i + 1 < order.size(); ++i) {
            const std::size_t j = std::min(order.size() - 1, i + seed() % jitter);
            std::swap(order[i], order[j]);
        }
        LaunchStarts starts;
        std::map<std::uint64_t, std::uint64_t> expected;
        auto add = [&](std::uint64_t corr) {
            const std::uint64_t start = seed() % 1000000;
            starts.add(corr, start);
            auto [at, added] = expected.try_emplace(corr, start);
            if (!added) {
                at->second = std::min(at->second, start);
            }
        };
        std::size_t looked_up = 0;
        for (std::size_t i = 0; i < order.size(); ++i) {
            add(order[i]);
            if (i % 7 == 0) {
                add(order[i - std::min<std::size_t>(i, seed() % 30)]); // again, near or far back
            }
            if (i >= 10) {
                const std::uint64_t corr = order[i - 10 + seed() % 10];
                CAPTURE(seed_value);
                CAPTURE(corr);
                const auto got = starts.find(corr, i % 3);
                REQUIRE(got.has_value());
                CHECK(*got == expected.at(corr));
                ++looked_up;
            }
        }
        for (const auto& [corr, start] : expected) {
            CHECK(starts.find(corr, corr % 5) == start);
        }
        CHECK(looked_up == order.size() - 10);
    }
}
