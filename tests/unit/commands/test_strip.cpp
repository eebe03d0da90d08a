// strip_kernel: what strip decides per file, and that it writes only in write mode; the sweep of
// leftover temporaries that strip and annotate share.
#include "sdscprov/commands/strip.hpp"
#include "sdscprov/commands/pending_writes.hpp"
#include "temp_dir.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/file.h>
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
        options.write.mode = WriteMode::dry_run;
        strip_kernel(k, scanner, options);
        REQUIRE(k.rewrite);
        const auto& files = k.rewrite->files;
        REQUIRE(files.size() == 5);
        CHECK(files[0].action == FileAction::keep);
        CHECK(files[1].action == (remove ? FileAction::remove : FileAction::keep));
        CHECK(files[2].action == (remove ? FileAction::remove : FileAction::strip));
        CHECK(files[2].changes);
        CHECK(files[3].action == FileAction::malformed);
        CHECK(files[4].action == FileAction::bad_file);
        CHECK(pending_count(*k.rewrite) == 0); // a dry run writes no temporary file
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
    REQUIRE(pending_count(*k.rewrite) == 1);
    CHECK(read(k.dir.files[0].path).find("\"id\"") != std::string::npos); // not yet
    std::vector<KernelReport> batch;
    batch.push_back(std::move(k));
    commit_batch(batch, options.write);
    CHECK(batch[0].rewrite->files[0].written);
    CHECK(read(batch[0].dir.files[0].path) == "{\"0_add\": {\"debug_handle_\": null, \"x\": 1}}");
}

TEST_CASE("strip: a kernel wider than held_temporaries is committed chunk by chunk") {
    test::TempDir t;
    std::vector<std::string> docs;
    for (int i = 0; i < 5; ++i) {
        docs.push_back("{\"" + std::to_string(i) + "_add\": {\"debug_handle_\": " + populated +
                       ", \"x\": 1}}");
    }
    auto k = kernel_in(t, docs);
    Scanner scanner;
    StripOptions options;
    options.remove = true;
    options.write.durability = Durability::none;
    options.write.held_temporaries = 2;
    strip_kernel(k, scanner, options);
    // Two chunks of two renamed during the kernel's work; the fifth file waits for the batch.
    CHECK(pending_count(*k.rewrite) == 1);
    const std::string stripped_4 = "{\"4_add\": {\"x\": 1}}";
    for (std::size_t i = 0; i < 5; ++i) {
        CAPTURE(i);
        CHECK(k.rewrite->files[i].written == (i < 4));
        CHECK((read(k.dir.files[i].path) == docs[i]) == (i == 4));
    }
    std::vector<KernelReport> batch;
    batch.push_back(std::move(k));
    commit_batch(batch, options.write);
    CHECK(batch[0].rewrite->files[4].written);
    CHECK(read(batch[0].dir.files[4].path) == stripped_4);
    CHECK(batch[0].problems.empty());
}

TEST_CASE("strip: the held temporaries fit the open-files limit, whatever it and the workers") {
    for (std::size_t workers : {1, 2, 3, 8}) {
        for (std::size_t limit = 1; limit < 3000; limit += 7) {
            CAPTURE(workers);
            CAPTURE(limit);
            const std::size_t in_use = 5;
            const std::size_t held = temporaries_per_worker(limit, in_use, workers);
            CHECK(held >= 1);
            // What a worker holds at most: its temporaries, two directories per kernel of its
            // batch (at most 32 kernels, and no more than files), the files read ahead, its ring
            // and a file opened for a moment. It fits whenever anything can.
            const std::size_t worker = held + 2 * std::min<std::size_t>(32, held) + 10;
            const std::size_t room = limit > in_use + 16 ? (limit - in_use - 16) / workers : 0;
            if (room >= 13) {
                CHECK(worker <= room);
            }
            if (room >= 200) {
                CHECK(held + 2 * 32 + 10 == room); // nothing of the room left unused
            }
        }
    }
}

