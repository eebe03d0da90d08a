// Safe replace: temp file beside the original, renamed over it only when the original is still
// the file that was scanned. Run in temporary directories; stamps come from the real scanner.
#include "sdscprov/write/replace.hpp"
#include "sdscprov/sdsc/scan.hpp"
#include "temp_dir.hpp"

#include <algorithm>
#include <doctest/doctest.h>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <vector>

using namespace sdscprov;
namespace fs = std::filesystem;

namespace {

const std::string original_bytes = "{\"0_add\": {}}\n";
const std::string new_bytes = "{\"0_add\": {\"debug_handle_\": null}}\n";
const std::string other_writer_bytes = "{\"0_mul\": {}}\n"; // the same size as original_bytes

struct TempDir : test::TempDir {
    TempDir() : test::TempDir("sdscprov-replace") {}
};

void write_file(const fs::path& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
    out.close();
    REQUIRE(out.good());
}

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::vector<std::string> list(const fs::path& dir) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) {
        names.push_back(e.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

unsigned mode_of(const fs::path& path) {
    struct stat st {};
    REQUIRE(::lstat(path.c_str(), &st) == 0);
    return static_cast<unsigned>(st.st_mode & 07777);
}

// Writes an SDSC file with the given mode and scans it, as annotate does before replacing it.
FileStamp make_sdsc(const fs::path& path, const std::string& bytes = original_bytes,
                    mode_t mode = 0640) {
    write_file(path, bytes);
    REQUIRE(::chmod(path.c_str(), mode) == 0);
    auto name = match_sdsc_file_name(path.filename().string());
    REQUIRE(name.has_value());
    Scanner scanner;
    ScanResult r = scanner.scan_file(SdscFile{path.string(), *name});
    REQUIRE(r.status == FileStatus::ok);
    REQUIRE(r.stamp.size == bytes.size());
    return r.stamp;
}

// Sets a file's modification time to a fixed instant far from now.
void set_mtime(const fs::path& path, long seconds) {
    struct timespec times[2];
    times[0].tv_sec = seconds;
    times[0].tv_nsec = 0;
    times[1].tv_sec = seconds;
    times[1].tv_nsec = 0;
    REQUIRE(::utimensat(AT_FDCWD, path.c_str(), times, 0) == 0);
}

PendingReplace must_write_temp(const fs::path& path, const std::string& bytes,
                               const FileStamp& stamp, Durability durability) {
    Problem problem;
    auto pending = write_temp(path.string(), bytes, stamp, durability, problem);
    INFO(problem.message);
    REQUIRE(pending.has_value());
    return std::move(*pending);
}

} // namespace

TEST_CASE("replace: is_temp_file_name takes our exact names only") {
    struct Case {
        const char* name;
        bool temp;
    };
    const Case cases[] = {
        {".sdsc_0.json.sdscprov-b903fea4d-0123456789abcdef-0.tmp", true},
        {".sdsc_12_add.json.sdscprov-b00000000-ffffffffffffffff-17.tmp", true},
        {".sdsc.json.sdscprov-b903fea4d-0123456789abcdef-18446744073709551615.tmp", true},
        // The embedded name may hold anything, even our marker.
        {".x.sdscprov-b1-2.tmp.sdscprov-b903fea4d-0123456789abcdef-3.tmp", true},
        // Our names before the run token, and names merely like ours: never touched.
        {".sdsc_0.json.sdscprov-1234-0.tmp", false},
        {".notes.sdscprov-4000000-backup.tmp", false},
        {".sdsc_0.json.sdscprov-b903fea4-0123456789abcdef-0.tmp", false},  // boot: 7 digits
        {".sdsc_0.json.sdscprov-b903fea4d-0123456789abcde-0.tmp", false},  // run: 15 digits
        {".sdsc_0.json.sdscprov-b903FEA4d-0123456789abcdef-0.tmp", false}, // uppercase
        {".sdsc_0.json.sdscprov-903fea4d-0123456789abcdef-0.tmp", false},  // no 'b'
        {".sdsc_0.json.sdscprov-b903fea4d-0123456789abcdef-.tmp", false},  // no count
        {".sdsc_0.json.sdscprov-b903fea4d-0123456789abcdef-x.tmp", false},
        {".sdsc_0.json.sdscprov-b903fea4d-0123456789abcdef-123456789012345678901.tmp", false},
        {"..sdscprov-b903fea4d-0123456789abcdef-0.tmp", false},           // no embedded name
        {"sdsc_0.json.sdscprov-b903fea4d-0123456789abcdef-0.tmp", false}, // no leading dot
        {".sdsc_0.json.sdscprov-b903fea4d-0123456789abcdef-0.tmp.bak", false},
        {".sdsc_0.json.sdscprov-b903fea4d-0123456789abcdef-0", false},
        {".sdsc_0.json.tmp.abc123", false}, // the kernel cache's own temporaries
        {"sdsc_0.json", false},
        {".hidden.tmp", false},
        {"", false},
        {".", false},
    };
    for (const auto& c : cases) {
        CAPTURE(c.name);
        CHECK(is_temp_file_name(c.name) == c.temp);
    }
    auto parsed =
        parse_temp_file_name(".sdsc_3_add.json.sdscprov-b903fea4d-0123456789abcdef-12.tmp");
    REQUIRE(parsed.has_value());
    CHECK(parsed->embedded == "sdsc_3_add.json");
    CHECK(parsed->boot == "903fea4d");
    CHECK(parsed->run == "0123456789abcdef");
}

TEST_CASE("replace: the temporary of a 255-byte name fits NAME_MAX and stays its own") {
    const std::string a = "sdsc_0_" + std::string(243, 'a') + ".json";
    const std::string b = "sdsc_0_" + std::string(242, 'a') + "b.json";
    REQUIRE(a.size() == 255);
    REQUIRE(b.size() == 255);
    CHECK(temp_embedded_name("sdsc_0.json") == "sdsc_0.json");
    CHECK(temp_embedded_name(std::string(180, 'x')) == std::string(180, 'x'));
    CHECK(temp_embedded_name(a).size() == 180);
    CHECK(temp_embedded_name(a) != temp_embedded_name(b)); // a hash of the whole name
    CHECK(temp_embedded_name(a).substr(0, 163) == a.substr(0, 163));
    // Not cut inside a UTF-8 sequence (here a 2-byte one across the cut).
    const std::string utf8 = std::string(162, 'x') + "\xC3\xA9" + std::string(100, 'y');
    CHECK(temp_embedded_name(utf8).substr(0, 163) == std::string(162, 'x') + "~");

    TempDir dir;
    const fs::path path = dir.root / a;
    write_file(path, original_bytes);
    Scanner scanner;
    ScanResult r = scanner.scan_file(SdscFile{path.string(), *match_sdsc_file_name(a)});
    REQUIRE(r.status == FileStatus::ok);
    std::vector<PendingReplace> pending;
    pending.push_back(must_write_temp(path, new_bytes, r.stamp, Durability::none));
    CHECK(fs::path(pending[0].temp).filename().string().size() <= 255);
    CHECK(parse_temp_file_name(fs::path(pending[0].temp).filename().string())->embedded ==
          temp_embedded_name(a));
    CHECK(commit(pending, Durability::none).empty());
    CHECK(read_file(path) == new_bytes);
}

TEST_CASE("replace: write_temp and commit replace the file, keep its mode, leave no temp") {
    const Durability durabilities[] = {Durability::none, Durability::batch, Durability::full};
    for (Durability durability : durabilities) {
        CAPTURE(static_cast<int>(durability));
        TempDir dir;
        const fs::path path = dir.root / "sdsc_0.json";
        const FileStamp stamp = make_sdsc(path);

        PendingReplace p = must_write_temp(path, new_bytes, stamp, durability);
        CHECK(p.path == path.string());
        CHECK_FALSE(p.done);
        CHECK(p.original == stamp);
        // The temp is beside the file, named after it, with the new bytes and the file's mode.
        const fs::path temp = p.temp;
        CHECK(temp.parent_path() == dir.root);
        const std::string temp_name = temp.filename().string();
        CHECK(temp_name.rfind(".sdsc_0.json.sdscprov-", 0) == 0);
        CHECK(is_temp_file_name(temp_name));
        CHECK(read_file(temp) == new_bytes);
        CHECK(mode_of(temp) == 0640);
        // Nothing happens to the file before the commit.
        CHECK(read_file(path) == original_bytes);
        CHECK(list(dir.root) == std::vector<std::string>{temp_name, "sdsc_0.json"});

        std::vector<PendingReplace> pending;
        pending.push_back(std::move(p));
        auto problems = commit(pending, durability);
        CHECK(problems.empty());
        CHECK(pending[0].done);
        CHECK(read_file(path) == new_bytes);
        CHECK(mode_of(path) == 0640);
        CHECK(list(dir.root) == std::vector<std::string>{"sdsc_0.json"});
    }
}

TEST_CASE("replace: other modes are kept too, whatever the umask") {
    // The temporary is created with the file's permission bits where it can be (then it needs no
    // chmod), less the umask: the mode must come out exact either way.
    const mode_t modes[] = {0600, 0644, 0640, 0755, 0664, 0666, 0604, 04755, 02750, 01777};
    const mode_t umasks[] = {022, 077, 0, 0577};
    for (mode_t mode : modes) {
        for (mode_t mask : umasks) {
            CAPTURE(mode);
            CAPTURE(mask);
            TempDir dir;
            struct UmaskGuard {
                mode_t old;
                ~UmaskGuard() { ::umask(old); }
            } guard{::umask(mask)};
            const fs::path path = dir.root / "sdsc_3.json";
            const FileStamp stamp = make_sdsc(path, original_bytes, mode);
            std::vector<PendingReplace> pending;
            pending.push_back(must_write_temp(path, new_bytes, stamp, Durability::none));
            CHECK(commit(pending, Durability::none).empty());
            CHECK(read_file(path) == new_bytes);
            CHECK(mode_of(path) == mode);
        }
    }
}

TEST_CASE("replace: a read-only file is never replaced, not even by root") {
    const mode_t modes[] = {0444, 0400, 0555, 0044};
    for (mode_t mode : modes) {
        CAPTURE(mode);
        TempDir dir;
        const fs::path path = dir.root / "sdsc_0.json";
        const FileStamp stamp = make_sdsc(path, original_bytes, mode);
        Problem problem;
        auto pending = write_temp(path.string(), new_bytes, stamp, Durability::full, problem);
        CHECK_FALSE(pending.has_value());
        CHECK(problem.code == ProblemCode::write_failed);
        CHECK(problem.path == path.string());
        CHECK(problem.message.find("is read-only (mode 0") == 0);
        CHECK(problem.message.find("(the file is unchanged)") != std::string::npos);
        CHECK(read_file(path) == original_bytes);
        CHECK(mode_of(path) == mode);
        CHECK(list(dir.root) == std::vector<std::string>{"sdsc_0.json"});
    }
}

TEST_CASE("replace: a file changed after its scan is not replaced") {
    struct Case {
        const char* what;
        int change;
    };
    // 0: rewritten in place with bytes of the same size, mtime moved;
    // 1: rewritten in place with more bytes;
    // 2: replaced by another file (a new inode) renamed over it, same size, same mtime.
    const Case cases[] = {
        {"same size, mtime changed", 0},
        {"size changed", 1},
        {"another inode", 2},
    };
    const Durability durabilities[] = {Durability::none, Durability::batch, Durability::full};
    for (const auto& c : cases) {
        for (Durability durability : durabilities) {
            CAPTURE(c.what);
            CAPTURE(static_cast<int>(durability));
            TempDir dir;
            const fs::path path = dir.root / "sdsc_0.json";
            const FileStamp stamp = make_sdsc(path);
            PendingReplace p = must_write_temp(path, new_bytes, stamp, durability);

            std::string theirs = other_writer_bytes;
            if (c.change == 0) {
                write_file(path, theirs);
                set_mtime(path, 1000000000);
            } else if (c.change == 1) {
                theirs = "{\"0_add\": {\"numCoresUsed_\": 32}}\n";
                write_file(path, theirs);
            } else {
                const fs::path side = dir.root / "compile-output";
                write_file(side, theirs);
                REQUIRE(::chmod(side.c_str(), 0640) == 0);
                struct timespec times[2] = {{0, 0}, {0, 0}};
                times[0].tv_sec = static_cast<time_t>(stamp.mtime_ns / 1000000000);
                times[0].tv_nsec = static_cast<long>(stamp.mtime_ns % 1000000000);
                times[1] = times[0];
                REQUIRE(::utimensat(AT_FDCWD, side.c_str(), times, 0) == 0);
                fs::rename(side, path);
            }

            std::vector<PendingReplace> pending;
            pending.push_back(std::move(p));
            auto problems = commit(pending, durability);
            REQUIRE(problems.size() == 1);
            CHECK(problems[0].code == ProblemCode::changed_on_disk);
            CHECK(problems[0].path == path.string());
            CHECK_FALSE(pending[0].done);
            // Their bytes stay; our temp is gone.
            CHECK(read_file(path) == theirs);
            CHECK(list(dir.root) == std::vector<std::string>{"sdsc_0.json"});
        }
    }
}

TEST_CASE("replace: one changed file does not stop the others") {
    TempDir dir;
    fs::create_directories(dir.root / "k_a");
    fs::create_directories(dir.root / "k_b");
    const fs::path a = dir.root / "k_a" / "sdsc_0.json";
    const fs::path b = dir.root / "k_b" / "sdsc_1.json";
    const FileStamp stamp_a = make_sdsc(a);
    const FileStamp stamp_b = make_sdsc(b);
    std::vector<PendingReplace> pending;
    pending.push_back(must_write_temp(a, new_bytes, stamp_a, Durability::batch));
    pending.push_back(must_write_temp(b, new_bytes, stamp_b, Durability::batch));
    write_file(a, other_writer_bytes);
    set_mtime(a, 1000000000);

    auto problems = commit(pending, Durability::batch);
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].code == ProblemCode::changed_on_disk);
    CHECK(problems[0].path == a.string());
    CHECK_FALSE(pending[0].done);
    CHECK(pending[1].done);
    CHECK(read_file(a) == other_writer_bytes);
    CHECK(read_file(b) == new_bytes);
    CHECK(list(dir.root / "k_a") == std::vector<std::string>{"sdsc_0.json"});
    CHECK(list(dir.root / "k_b") == std::vector<std::string>{"sdsc_1.json"});
}

