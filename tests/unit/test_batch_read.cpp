// The group reader (io_uring) and the scanner's read-ahead built on it: every file comes back
// whole or is left to the ordinary read, and a scan gives the same results either way.
#include "../../src/batch_read.hpp"
#include "sdscprov/scan.hpp"
#include "temp_dir.hpp"

#include <cstdlib>
#include <doctest/doctest.h>
#include <filesystem>
#include <linux/io_uring.h>
#include <string>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <vector>

using namespace sdscprov;

namespace {

// Whether this kernel lets the process set up an io_uring at all (checked without liburing): if
// not, the reader must say it is unavailable, and the scanner falls back to ordinary reads.
bool kernel_allows_io_uring() {
    io_uring_params params{};
    long fd = ::syscall(__NR_io_uring_setup, 4, &params);
    if (fd < 0) {
        return false;
    }
    ::close(static_cast<int>(fd));
    return true;
}

// Whether reads are expected to go through io_uring here: the kernel allows it and it is not
// turned off (SDSCPROV_IO_URING=0, with which the suite can run the ordinary read only).
bool io_uring_expected() {
    const char* v = std::getenv("SDSCPROV_IO_URING");
    return kernel_allows_io_uring() && (v == nullptr || std::string(v) != "0");
}

// Sets an environment variable for the scope of a test.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) {
            old_ = old;
        }
        ::setenv(name, value, 1);
    }
    ~ScopedEnv() {
        if (old_) {
            ::setenv(name_, old_->c_str(), 1);
        } else {
            ::unsetenv(name_);
        }
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    const char* name_;
    std::optional<std::string> old_;
};

std::string op_doc(int n, const std::string& filler) {
    return "{\"" + std::to_string(n) + "_add\": {\"debug_handle_\": null, \"x\": \"" + filler +
           "\"}}";
}

SdscFile file_at(const std::filesystem::path& path, bool regular = true) {
    auto name = match_sdsc_file_name(path.filename().string());
    SdscFile f{path.string(), name ? *name : SdscName{}};
    f.regular = regular;
    return f;
}

} // namespace

TEST_CASE("batch read: whole files come back, anything else is left to the caller") {
    BatchReader reader;
    if (!io_uring_expected()) {
        CHECK_FALSE(reader.available());
        return;
    }
    REQUIRE(reader.available());
    test::TempDir t;
    const std::string small = op_doc(0, "abc");
    const std::string just_under(BatchReader::slot_size - 1, ' ');
    const std::string full(BatchReader::slot_size, ' ');
    t.file("a.json", small);
    t.file("b.json", just_under);
    t.file("c.json", full);
    t.file("empty.json", "");
    const std::string a = (t.root / "a.json").string();
    const std::string b = (t.root / "b.json").string();
    const std::string c = (t.root / "c.json").string();
    const std::string empty = (t.root / "empty.json").string();
    const std::string missing = (t.root / "missing.json").string();
    const std::string dir = t.root.string();
    std::vector<const std::string*> paths = {&a, &b, &c, &missing, nullptr, &dir, &empty};
    reader.read(paths);
    CHECK(reader.bytes(0) == small);
    CHECK(reader.bytes(1) == just_under);
    CHECK_FALSE(reader.bytes(2)); // as large as its slot: maybe more behind
    CHECK_FALSE(reader.bytes(3)); // open failed
    CHECK_FALSE(reader.bytes(4)); // not asked for
    CHECK_FALSE(reader.bytes(5)); // a directory: the read fails
    CHECK(reader.bytes(6) == "");
    CHECK_FALSE(reader.bytes(BatchReader::slots)); // out of range

    // The slots are reused: a shorter file in the slot of a longer one has zeroed padding, and
    // no slot stays occupied after a failed open (the next group opens into the same slots).
    std::vector<const std::string*> again = {&empty, &a, &missing, &a};
    reader.read(again);
    auto first = reader.bytes(0);
    REQUIRE(first);
    CHECK(first->empty());
    for (std::size_t i = 0; i < BatchReader::slot_padding; ++i) {
        CHECK(first->data()[i] == '\0');
    }
    CHECK(reader.bytes(1) == small);
    CHECK_FALSE(reader.bytes(2));
    CHECK(reader.bytes(3) == small);
    CHECK_FALSE(reader.bytes(4)); // slots past the group are not results of an earlier group
}

TEST_CASE("batch read: SDSCPROV_IO_URING=0 turns it off") {
    ScopedEnv off("SDSCPROV_IO_URING", "0");
    BatchReader reader;
    CHECK_FALSE(reader.available());
    test::TempDir t;
    t.file("a.json", "{}");
    const std::string a = (t.root / "a.json").string();
    std::vector<const std::string*> paths = {&a};
    reader.read(paths);
    CHECK_FALSE(reader.bytes(0));
}

