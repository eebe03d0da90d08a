#include "sdscprov/join/bundle_dirs.hpp"
#include "sdscprov/walk/discover.hpp"

#include <doctest/doctest.h>
#include <map>

using namespace sdscprov;

namespace {

struct Catalog {
    std::vector<IndexedKernelDir> dirs;
    std::map<std::string, std::vector<std::uint32_t>, std::less<>> held;

    HandleHolders holders() const {
        return [this](std::string_view id) -> const std::vector<std::uint32_t>* {
            auto it = held.find(id);
            return it == held.end() ? nullptr : &it->second;
        };
    }
};

// 0, 1: one kernel's two compiles of one bundle (handle "7"), 2: another compile of that name,
// 3: another kernel, 4: a kernel cache entry named by its kernel_name.txt.
Catalog catalog() {
    Catalog c;
    c.dirs = {{"c/aaaa0001_sdsc_k_0_abcdefgh", "sdsc_k_0", {}},
              {"c/bbbb0002_sdsc_k_0_zzcdefgh", "sdsc_k_0", {}},
              {"c/sdsc_k_0_qqqqqqqq", "sdsc_k_0", {}},
              {"c/dddd0004_sdsc_other_1_abcdefgh", "sdsc_other_1", {}},
              {"c/inductor-spyre-cache/0f0f", "sdsc_listed_2", {"sdsc_alias_3"}}};
    c.held = {{"7", {0, 1}}, {"8", {2}}, {"9", {3}}, {"10", {4}}};
    return c;
}

} // namespace

TEST_CASE("bundle dirs: the directories holding the handles, of the sidecar's kernel names") {
    Catalog c = catalog();
    BundleDirQuery q;
    q.handle_ids = {"7"};
    q.sidecar = true;
    q.sidecar_kernels = {"sdsc_k_0"};
    BundleDirs d = resolve_bundle_dirs(q, c.dirs, c.holders());
    CHECK(d.dirs == std::vector<std::uint32_t>{0, 1});
    CHECK(d.kernel_names == std::vector<std::string>{"sdsc_k_0"});
    CHECK_FALSE(d.by_prefix);
    CHECK(d.notes.empty());
    // The same through an index of the names as through a look at each directory.
    std::map<std::string, std::vector<std::uint32_t>, std::less<>> by_name;
    for (std::uint32_t i = 0; i < c.dirs.size(); ++i) {
        by_name[*c.dirs[i].kernel].push_back(i);
        for (const auto& other : c.dirs[i].other_kernels) {
            by_name[other].push_back(i);
        }
    }
    NamedDirs named = [&](std::string_view n) -> const std::vector<std::uint32_t>* {
        auto it = by_name.find(n);
        return it == by_name.end() ? nullptr : &it->second;
    };
    for (const char* kernel : {"sdsc_k_0", "sdsc_alias_3", "sdsc_none_9"}) {
        CAPTURE(kernel);
        BundleDirQuery each = q;
        each.handle_ids = {"404"};
        each.sidecar_kernels = {kernel};
        CHECK(resolve_bundle_dirs(each, c.dirs, c.holders(), named).dirs ==
              resolve_bundle_dirs(each, c.dirs, c.holders()).dirs);
    }
    // Without the sidecar: the holding directories and their names.
    q.sidecar = false;
    q.sidecar_kernels.clear();
    d = resolve_bundle_dirs(q, c.dirs, c.holders());
    CHECK(d.dirs == std::vector<std::uint32_t>{0, 1});
    CHECK(d.kernel_names == std::vector<std::string>{"sdsc_k_0"});
    // A kernel_name.txt name finds its entry (an alias too).
    q.handle_ids = {"404"};
    q.sidecar = true;
    q.sidecar_kernels = {"sdsc_alias_3"};
    d = resolve_bundle_dirs(q, c.dirs, c.holders());
    CHECK(d.dirs == std::vector<std::uint32_t>{4});
}

TEST_CASE("bundle dirs: the event's directory prefix, and a wrong one") {
    Catalog c = catalog();
    BundleDirQuery q;
    q.handle_ids = {"7"};
    q.sidecar = true;
    q.sidecar_kernels = {"sdsc_k_0"};
    q.dir_prefix = "bbbb0002";
    BundleDirs d = resolve_bundle_dirs(q, c.dirs, c.holders());
    CHECK(d.dirs == std::vector<std::uint32_t>{1});
    CHECK(d.by_prefix);
    CHECK(d.notes.empty());
    q.dir_prefix = "cccc0003"; // no such directory
    d = resolve_bundle_dirs(q, c.dirs, c.holders());
    CHECK(d.dirs == std::vector<std::uint32_t>{0, 1});
    CHECK_FALSE(d.by_prefix);
    REQUIRE(d.notes.size() == 1);
    CHECK(d.notes[0].code == ProblemCode::bad_bundle_dir_prefix);
    CHECK(d.notes[0].message.find("names no kernel directory") != std::string::npos);
    q.dir_prefix = "dddd0004"; // another kernel's
    d = resolve_bundle_dirs(q, c.dirs, c.holders());
    CHECK(d.dirs == std::vector<std::uint32_t>{0, 1});
    REQUIRE(d.notes.size() == 1);
    CHECK(d.notes[0].message.find("not a directory of kernel sdsc_k_0") != std::string::npos);
}

TEST_CASE("bundle dirs: named directories that do not hold the handles disagree") {
    Catalog c = catalog();
    BundleDirQuery q;
    q.handle_ids = {"9"};
    q.sidecar = true;
    q.sidecar_kernels = {"sdsc_k_0"};
    BundleDirs d = resolve_bundle_dirs(q, c.dirs, c.holders());
    CHECK(d.dirs == std::vector<std::uint32_t>{3});
    REQUIRE(d.notes.size() == 1);
    CHECK(d.notes[0].code == ProblemCode::sources_disagree);
    // Handles in no file: every directory of the name.
    q.handle_ids = {"404"};
    d = resolve_bundle_dirs(q, c.dirs, c.holders());
    CHECK(d.dirs == std::vector<std::uint32_t>{0, 1, 2});
}

TEST_CASE("kernel names: a directory's prefix and a kernel_name.txt") {
    CHECK(dir_prefix_of("aaaa0001_sdsc_k_0_abcdefgh") == "aaaa0001");
    CHECK_FALSE(dir_prefix_of("sdsc_k_0_abcdefgh"));
    CHECK_FALSE(dir_prefix_of("AAAA0001_sdsc_k_0_abcdefgh"));
    CHECK_FALSE(dir_prefix_of("0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f"));
    CHECK(kernel_names_of_list("sdsc_a_1\r\nsdsc_a_1\n\n  sdsc_b_2 \nnot a name\nsdsc_c_3") ==
          std::vector<std::string>{"sdsc_a_1", "sdsc_b_2", "sdsc_c_3"});
    CHECK(kernel_names_of_list("").empty());
}