TEST_CASE("replace: a file replaced by a symlink is not written through") {
    // The symlink points at the very file that was scanned (moved aside), so following it would
    // find the same device, inode, size and mtime.
    TempDir dir;
    const fs::path path = dir.root / "sdsc_0.json";
    const fs::path moved = dir.root / "real.json";
    const FileStamp stamp = make_sdsc(path);
    PendingReplace p = must_write_temp(path, new_bytes, stamp, Durability::full);
    fs::rename(path, moved);
    fs::create_symlink("real.json", path);

    std::vector<PendingReplace> pending;
    pending.push_back(std::move(p));
    auto problems = commit(pending, Durability::full);
    REQUIRE(problems.size() == 1);
    // A link is refused as such (links are never written), whatever it points at.
    CHECK(problems[0].code == ProblemCode::write_failed);
    CHECK(problems[0].message.find("symbolic link") != std::string::npos);
    CHECK_FALSE(pending[0].done);
    CHECK(fs::is_symlink(path));
    CHECK(fs::read_symlink(path) == fs::path("real.json"));
    CHECK(read_file(moved) == original_bytes);
    CHECK(list(dir.root) == std::vector<std::string>{"real.json", "sdsc_0.json"});
}

TEST_CASE("replace: a deleted file is not recreated") {
    TempDir dir;
    const fs::path path = dir.root / "sdsc_0.json";
    const FileStamp stamp = make_sdsc(path);
    std::vector<PendingReplace> pending;
    pending.push_back(must_write_temp(path, new_bytes, stamp, Durability::none));
    fs::remove(path);
    auto problems = commit(pending, Durability::none);
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].code == ProblemCode::changed_on_disk);
    CHECK(list(dir.root).empty());
}

