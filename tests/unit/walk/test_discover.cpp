// Discovery: file names, kernel directory names, and walking a real temporary tree.
#include "sdscprov/walk/discover.hpp"
#include "temp_dir.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace sdscprov;
namespace fs = std::filesystem;

TEST_CASE("discover: SDSC file names (docs/formats.md)") {
    struct Case {
        const char* name;
        bool match;
        FileNaming naming;
        std::uint64_t index;
        const char* opfunc;
    };
    const Case cases[] = {
        {"sdsc_0.json", true, FileNaming::indexed, 0, ""},
        {"sdsc_54.json", true, FileNaming::indexed, 54, ""},
        {"sdsc_1_add.json", true, FileNaming::indexed_opfunc, 1, "add"},
        {"sdsc_3_CrossBundleProducerStreamingReStickifyOpWithPTLx.json", true,
         FileNaming::indexed_opfunc, 3, "CrossBundleProducerStreamingReStickifyOpWithPTLx"},
        {"sdsc_1_Mixed_2048.json", true, FileNaming::indexed_opfunc, 1, "Mixed_2048"},
        {"sdsc_summary.json", false, FileNaming::named, 0, ""},
        {"sdsc.json", false, FileNaming::named, 0, ""},
        {"sdsc_.json", false, FileNaming::named, 0, ""},
        {"sdsc_1_.json", false, FileNaming::named, 0, ""},
        {"sdsc_1-add.json", false, FileNaming::named, 0, ""},
        {"sdsc_0.json.tmp", false, FileNaming::named, 0, ""},
        {"before_sdsc_104.json", false, FileNaming::named, 0, ""},
        {"pagi.json", false, FileNaming::named, 0, ""},
        {"sdsc_99999999999999999999.json", false, FileNaming::named, 0, ""},
    };
    for (const auto& c : cases) {
        CAPTURE(c.name);
        auto m = match_sdsc_file_name(c.name);
        REQUIRE(m.has_value() == c.match);
        if (m) {
            CHECK(m->naming == c.naming);
            CHECK(m->index == c.index);
            CHECK(m->opfunc == c.opfunc);
        }
    }
}

TEST_CASE("discover: kernel names from directory names") {
    struct Case {
        const char* dir;
        const char* kernel; // nullptr: unknown
    };
    const Case cases[] = {
        {"sdsc_fused_addmm_linear_relu_0_ab12cd34", "sdsc_fused_addmm_linear_relu_0"},
        {"0a1b2c3d_sdsc_fused_addmm_1_xyzw_123", "sdsc_fused_addmm_1"},
        {"sdsc_fused_bmm_1__ben_gcp", "sdsc_fused_bmm_1"},
        {"sdsc_fused_1_qwertyui", "sdsc_fused_1"},
        {"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", nullptr},
        {"0001_sdsc_fused_add_t_0", nullptr},
        {"restickify_lx_probe", nullptr},
        {"sdsc_ab12cd34", nullptr},
        {"sdsc_fused_x_0_ab-2cd34", nullptr},
    };
    for (const auto& c : cases) {
        CAPTURE(c.dir);
        auto k = kernel_name_from_dir(c.dir);
        if (c.kernel == nullptr) {
            CHECK_FALSE(k.has_value());
        } else {
            REQUIRE(k.has_value());
            CHECK(*k == c.kernel);
        }
    }
}

namespace {

using TempTree = test::TempDir;

struct Walk {
    std::vector<KernelDir> dirs;
    std::vector<Problem> problems;
    DiscoverStats stats;
};

Walk walk(const std::vector<std::string>& roots, DiscoverOptions options = {}) {
    Walk w;
    w.stats = discover(
        roots, options, [&](KernelDir&& d) { w.dirs.push_back(std::move(d)); },
        [&](Problem&& p) { w.problems.push_back(std::move(p)); });
    return w;
}

std::vector<std::string> names(const KernelDir& d) {
    std::vector<std::string> out;
    for (const auto& f : d.files) {
        out.push_back(fs::path(f.path).lexically_relative(d.path).string());
    }
    return out;
}

} // namespace

