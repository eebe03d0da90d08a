// The group opener (io_uring) and the scanner's opening ahead built on it: every file is opened
// there or left to the ordinary open, and a scan gives the same results either way.
#include "walk/batch_open.hpp"
#include "sdscprov/sdsc/scan.hpp"
#include "temp_dir.hpp"

#include <cstdlib>
#include <doctest/doctest.h>
#include <fcntl.h>
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

// `count` op files sdsc_0.json, sdsc_1.json, ... in the kernel directory k/ under `t`.
std::vector<SdscFile> kernel_files(const test::TempDir& t, int count) {
    std::vector<SdscFile> files;
    for (int i = 0; i < count; ++i) {
        std::string name = "sdsc_" + std::to_string(i) + ".json";
        t.file("k/" + name, op_doc(i, "x"));
        files.push_back(file_at(t.root / "k" / name));
    }
    return files;
}

} // namespace

// Descriptors open in this process (its /proc/self/fd entries).
std::size_t open_descriptors() {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) {
        ++n;
    }
    return n;
}

std::string read_fd(int fd) {
    std::string out(1 << 16, '\0');
    ssize_t n = ::pread(fd, out.data(), out.size(), 0);
    out.resize(n < 0 ? 0 : static_cast<std::size_t>(n));
    return out;
}

TEST_CASE("batch open: a descriptor per file, -1 where the caller must open it") {
    test::TempDir t;
    t.file("a.json", "aaa");
    t.file("b.json", "bbb");
    const std::string a = (t.root / "a.json").string();
    const std::string b = (t.root / "b.json").string();
    const std::string missing = (t.root / "missing.json").string();
    std::size_t before = open_descriptors();
    {
        BatchOpener opener;
        if (!io_uring_expected()) {
            CHECK_FALSE(opener.available());
            return;
        }
        REQUIRE(opener.available());
        std::vector<const char*> paths = {a.c_str(), missing.c_str(), nullptr, b.c_str()};
        opener.open(paths);
        int fa = opener.fd(0);
        int fb = opener.fd(3);
        REQUIRE(fa >= 0);
        REQUIRE(fb >= 0);
        CHECK(read_fd(fa) == "aaa");
        CHECK(read_fd(fb) == "bbb");
        CHECK(opener.fd(1) == -1); // the open failed
        CHECK(opener.fd(2) == -1); // not asked for
        CHECK(opener.fd(BatchOpener::slots) == -1);
        CHECK((::fcntl(fa, F_GETFD) & FD_CLOEXEC) != 0);
        CHECK((::fcntl(fa, F_GETFL) & O_ACCMODE) == O_RDONLY);

        // The next group closes the previous one's descriptors.
        std::vector<const char*> next = {b.c_str()};
        opener.open(next);
        CHECK(read_fd(opener.fd(0)) == "bbb");
        CHECK(opener.fd(3) == -1);
        CHECK(open_descriptors() == before + 2); // the ring, and b
        opener.close_all();
        CHECK(opener.fd(0) == -1);
        CHECK(open_descriptors() == before + 1); // the ring
        opener.open(paths);
    }
    CHECK(open_descriptors() == before); // the destructor closed what was still open
}

TEST_CASE("batch open: SDSCPROV_IO_URING=0 turns it off") {
    ScopedEnv off("SDSCPROV_IO_URING", "0");
    BatchOpener opener;
    CHECK_FALSE(opener.available());
    std::vector<const char*> paths = {"/"};
    opener.open(paths);
    CHECK(opener.fd(0) == -1);
}