TEST_CASE("replace: write_temp into a missing directory fails and leaves nothing") {
    const Durability durabilities[] = {Durability::none, Durability::batch, Durability::full};
    for (Durability durability : durabilities) {
        CAPTURE(static_cast<int>(durability));
        TempDir dir;
        const FileStamp stamp = make_sdsc(dir.root / "sdsc_0.json");
        const fs::path path = dir.root / "missing" / "sdsc_0.json";
        Problem problem;
        auto pending = write_temp(path.string(), new_bytes, stamp, durability, problem);
        CHECK_FALSE(pending.has_value());
        CHECK(problem.code == ProblemCode::write_failed);
        CHECK(problem.severity == Severity::error);
        CHECK(problem.path == path.string());
        CHECK(problem.message.find("the file is unchanged") != std::string::npos);
        CHECK_FALSE(fs::exists(dir.root / "missing"));
        CHECK(list(dir.root) == std::vector<std::string>{"sdsc_0.json"});
        CHECK(read_file(dir.root / "sdsc_0.json") == original_bytes);
    }
}

TEST_CASE("replace: discard removes the temps and leaves the files") {
    TempDir dir;
    const fs::path a = dir.root / "sdsc_0.json";
    const fs::path b = dir.root / "sdsc_1.json";
    const FileStamp stamp_a = make_sdsc(a);
    const FileStamp stamp_b = make_sdsc(b);
    std::vector<PendingReplace> pending;
    pending.push_back(must_write_temp(a, new_bytes, stamp_a, Durability::none));
    pending.push_back(must_write_temp(b, new_bytes, stamp_b, Durability::none));
    CHECK(pending[0].temp != pending[1].temp);
    CHECK(list(dir.root).size() == 4);
    discard(pending);
    CHECK(list(dir.root) == std::vector<std::string>{"sdsc_0.json", "sdsc_1.json"});
    CHECK(read_file(a) == original_bytes);
    CHECK(read_file(b) == original_bytes);
}