TEST_CASE("scan: reading ahead gives the ordinary read's results, file for file") {
    test::TempDir t;
    std::vector<SdscFile> files;
    auto add = [&](const std::string& name, const std::string& content, bool regular = true) {
        t.file("k/" + name, content);
        files.push_back(file_at(t.root / "k" / name, regular));
    };
    // More files than one group holds, of every kind the read can meet.
    for (int i = 0; i < 11; ++i) {
        add("sdsc_" + std::to_string(i) + ".json", op_doc(i, std::string(i * 100, 'x')));
    }
    add("sdsc_11.json", "{\"11_add\": {\"debug_handle_\": nu"); // truncated
    add("sdsc_12.json", "[1, 2]");                              // not an SDSC document
    add("sdsc_13.json", "\xEF\xBB\xBF" + op_doc(13, "bom"));
    add("sdsc_14.json", "");
    add("sdsc_15.json", op_doc(15, std::string(BatchReader::slot_size + 10, 'y'))); // > a slot
    add("sdsc_16.json", op_doc(16, std::string(3000, 'z'))); // over --max-file-size below
    add("sdsc_17.json", op_doc(17, "not seen as regular"), false);
    files.push_back(file_at(t.root / "k" / "sdsc_18.json")); // listed, never written
    std::filesystem::create_directories(t.root / "k" / "sdsc_19.json");
    files.push_back(file_at(t.root / "k" / "sdsc_19.json")); // a directory since the walk
    add("sdsc_20.json", op_doc(20, "last"));

    ScanOptions options;
    options.stamp = false;
    options.max_file_size = 2000;
    auto results_of = [&](bool ahead, const std::vector<std::size_t>& order) {
        Scanner scanner(options);
        if (ahead) {
            std::vector<const SdscFile*> list;
            for (const auto& f : files) {
                list.push_back(&f);
            }
            scanner.prefetch(std::move(list));
        }
        std::vector<std::pair<ScanResult, std::string>> out;
        for (std::size_t i : order) {
            auto r = scanner.scan_file(files[i]);
            out.emplace_back(std::move(r), std::string(scanner.bytes()));
        }
        return out;
    };
    std::vector<std::size_t> in_order(files.size());
    for (std::size_t i = 0; i < files.size(); ++i) {
        in_order[i] = i;
    }
    std::vector<std::size_t> shuffled = {3, 0,  1,  2,  20, 19, 4,  5,  6,  7, 8,
                                         9, 10, 11, 12, 13, 14, 15, 16, 17, 18};
    auto plain = results_of(false, in_order);
    for (const auto& order : {in_order, shuffled}) {
        auto ahead = results_of(true, order);
        for (std::size_t k = 0; k < order.size(); ++k) {
            const auto& want = plain[order[k]];
            const auto& got = ahead[k];
            std::string path = files[order[k]].path;
            CAPTURE(path);
            CHECK(got.first.status == want.first.status);
            CHECK(got.first.op_key == want.first.op_key);
            CHECK(got.first.handle_state == want.first.handle_state);
            CHECK(got.first.bom == want.first.bom);
            CHECK(got.first.stamp == want.first.stamp);
            CHECK(got.second == want.second);
            REQUIRE(got.first.problems.size() == want.first.problems.size());
            for (std::size_t p = 0; p < want.first.problems.size(); ++p) {
                CHECK(got.first.problems[p].code == want.first.problems[p].code);
                CHECK(got.first.problems[p].message == want.first.problems[p].message);
                CHECK(got.first.problems[p].pos.line == want.first.problems[p].pos.line);
                CHECK(got.first.problems[p].pos.col == want.first.problems[p].pos.col);
            }
        }
    }
    CHECK(plain[11].first.status == FileStatus::invalid_json);
    CHECK(plain[15].first.status == FileStatus::unreadable); // over --max-file-size
    CHECK(plain[16].first.status == FileStatus::unreadable);
    CHECK(plain[18].first.status == FileStatus::unreadable);
    CHECK(plain[19].first.status == FileStatus::unreadable);
}

TEST_CASE("scan: files are read ahead a group at a time") {
    if (!io_uring_expected()) {
        return; // the ordinary read only: nothing is read ahead
    }
    // Observable: a file removed after its group was read still scans from the bytes read.
    test::TempDir t;
    std::vector<SdscFile> files;
    for (int i = 0; i < 3; ++i) {
        std::string name = "sdsc_" + std::to_string(i) + ".json";
        t.file("k/" + name, op_doc(i, "x"));
        files.push_back(file_at(t.root / "k" / name));
    }
    ScanOptions options;
    options.stamp = false;
    Scanner scanner(options);
    std::vector<const SdscFile*> list = {&files[0], &files[1], &files[2]};
    scanner.prefetch(list);
    CHECK(scanner.scan_file(files[0]).status == FileStatus::ok);
    std::filesystem::remove(files[2].path);
    CHECK(scanner.scan_file(files[1]).status == FileStatus::ok);
    CHECK(scanner.scan_file(files[2]).status == FileStatus::ok);

    // With stamps (annotate's change check) nothing is read ahead.
    options.stamp = true;
    Scanner stamped(options);
    stamped.prefetch(list);
    auto gone = stamped.scan_file(files[2]);
    CHECK(gone.status == FileStatus::unreadable);
}