TEST_CASE("scan: opening ahead gives the ordinary open's results, file for file") {
    test::TempDir t;
    std::vector<SdscFile> files;
    auto add = [&](const std::string& name, const std::string& content, bool regular = true) {
        t.file("k/" + name, content);
        files.push_back(file_at(t.root / "k" / name, regular));
    };
    // More files than one group holds, of every kind the open and the read can meet.
    for (int i = 0; i < 11; ++i) {
        add("sdsc_" + std::to_string(i) + ".json", op_doc(i, std::string(i * 100, 'x')));
    }
    add("sdsc_11.json", "{\"11_add\": {\"debug_handle_\": nu"); // truncated
    add("sdsc_12.json", "[1, 2]");                              // not an SDSC document
    add("sdsc_13.json", "\xEF\xBB\xBF" + op_doc(13, "bom"));
    add("sdsc_14.json", "");
    add("sdsc_15.json", op_doc(15, std::string(100 * 1024, 'y'))); // > the first read buffer
    add("sdsc_16.json", op_doc(16, std::string(3000, 'z')));       // over --max-file-size below
    add("sdsc_17.json", op_doc(17, "not seen as regular"), false);
    files.push_back(file_at(t.root / "k" / "sdsc_18.json")); // listed, never written
    std::filesystem::create_directories(t.root / "k" / "sdsc_19.json");
    files.push_back(file_at(t.root / "k" / "sdsc_19.json")); // a directory since the walk
    add("sdsc_20.json", op_doc(20, "last"));

    ScanOptions options;
    options.fstat_before_read = false;
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

TEST_CASE("scan: files are opened ahead a group at a time") {
    if (!io_uring_expected()) {
        return; // the ordinary open only: nothing is opened ahead
    }
    // Observable: a file removed after its group was opened is still read through its descriptor.
    test::TempDir t;
    std::vector<SdscFile> files = kernel_files(t, 3);
    ScanOptions options;
    options.fstat_before_read = false;
    Scanner scanner(options);
    std::vector<const SdscFile*> list = {&files[0], &files[1], &files[2]};
    scanner.prefetch(list);
    CHECK(scanner.scan_file(files[0]).status == FileStatus::ok);
    std::filesystem::remove(files[2].path);
    CHECK(scanner.scan_file(files[1]).status == FileStatus::ok);
    CHECK(scanner.scan_file(files[2]).status == FileStatus::ok);

    // With stamps (annotate's change check) too; the stamp is the opened file's.
    t.file("k/sdsc_2.json", op_doc(2, "again"));
    struct stat st {};
    REQUIRE(::stat(files[2].path.c_str(), &st) == 0);
    options.fstat_before_read = true;
    Scanner stamped(options);
    stamped.prefetch(list);
    CHECK(stamped.scan_file(files[0]).status == FileStatus::ok);
    std::filesystem::remove(files[2].path);
    CHECK(stamped.scan_file(files[1]).status == FileStatus::ok);
    auto removed = stamped.scan_file(files[2]);
    CHECK(removed.status == FileStatus::ok);
    CHECK(removed.stamp.inode == static_cast<std::uint64_t>(st.st_ino));
    CHECK(removed.stamp.size == op_doc(2, "again").size());
}

TEST_CASE("scan: descriptor() is the open descriptor of the file just read, else -1") {
    test::TempDir t;
    std::vector<SdscFile> files = kernel_files(t, 2);
    auto inode_of_fd = [](int fd) {
        struct stat st {};
        REQUIRE(::fstat(fd, &st) == 0);
        return st.st_ino;
    };
    auto inode_of_path = [](const std::string& path) {
        struct stat st {};
        REQUIRE(::stat(path.c_str(), &st) == 0);
        return st.st_ino;
    };
    Scanner plain;
    CHECK(plain.descriptor() == -1);
    CHECK(plain.scan_file(files[0]).status == FileStatus::ok);
    CHECK(plain.descriptor() == -1); // opened and closed by the read itself
    if (!io_uring_expected()) {
        return; // nothing is opened ahead, so no descriptor is left open
    }
    Scanner scanner;
    std::vector<const SdscFile*> list = {&files[0], &files[1]};
    scanner.prefetch(list);
    for (const SdscFile& f : files) {
        CHECK(scanner.scan_file(f).status == FileStatus::ok);
        REQUIRE(scanner.descriptor() >= 0);
        CHECK(inode_of_fd(scanner.descriptor()) == inode_of_path(f.path));
    }
    // Asked out of order: read the ordinary way, and no descriptor of another file is handed out.
    CHECK(scanner.scan_file(files[0]).status == FileStatus::ok);
    CHECK(scanner.descriptor() == -1);
    // A file that cannot be read leaves none either, not even the one read before it.
    scanner.prefetch({&files[1], &files[0]});
    std::filesystem::remove(files[0].path);
    std::filesystem::create_directory(files[0].path);
    CHECK(scanner.scan_file(files[1]).status == FileStatus::ok);
    CHECK(scanner.descriptor() >= 0);
    CHECK(scanner.scan_file(files[0]).status == FileStatus::unreadable);
    CHECK(scanner.descriptor() == -1);
    // A new prefetch closes what the last one held open.
    scanner.prefetch({&files[1]});
    CHECK(scanner.scan_file(files[1]).status == FileStatus::ok);
    CHECK(scanner.descriptor() >= 0);
    scanner.prefetch({});
    CHECK(scanner.descriptor() == -1);
}