TEST_CASE("replace: discard after a commit keeps the committed files") {
    TempDir dir;
    const fs::path a = dir.root / "sdsc_0.json";
    const FileStamp stamp_a = make_sdsc(a);
    std::vector<PendingReplace> pending;
    pending.push_back(must_write_temp(a, new_bytes, stamp_a, Durability::none));
    REQUIRE(commit(pending, Durability::none).empty());
    discard(pending);
    CHECK(read_file(a) == new_bytes);
    CHECK(list(dir.root) == std::vector<std::string>{"sdsc_0.json"});
}

// The bytes of a file's (or descriptor's) extended attribute `name`, nullopt when it has none.
std::optional<std::string> xattr_of(int fd, const char* name) {
    char value[64];
    ssize_t n = ::fgetxattr(fd, name, value, sizeof value);
    if (n < 0) {
        return std::nullopt;
    }
    return std::string(value, static_cast<std::size_t>(n));
}

TEST_CASE("replace: with the read file's descriptor its attributes are taken from it") {
    // The path names another file by the time the temporary is written (a compile replaced it):
    // the temporary gets the attributes of the file that was read, and commit then leaves the
    // new file alone.
    TempDir dir;
    const fs::path path = dir.root / "sdsc_0.json";
    const FileStamp stamp = make_sdsc(path);
    REQUIRE(::setxattr(path.c_str(), "user.origin", "compile 7", 9, 0) == 0);
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    FileStamp read_stamp = stamp;
    read_stamp.ctime_ns = static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 +
                          st.st_ctim.tv_nsec; // the attribute moved the change time
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    REQUIRE(fd >= 0);
    write_file(dir.root / "other.json", other_writer_bytes);
    fs::rename(dir.root / "other.json", path);

    Problem problem;
    std::string_view pieces[] = {new_bytes};
    auto p = write_temp(path.string(), pieces, read_stamp, Durability::none, problem,
                        TempSource{fd, nullptr});
    INFO(problem.message);
    REQUIRE(p.has_value());
    CHECK(xattr_of(p->fd(), "user.origin") == std::optional<std::string>("compile 7"));
    std::vector<PendingReplace> pending;
    pending.push_back(std::move(*p));
    auto problems = commit(pending, Durability::none);
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].code == ProblemCode::changed_on_disk);
    CHECK(read_file(path) == other_writer_bytes);
    CHECK(list(dir.root) == std::vector<std::string>{"sdsc_0.json"});
    ::close(fd);
}