TEST_CASE("strip and annotate remove only our temporaries whose writer is gone") {
    test::TempDir t;
    const std::string k = "k_abcdefgh/";
    t.file(k + "sdsc_0.json", "{\"0_add\": {\"x\": 1}}");
    std::string boot = "00000000";
    {
        std::ifstream in("/proc/sys/kernel/random/boot_id");
        std::string id;
        if (in >> id && id.size() >= 8) {
            boot = id.substr(0, 8);
        }
    }
    auto temp_name = [&](const std::string& of, const std::string& run) {
        return "." + of + ".sdscprov-b" + boot + "-" + run + "-0.tmp";
    };
    const std::string dead = temp_name("sdsc_0.json", "00000000000000d1");
    const std::string alive = temp_name("sdsc_0.json", "00000000000000a1");
    const std::string two_links = temp_name("sdsc_0.json", "0000000000000021");
    const std::string of_no_file = temp_name("sdsc_9.json", "00000000000000d2");
    // Named merely like ours: an older sdscprov's name (whose pid proves nothing), someone's
    // backup.
    const std::string old_style = ".sdsc_0.json.sdscprov-4000000-0.tmp";
    const std::string backup = ".notes.sdscprov-4000000-backup.tmp";
    for (const auto& name : {dead, alive, two_links, of_no_file, old_style, backup}) {
        t.file(k + name, "partial");
    }
    std::filesystem::create_hard_link(t.root / k / two_links, t.root / "elsewhere");
    // A live writer holds its lock; here this test does (another open file description).
    int held = ::open((t.root / k / alive).c_str(), O_WRONLY | O_CLOEXEC);
    REQUIRE(held >= 0);
    REQUIRE(::flock(held, LOCK_EX) == 0);
    // One of this run, written as annotate writes it.
    Scanner scanner;
    ScanResult scan = scanner.scan_file(
        SdscFile{(t.root / k / "sdsc_0.json").string(), *match_sdsc_file_name("sdsc_0.json")});
    REQUIRE(scan.status == FileStatus::ok);
    Problem problem;
    auto ours = write_temp(scan.file.path, "{}", scan.stamp, Durability::none, problem);
    REQUIRE(ours.has_value());

    std::vector<KernelDir> dirs;
    std::vector<Problem> walk_problems;
    discover(
        {t.root.string()}, {}, [&](KernelDir&& d) { dirs.push_back(std::move(d)); },
        [&](Problem&& p) { walk_problems.push_back(std::move(p)); });
    REQUIRE(dirs.size() == 1);
    CHECK(dirs[0].temps.size() == 5); // ours, dead, alive, two_links, of_no_file
    CHECK(dirs[0].files.size() == 1); // temporaries are never taken for SDSC files

    std::vector<Problem> problems;
    remove_leftover_temps(dirs[0], problems);
    CHECK_FALSE(std::filesystem::exists(t.root / k / dead));
    for (const auto& name : {alive, two_links, of_no_file, old_style, backup}) {
        CAPTURE(name);
        CHECK(std::filesystem::exists(t.root / k / name));
        CHECK(read(t.root / k / name) == "partial");
    }
    CHECK(std::filesystem::exists(ours->temp));
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].path == (t.root / k / dead).string());
    CHECK(problems[0].code == ProblemCode::leftover_temp);
    CHECK(problems[0].severity == Severity::note);

    // Once its writer lets go, the lock is free: the next sweep removes it.
    ::close(held);
    problems.clear();
    remove_leftover_temps(dirs[0], problems);
    CHECK_FALSE(std::filesystem::exists(t.root / k / alive));
    CHECK(problems.size() == 1);
    ours->release();
    CHECK_FALSE(std::filesystem::exists(ours->temp));

    // In a dry run nothing is removed.
    t.file(k + dead, "partial");
    KernelReport report;
    report.dir = dirs[0];
    StripOptions options;
    options.write.mode = WriteMode::dry_run;
    strip_kernel(report, scanner, options);
    CHECK(std::filesystem::exists(t.root / k / dead));
    options.write.mode = WriteMode::write;
    KernelReport again;
    again.dir = dirs[0];
    strip_kernel(again, scanner, options);
    CHECK_FALSE(std::filesystem::exists(t.root / k / dead));
    CHECK(std::filesystem::exists(t.root / k / backup));
    CHECK(std::filesystem::exists(t.root / k / old_style));
}