TEST_CASE("discover: a kernel cache with every naming era") {
    TempTree t;
    t.file("inductor-spyre/sdsc_fused_mm_0_aaaaaaaa/sdsc_10.json");
    t.file("inductor-spyre/sdsc_fused_mm_0_aaaaaaaa/sdsc_2.json");
    t.file("inductor-spyre/sdsc_fused_mm_0_aaaaaaaa/sdsc_0.json");
    t.file("inductor-spyre/sdsc_fused_mm_0_aaaaaaaa/bundle.mlir", "");
    t.file("inductor-spyre/sdsc_fused_mm_0_aaaaaaaa/execute/x/pagi.json");
    t.file("inductor-spyre/sdsc_fused_add_t_0_bbbbbbbb/sdsc_0_ReStickifyOpHBM.json");
    t.file("inductor-spyre/sdsc_fused_add_t_0_bbbbbbbb/sdsc_1_add.json");
    t.file(
        "inductor-spyre/sdsc_fused_relu_1_cccccccc/execute/sdsc_fused_relu_1_cccccccc/sdsc.json");
    t.file("inductor-spyre/notes/sdsc_summary.json");
    t.file("inductor-spyre-cache/abc123/sdsc_0.json");
    t.file("inductor-spyre-cache/abc123.tmp.uuid1/sdsc_0.json");
    t.file("inductor-spyre-cache/failed/abc124.tmp.uuid2/sdsc_0.json");

    auto w = walk({t.root.string()});
    CHECK(w.problems.empty());
    REQUIRE(w.dirs.size() == 4);
    CHECK(w.dirs[0].kernel == "sdsc_fused_add_t_0");
    CHECK(names(w.dirs[0]) ==
          std::vector<std::string>{"sdsc_0_ReStickifyOpHBM.json", "sdsc_1_add.json"});
    CHECK(w.dirs[1].kernel == "sdsc_fused_mm_0");
    CHECK(w.dirs[1].has_bundle);
    CHECK(names(w.dirs[1]) ==
          std::vector<std::string>{"sdsc_0.json", "sdsc_2.json", "sdsc_10.json"});
    CHECK(w.dirs[2].kernel == "sdsc_fused_relu_1");
    CHECK(names(w.dirs[2]) ==
          std::vector<std::string>{"execute/sdsc_fused_relu_1_cccccccc/sdsc.json"});
    CHECK(w.dirs[2].files[0].name.naming == FileNaming::execute);
    CHECK(fs::path(w.dirs[3].path).filename() == "abc123");
    CHECK_FALSE(w.dirs[3].kernel.has_value());
    CHECK(w.stats.skipped_incomplete == 2);
    for (const auto& d : w.dirs) {
        for (const auto& f : d.files) {
            CHECK(f.regular); // seen as regular files: the scan may read them without fstat
        }
    }

    auto all = walk({t.root.string()}, DiscoverOptions{true, false});
    CHECK(all.dirs.size() == 6);
    CHECK(all.stats.skipped_incomplete == 0);
}

TEST_CASE("discover: a fifo named like an SDSC file is kept, not as a regular file") {
    TempTree t;
    t.file("k_aaaaaaaa/sdsc_0.json");
    REQUIRE(::mkfifo((t.root / "k_aaaaaaaa/sdsc_1.json").c_str(), 0600) == 0);
    auto w = walk({t.root.string()});
    REQUIRE(w.dirs.size() == 1);
    REQUIRE(w.dirs[0].files.size() == 2);
    CHECK(w.dirs[0].files[0].regular);
    CHECK_FALSE(w.dirs[0].files[1].regular); // the scan stats it and reports what it is
}

TEST_CASE("discover: directory symlinks are not followed unless asked, loops end") {
    TempTree t;
    t.file("real/sdsc_fused_a_0_aaaaaaaa/sdsc_0.json");
    fs::create_directory_symlink(t.root / "real", t.root / "link");
    fs::create_directory_symlink(t.root / "real", t.root / "real" / "loop");

    CHECK(walk({t.root.string()}).dirs.size() == 1);
    auto followed = walk({t.root.string()}, DiscoverOptions{false, true});
    CHECK(followed.dirs.size() == 1); // the target is walked once, whichever link reaches it
}