TEST_CASE("replace: temporaries made through TempDirectories stay in the directory held open") {
    // The kernel directory is moved aside and a new one made under its name after the
    // temporaries were written: creation, check, rename and removal all happen in the directory
    // the files were read from, and the new one is not touched.
    TempDir dir;
    const fs::path k = dir.root / "k";
    fs::create_directory(k);
    const FileStamp a = make_sdsc(k / "sdsc_0.json");
    const FileStamp b = make_sdsc(k / "sdsc_1.json");
    const FileStamp c = make_sdsc(k / "sdsc_2.json");
    TempDirectories directories;
    std::vector<PendingReplace> pending;
    std::vector<PendingReplace> dropped;
    std::string_view pieces[] = {new_bytes};
    for (const auto& [name, stamp] :
         {std::pair{"sdsc_0.json", a}, std::pair{"sdsc_1.json", b}, std::pair{"sdsc_2.json", c}}) {
        Problem problem;
        auto p = write_temp((k / name).string(), pieces, stamp, Durability::none, problem,
                            TempSource{-1, &directories});
        INFO(problem.message);
        REQUIRE(p.has_value());
        CHECK(p->directory_fd() >= 0);
        (std::string(name) == "sdsc_2.json" ? dropped : pending).push_back(std::move(*p));
    }
    CHECK(pending[0].directory_fd() == pending[1].directory_fd()); // one per directory
    CHECK(list(k).size() == 6);
    fs::rename(k, dir.root / "moved");
    fs::create_directory(k);
    write_file(k / "sdsc_0.json", other_writer_bytes);

    discard(dropped);
    CHECK(commit(pending, Durability::none).empty());
    CHECK(pending[0].done);
    CHECK(pending[1].done);
    CHECK(list(dir.root / "moved") ==
          std::vector<std::string>{"sdsc_0.json", "sdsc_1.json", "sdsc_2.json"});
    CHECK(read_file(dir.root / "moved" / "sdsc_0.json") == new_bytes);
    CHECK(read_file(dir.root / "moved" / "sdsc_1.json") == new_bytes);
    CHECK(read_file(dir.root / "moved" / "sdsc_2.json") == original_bytes);
    CHECK(list(k) == std::vector<std::string>{"sdsc_0.json"});
    CHECK(read_file(k / "sdsc_0.json") == other_writer_bytes);
}

TEST_CASE("replace: commit of nothing") {
    std::vector<PendingReplace> pending;
    CHECK(commit(pending, Durability::batch).empty());
    CHECK(commit(pending, Durability::full).empty());
}
