// strip_kernel: what strip decides per file, and that it writes only in write mode.
#include "sdscprov/annotate.hpp"
#include "temp_dir.hpp"

#include <doctest/doctest.h>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

using namespace sdscprov;

namespace {

const std::string populated =
    R"({"id": "1", "source": null, "aten_op": null, "ir_chain": ["a"], "fused_from": [], "transform_history": []})";

std::string read(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

KernelReport kernel_in(const test::TempDir& t, const std::vector<std::string>& docs) {
    KernelReport k;
    k.dir.path = (t.root / "k_abcdefgh").string();
    for (std::size_t i = 0; i < docs.size(); ++i) {
        std::string name = "sdsc_" + std::to_string(i) + ".json";
        t.file("k_abcdefgh/" + name, docs[i]);
        k.dir.files.push_back({k.dir.path + "/" + name, *match_sdsc_file_name(name), true});
    }
    return k;
}

} // namespace

TEST_CASE("strip: per file, null or removed, absent, duplicated and broken files left alone") {
    test::TempDir t;
    const std::vector<std::string> docs = {
        "{\"0_add\": {\"x\": 1}}",
        "{\"1_add\": {\"debug_handle_\": null, \"x\": 1}}",
        "{\"2_add\": {\"debug_handle_\": " + populated + ", \"x\": 1}}",
        "{\"3_add\": {\"debug_handle_\": null, \"debug_handle_\": null}}",
        "{\"4_add\": {",
    };
    for (bool remove : {false, true}) {
        CAPTURE(remove);
        auto k = kernel_in(t, docs);
        Scanner scanner;
        StripOptions options;
        options.remove = remove;
        options.write.mode = AnnotateMode::dry_run;
        strip_kernel(k, scanner, options);
        REQUIRE(k.annotation);
        const auto& files = k.annotation->files;
        REQUIRE(files.size() == 5);
        CHECK(files[0].action == FileAction::keep);
        CHECK(files[1].action == (remove ? FileAction::remove : FileAction::keep));
        CHECK(files[2].action == (remove ? FileAction::remove : FileAction::strip));
        CHECK(files[2].changes);
        CHECK(files[3].action == FileAction::malformed);
        CHECK(files[4].action == FileAction::bad_file);
        CHECK(k.annotation->pending.empty()); // a dry run writes no temporary file
        for (std::size_t i = 0; i < docs.size(); ++i) {
            CHECK(read(k.dir.files[i].path) == docs[i]);
        }
    }
}

TEST_CASE("strip: in write mode the change lands at commit, and only the handle changes") {
    test::TempDir t;
    auto k = kernel_in(t, {"{\"0_add\": {\"debug_handle_\": " + populated + ", \"x\": 1}}"});
    Scanner scanner;
    StripOptions options;
    options.write.durability = Durability::none;
    strip_kernel(k, scanner, options);
    REQUIRE(k.annotation->pending.size() == 1);
    CHECK(read(k.dir.files[0].path).find("\"id\"") != std::string::npos); // not yet
    std::vector<KernelReport> batch;
    batch.push_back(std::move(k));
    commit_batch(batch, options.write);
    CHECK(batch[0].annotation->files[0].written);
    CHECK(read(batch[0].dir.files[0].path) == "{\"0_add\": {\"debug_handle_\": null, \"x\": 1}}");
}

TEST_CASE("strip and annotate remove only the temporaries of runs no longer alive") {
    // A pid that certainly ended: a child that exited and was reaped.
    pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        ::_exit(0);
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);

    test::TempDir t;
    t.file("k_abcdefgh/sdsc_0.json", "{\"0_add\": {\"x\": 1}}");
    const std::string dead = ".sdsc_0.json.sdscprov-" + std::to_string(child) + "-0.tmp";
    const std::string alive = ".sdsc_0.json.sdscprov-" + std::to_string(::getppid()) + "-0.tmp";
    const std::string ours = ".sdsc_0.json.sdscprov-" + std::to_string(::getpid()) + "-0.tmp";
    for (const auto& name : {dead, alive, ours}) {
        t.file("k_abcdefgh/" + name, "partial");
    }
    std::vector<KernelDir> dirs;
    std::vector<Problem> walk_problems;
    discover(
        {t.root.string()}, {}, [&](KernelDir&& d) { dirs.push_back(std::move(d)); },
        [&](Problem&& p) { walk_problems.push_back(std::move(p)); });
    REQUIRE(dirs.size() == 1);
    CHECK(dirs[0].temps.size() == 3);
    CHECK(dirs[0].files.size() == 1); // temporaries are never taken for SDSC files

    std::vector<Problem> problems;
    remove_leftover_temps(dirs[0], problems);
    CHECK_FALSE(std::filesystem::exists(t.root / "k_abcdefgh" / dead));
    CHECK(std::filesystem::exists(t.root / "k_abcdefgh" / alive));
    CHECK(std::filesystem::exists(t.root / "k_abcdefgh" / ours));
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].code == ProblemCode::leftover_temp);
    CHECK(problems[0].severity == Severity::note);

    // In a dry run nothing is removed.
    t.file("k_abcdefgh/" + dead, "partial");
    KernelReport k;
    k.dir = dirs[0];
    Scanner scanner;
    StripOptions options;
    options.write.mode = AnnotateMode::dry_run;
    strip_kernel(k, scanner, options);
    CHECK(std::filesystem::exists(t.root / "k_abcdefgh" / dead));
    options.write.mode = AnnotateMode::write;
    KernelReport again;
    again.dir = dirs[0];
    strip_kernel(again, scanner, options);
    CHECK_FALSE(std::filesystem::exists(t.root / "k_abcdefgh" / dead));
}