TEST_CASE("discover: with links followed, files behind a link leading outside the roots are "
          "marked, never to be written") {
    TempTree t;
    t.file("cache/sdsc_fused_a_0_aaaaaaaa/sdsc_0.json");
    t.file("elsewhere/sdsc_fused_b_0_bbbbbbbb/sdsc_0.json");
    t.file("elsewhere/old/sdsc_fused_c_0_cccccccc/execute/k/sdsc.json");
    t.file("cache/real/sdsc_fused_d_0_dddddddd/sdsc_0.json");
    fs::create_directories(t.root / "cache/real/sdsc_fused_e_0_eeeeeeee/execute");
    fs::create_directory_symlink(t.root / "elsewhere", t.root / "cache/out");
    fs::create_directory_symlink(t.root / "elsewhere/old/sdsc_fused_c_0_cccccccc/execute/k",
                                 t.root / "cache/real/sdsc_fused_e_0_eeeeeeee/execute/k");
    fs::create_directory_symlink("real", t.root / "cache/in"); // inside: an ordinary place
    fs::create_directory_symlink(t.root / "cache", t.root / "cache/loop");

    auto followed = walk({(t.root / "cache").string()}, DiscoverOptions{false, true});
    std::vector<std::pair<std::string, bool>> got;
    for (const auto& d : followed.dirs) {
        for (const auto& f : d.files) {
            got.emplace_back(fs::path(f.path).lexically_relative(t.root).string(), f.outside_roots);
        }
    }
    CHECK(got == std::vector<std::pair<std::string, bool>>{
                     {"cache/in/sdsc_fused_d_0_dddddddd/sdsc_0.json", false},
                     {"cache/in/sdsc_fused_e_0_eeeeeeee/execute/k/sdsc.json", true},
                     {"cache/out/old/sdsc_fused_c_0_cccccccc/execute/k/sdsc.json", true},
                     {"cache/out/sdsc_fused_b_0_bbbbbbbb/sdsc_0.json", true},
                     {"cache/sdsc_fused_a_0_aaaaaaaa/sdsc_0.json", false},
                 });
    // With the other tree given as a root as well, nothing is outside.
    auto both = walk({(t.root / "cache").string(), (t.root / "elsewhere").string()},
                     DiscoverOptions{false, true});
    std::size_t files = 0;
    for (const auto& d : both.dirs) {
        for (const auto& f : d.files) {
            CAPTURE(f.path);
            CHECK_FALSE(f.outside_roots);
            ++files;
        }
    }
    CHECK(files == 5);
}

TEST_CASE("discover: a dangling or looping symlink named like an SDSC file is kept, not skipped") {
    TempTree t;
    t.file("k_aaaaaaaa/sdsc_0.json");
    fs::create_symlink("sdsc_1.json", t.root / "k_aaaaaaaa/sdsc_1.json"); // a loop of one
    fs::create_symlink("nowhere.json", t.root / "k_aaaaaaaa/sdsc_2.json");
    fs::create_symlink("nowhere.mlir", t.root / "k_aaaaaaaa/bundle.mlir");
    fs::create_symlink("nowhere", t.root / "k_aaaaaaaa/other.json");
    for (bool follow : {false, true}) {
        CAPTURE(follow);
        auto w = walk({t.root.string()}, DiscoverOptions{false, follow});
        REQUIRE(w.dirs.size() == 1);
        // The scan opens them and reports why they cannot be read, instead of a file the user
        // expects scanned silently missing (annotate would call it "not in the directory").
        CHECK(names(w.dirs[0]) ==
              std::vector<std::string>{"sdsc_0.json", "sdsc_1.json", "sdsc_2.json"});
        CHECK_FALSE(w.dirs[0].files[1].regular);
        CHECK_FALSE(w.dirs[0].files[2].regular);
        CHECK_FALSE(w.dirs[0].has_bundle); // a bundle.mlir that leads nowhere is none
        CHECK(w.problems.empty());
    }
}

TEST_CASE("discover: file arguments are grouped by directory, missing paths are problems") {
    TempTree t;
    t.file("k_aaaaaaaa/sdsc_1.json");
    t.file("k_aaaaaaaa/sdsc_0.json");
    t.file("other/anything.json");
    auto w = walk({(t.root / "k_aaaaaaaa/sdsc_1.json").string(), (t.root / "missing").string(),
                   (t.root / "k_aaaaaaaa/sdsc_0.json").string(),
                   (t.root / "other/anything.json").string(),
                   (t.root / "k_aaaaaaaa/sdsc_0.json").string()});
    REQUIRE(w.problems.size() == 1);
    CHECK(w.problems[0].code == ProblemCode::bad_argument);
    REQUIRE(w.dirs.size() == 2);
    CHECK(names(w.dirs[0]) == std::vector<std::string>{"sdsc_0.json", "sdsc_1.json"});
    CHECK(names(w.dirs[1]) == std::vector<std::string>{"anything.json"});
    CHECK(w.dirs[1].files[0].name.naming == FileNaming::named);
}

TEST_CASE("discover: an unreadable directory is a problem and the walk goes on") {
    if (::geteuid() == 0) {
        // root reads everything; the permission check cannot fail. Covered by the e2e tests
        // with a directory replaced by a file instead.
        return;
    }
    TempTree t;
    t.file("a/sdsc_x_0_aaaaaaaa/sdsc_0.json");
    t.file("b/sdsc_x_0_bbbbbbbb/sdsc_0.json");
    ::chmod((t.root / "a").c_str(), 0);
    auto w = walk({t.root.string()});
    ::chmod((t.root / "a").c_str(), 0755);
    CHECK(w.problems.size() == 1);
    CHECK(w.dirs.size() == 1);
}

TEST_CASE("discover: a kernel directory replaced by a symbolic link after the walk is opened "
          "through no link, and one opened before stays the tree's") {
    TempTree t;
    const std::string kernel = "sdsc_fused_a_0_aaaaaaaa";
    t.file("cache/" + kernel + "/sdsc_0.json", "inside");
    t.file("elsewhere/" + kernel + "/sdsc_0.json", "outside");
    const fs::path inner = t.root / "cache" / kernel;
    auto swap = [&] {
        fs::rename(inner, t.root / "cache" / "moved");
        fs::create_directory_symlink(t.root / "elsewhere" / kernel, inner);
    };
    auto unswap = [&] {
        fs::remove(inner);
        fs::rename(t.root / "cache" / "moved", inner);
    };
    auto read_through = [](const SdscFile& f) {
        REQUIRE(f.dir != nullptr);
        int fd = ::openat(f.dir->get(), std::string(file_name_of(f.path)).c_str(),
                          O_RDONLY | O_NOFOLLOW);
        REQUIRE(fd >= 0);
        char text[16] = {};
        ssize_t n = ::read(fd, text, sizeof text);
        ::close(fd);
        return std::string(text, n > 0 ? static_cast<std::size_t>(n) : 0);
    };

    // Replaced between the walk and the work: not opened, every file says why.
    auto walked = walk({(t.root / "cache").string()});
    REQUIRE(walked.dirs.size() == 1);
    swap();
    open_kernel_dir(walked.dirs[0]);
    CHECK(walked.dirs[0].fd == nullptr);
    REQUIRE(walked.dirs[0].files.size() == 1);
    CHECK(walked.dirs[0].files[0].dir == nullptr);
    CHECK(walked.dirs[0].files[0].unreachable.find("is not the directory the walk read") !=
          std::string::npos);
    unswap();

    // Replaced once the work has it open: its files are still the tree's.
    walked = walk({(t.root / "cache").string()});
    REQUIRE(walked.dirs.size() == 1);
    open_kernel_dir(walked.dirs[0]);
    swap();
    CHECK(walked.dirs[0].files[0].unreachable.empty());
    CHECK(read_through(walked.dirs[0].files[0]) == "inside");
    release_directories(walked.dirs[0]);
    CHECK(walked.dirs[0].files[0].dir == nullptr);
    unswap();

    // With links followed, the link is followed on purpose, and the directory it leads to is
    // found outside the root by the descriptor opened: its files are never to be written.
    walked = walk({(t.root / "cache").string()}, DiscoverOptions{false, true});
    REQUIRE(walked.dirs.size() == 1);
    CHECK_FALSE(walked.dirs[0].files[0].outside_roots);
    swap();
    open_kernel_dir(walked.dirs[0]);
    CHECK(walked.dirs[0].files[0].outside_roots);
    unswap();
}
