#include "sdscprov/walk/discover.hpp"

#include "sdscprov/core/path.hpp"
#include "sdscprov/walk/shard.hpp"
#include "walk/kernel_names.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <memory>
#include <optional>
#include <pwd.h>
#include <set>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <utility>

namespace sdscprov {

std::vector<std::string> default_cache_roots() {
    const char* dir = std::getenv("TORCHINDUCTOR_CACHE_DIR");
    if (dir != nullptr && *dir != '\0') {
        return {dir};
    }
    const char* user = std::getenv("USER");
    std::string name = user != nullptr && *user != '\0' ? user : "";
    if (name.empty()) {
        const passwd* pw = ::getpwuid(::getuid());
        name = pw != nullptr ? pw->pw_name : "root";
    }
    return {"/tmp/torchinductor_" + name};
}

std::string_view to_string(FileNaming n) {
    switch (n) {
    case FileNaming::indexed:
        return "sdsc_N";
    case FileNaming::indexed_opfunc:
        return "sdsc_N_opfunc";
    case FileNaming::execute:
        return "execute";
    case FileNaming::named:
        return "named";
    }
    return "named";
}

namespace {

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}
bool is_ident(char c) {
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_lower_hex(char c) {
    return is_digit(c) || (c >= 'a' && c <= 'f');
}

std::string join_path(std::string_view dir, std::string_view name) {
    std::string p;
    p.reserve(dir.size() + 1 + name.size());
    p.append(dir);
    if (!p.empty() && p.back() != '/') {
        p.push_back('/');
    }
    p.append(name);
    return p;
}

std::string errno_message(int err) {
    return std::strerror(err);
}

bool by_index_then_name(const SdscFile& a, const SdscFile& b) {
    // Files without an index sort after indexed ones; then byte order of the path.
    auto ia = a.name.index.value_or(UINT64_MAX);
    auto ib = b.name.index.value_or(UINT64_MAX);
    return ia != ib ? ia < ib : a.path < b.path;
}

// linked_directory: a symbolic link to a directory, when links are not followed.
enum class EntryKind { regular_file, directory, linked_directory, other };

using FileId = std::pair<dev_t, ino_t>;

struct Entry {
    std::string name;
    EntryKind kind;
    bool is_symlink;
    bool broken_link = false; // a symlink that leads nowhere (dangling, or a loop)
    FileId target{};          // linked_directory: the directory it leads to
};

// An open directory descriptor, shared by the subdirectories still to be walked (they are opened
// relative to it: no path lookup from the root per directory) and closed with its last user.
using DirFd = DirectoryFd;

struct PendingDir {
    std::string path;              // as reached from the root
    std::shared_ptr<DirFd> parent; // null for a root: opened by path
    bool outside_roots = false;    // reached through a link to a directory outside every root
    HeldDirectory root{};          // the root it lies below (null for a root)
    std::string relative{};        // its names below the root
};

// The path with every symlink resolved; empty when it cannot be resolved.
std::string real_path(const std::string& path) {
    std::unique_ptr<char, decltype(&std::free)> real(::realpath(path.c_str(), nullptr), &std::free);
    return real ? std::string(real.get()) : std::string();
}

// Whether the real path `real` is one of `roots` (real paths) or lies below one.
bool real_path_inside(const std::string& real, const std::vector<std::string>& roots) {
    return !real.empty() && std::any_of(roots.begin(), roots.end(), [&](const std::string& root) {
        return root == "/" || real == root || (real.starts_with(root) && real[root.size()] == '/');
    });
}

// Opens the directory `relative` below `base` without following any symbolic link on the way:
// openat2 confined beneath `base`, else (kernels before 5.6, or a filter that refuses it) one
// openat with O_NOFOLLOW per name. With `follow`, links are followed (one openat). -1 with errno.
int open_directory_beneath(int base, const std::string& relative, bool follow) {
    constexpr int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
    if (follow) {
        return ::openat(base, relative.c_str(), flags);
    }
    open_how how{};
    how.flags = flags;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    int fd = static_cast<int>(::syscall(SYS_openat2, base, relative.c_str(), &how, sizeof how));
    if (fd >= 0 || (errno != ENOSYS && errno != EPERM && errno != E2BIG && errno != EINVAL)) {
        return fd;
    }
    int at = base;
    std::size_t begin = 0;
    while (begin <= relative.size()) {
        std::size_t end = relative.find('/', begin);
        end = end == std::string::npos ? relative.size() : end;
        std::string name = relative.substr(begin, end - begin);
        begin = end + 1;
        if (name.empty() || name == ".") {
            continue;
        }
        int next = name == ".." ? (errno = EXDEV, -1) : ::openat(at, name.c_str(), flags | O_NOFOLLOW);
        int err = errno;
        if (at != base) {
            ::close(at);
        }
        if (next < 0) {
            errno = err;
            return -1;
        }
        at = next;
    }
    return at == base ? ::fcntl(base, F_DUPFD_CLOEXEC, 0) : at;
}

// The real path of an open directory (through /proc), empty when it cannot be read.
std::string real_path_of(int fd) {
    return real_path("/proc/self/fd/" + std::to_string(fd));
}

// Entry kind from getdents' d_type, resolving what it leaves open (DT_UNKNOWN on some file
// systems, and symlinks) with fstatat. nullopt: the entry is skipped (vanished). A directory
// symlink when links are not followed is a `linked_directory`. A link that leads nowhere
// (dangling, or a loop) is `other`: named like an SDSC file, the scan reports why it cannot be
// read.
std::optional<Entry> classify(int dfd, const char* name, unsigned char type, bool follow_symlinks) {
    Entry entry{std::string(name), EntryKind::other, false};
    if (type == DT_UNKNOWN || type == DT_LNK) {
        struct stat st {};
        if (::fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            return std::nullopt;
        }
        if (S_ISLNK(st.st_mode)) {
            entry.is_symlink = true;
            if (::fstatat(dfd, name, &st, 0) != 0) {
                entry.broken_link = true;
                return entry;
            }
        }
        type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
        if (type == DT_DIR && entry.is_symlink && !follow_symlinks) {
            entry.kind = EntryKind::linked_directory; // not walked; named if it leads to a kernel
            entry.target = {st.st_dev, st.st_ino};
            return entry;
        }
    }
    // Fifos, sockets and devices named like SDSC files are kept as "files" (not known regular):
    // reading them reports them instead of silently skipping a name the user expects scanned.
    entry.kind = type == DT_DIR   ? EntryKind::directory
                 : type == DT_REG ? EntryKind::regular_file
                                  : EntryKind::other;
    return entry;
}

class Walker {
public:
    // `real_roots`: the directory roots with their symlinks resolved (needed with
    // follow_symlinks only).
    Walker(const DiscoverOptions& options, const std::function<void(KernelDir&&)>& on_kernel_dir,
           const std::function<void(Problem&&)>& on_problem, std::vector<std::string> real_roots)
        : options_(options), on_kernel_dir_(on_kernel_dir), on_problem_(on_problem),
          dirents_(dirents_buffer_size),
          real_roots_(std::make_shared<const std::vector<std::string>>(std::move(real_roots))) {}

    // How a kernel directory below `root` (held open) at `relative` is reached again.
    KernelReach reach(HeldDirectory root, std::string relative) const {
        return {std::move(root), std::move(relative), options_.follow_symlinks, real_roots_};
    }

    // Walks a directory root. A root that is (or lies inside) a directory walked before is
    // walked no further: a directory is one directory however it is named (`c c`, `c ./c`,
    // `c c/k`). A root holding no SDSC file at all is a problem (a gate given nothing to check
    // must not pass silently).
    void walk(const std::string& root) {
        std::uint64_t kernels_before = kernels_;
        bool root_new = false;
        // Explicit stack: nesting depth is bounded by the file system, not by our call stack.
        std::vector<PendingDir> stack;
        stack.push_back({root, nullptr});
        while (!stack.empty()) {
            PendingDir dir = std::move(stack.back());
            stack.pop_back();
            std::vector<Entry> entries;
            auto fd = read_directory(dir, entries);
            if (fd == nullptr) {
                continue;
            }
            root_new = true;
            ++stats_.directories;
            visit(dir, fd, entries, stack);
        }
        if (root_new && kernels_ == kernels_before) {
            on_problem_(make_problem(root, {}, ProblemCode::no_sdsc_files,
                                     "no SDSC file (sdsc_<N>.json, sdsc_<N>_<opfunc>.json or "
                                     "execute/<kernel>/sdsc.json) under this directory"));
        }
    }

    // A kernel directory of file roots: every SDSC file of `dir` (the siblings are read for the
    // kernel's join, `context`), or nullopt when the directory was already reported as a kernel
    // directory by the walk (the files are covered) or cannot be read (the caller falls back to
    // the named files alone).
    std::optional<KernelDir> list_kernel_dir(const std::string& dir, FileId id) {
        if (emitted_.contains(id)) {
            return std::nullopt;
        }
        std::vector<Entry> entries;
        auto fd = read_directory({dir, nullptr}, entries, false);
        if (fd == nullptr) {
            return std::nullopt;
        }
        KernelDir kd;
        kd.path = dir;
        kd.reach = reach(fd, {});
        collect(dir, entries, false, kd);
        for (auto& f : kd.files) {
            f.context = true;
        }
        return kd;
    }

    // Directory symlinks that were not followed and lead to SDSC files no other path reached:
    // named in a note, so that a kernel is never missed without a word.
    void note_unfollowed_links() {
        for (const auto& link : unfollowed_) {
            if (visited_.contains(link.second)) {
                continue;
            }
            on_problem_(make_problem(link.first, {}, ProblemCode::symlink_not_followed,
                                     "a symbolic link to a directory holding SDSC files, not "
                                     "followed: --follow-symlinks walks it"));
        }
    }

    bool was_emitted(FileId id) const { return emitted_.contains(id); }
    const DiscoverStats& stats() const { return stats_; }

private:
    static constexpr std::size_t dirents_buffer_size = 64 * 1024;

    // Opens a directory (relative to its parent's descriptor) and reads its entries with
    // getdents64 into a reused buffer, sorted by name. nullptr when it cannot be read (reported),
    // or, with `once`, when it was already read (a loop, two links to one target, overlapping
    // roots).
    std::shared_ptr<DirFd> read_directory(const PendingDir& dir, std::vector<Entry>& entries,
                                          bool once = true) {
        int flags =
            O_RDONLY | O_DIRECTORY | O_CLOEXEC | (options_.follow_symlinks ? 0 : O_NOFOLLOW);
        int raw = dir.parent
                      ? ::openat(dir.parent->get(), std::string(base_name(dir.path)).c_str(), flags)
                      : ::open(dir.path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (raw < 0) {
            int err = errno;
            // Listed as a directory a moment ago: what stands there now is not followed.
            if (dir.parent && !options_.follow_symlinks && (err == ELOOP || err == ENOTDIR)) {
                on_problem_(make_problem(dir.path, {}, ProblemCode::io_error,
                                         "not read: a symbolic link or another file now stands "
                                         "where the walk found a directory (put in its place "
                                         "during the run): not followed, skipped"));
                return nullptr;
            }
            on_problem_(make_problem(dir.path, {}, ProblemCode::io_error,
                                     "cannot read directory: " + errno_message(err)));
            return nullptr;
        }
        auto fd = std::make_shared<DirFd>(raw);
        // A directory reached twice (a loop or two links to one target with symlinks followed,
        // or roots that overlap) is walked once.
        struct stat st {};
        if (::fstat(raw, &st) == 0) {
            current_ = {st.st_dev, st.st_ino};
            if (!visited_.insert(current_).second && once) {
                return nullptr;
            }
        }
        for (;;) {
            ssize_t n = ::getdents64(raw, dirents_.data(), dirents_.size());
            if (n < 0) {
                on_problem_(make_problem(dir.path, {}, ProblemCode::io_error,
                                         "error while reading directory: " + errno_message(errno)));
                break;
            }
            if (n == 0) {
                break;
            }
            for (ssize_t at = 0; at < n;) {
                const auto* e = reinterpret_cast<const struct dirent64*>(dirents_.data() + at);
                at += e->d_reclen;
                std::string_view name = e->d_name;
                if (name == "." || name == "..") {
                    continue;
                }
                if (auto entry = classify(raw, e->d_name, e->d_type, options_.follow_symlinks)) {
                    entries.push_back(std::move(*entry));
                }
            }
        }
        std::sort(entries.begin(), entries.end(),
                  [](const Entry& a, const Entry& b) { return a.name < b.name; });
        return fd;
    }

    bool skipped_as_incomplete(std::string_view name, std::string_view parent_name) const {
        if (options_.include_incomplete) {
            return false;
        }
        return name.find(".tmp.") != std::string_view::npos ||
               (name == "failed" && parent_name == "inductor-spyre-cache");
    }

    // Whether `path` (a directory reached through a symlink) resolves to a place inside one of
    // the directory roots. The writing commands never write outside them.
    bool inside_roots(const std::string& path) const {
        std::string real = real_path(path);
        return real_path_inside(real, *real_roots_);
    }

    // The SDSC files, bundle.mlir and our temporaries among a directory's entries.
    static void collect(const std::string& dir, const std::vector<Entry>& entries,
                        bool outside_roots, KernelDir& kd) {
        for (const auto& e : entries) {
            if (e.kind == EntryKind::directory || e.kind == EntryKind::linked_directory) {
                continue;
            }
            if (e.name == "bundle.mlir") {
                kd.has_bundle = !e.broken_link;
            } else if (e.kind == EntryKind::regular_file && !e.is_symlink &&
                       is_temp_file_name(e.name)) {
                kd.temps.push_back(join_path(dir, e.name));
            } else if (auto name = match_sdsc_file_name(e.name)) {
                kd.files.push_back({join_path(dir, e.name), std::move(*name),
                                    e.kind == EntryKind::regular_file, outside_roots});
                kd.files.back().symlink = e.is_symlink;
            }
        }
        kd.kernel = kernel_name_from_dir(base_name(dir));
    }

    void visit(const PendingDir& pending, const std::shared_ptr<DirFd>& fd,
               const std::vector<Entry>& entries, std::vector<PendingDir>& stack) {
        const std::string& dir = pending.path;
        FileId id = current_;
        KernelDir kd;
        kd.path = dir;
        HeldDirectory root = pending.root ? pending.root : fd;
        kd.reach = reach(root, pending.relative);
        std::string dir_name(base_name(dir));
        bool has_execute = false;
        for (const auto& e : entries) {
            has_execute |= e.kind == EntryKind::directory && e.name == "execute";
            if (e.kind == EntryKind::linked_directory) {
                note_link(fd->get(), join_path(dir, e.name), e);
            }
        }
        collect(dir, entries, pending.outside_roots, kd);
        bool cache_entry =
            dir_name != "failed" && base_name(parent_dir(dir)) == "inductor-spyre-cache";
        if (cache_entry && !kd.kernel &&
            std::any_of(entries.begin(), entries.end(), [](const Entry& e) {
                return e.name == kernel_name_list && e.kind == EntryKind::regular_file &&
                       !e.is_symlink;
            })) {
            read_kernel_name_list(fd->get(), kd);
        }
        // The oldest layout has no sdsc_<N> files beside execute/: only then is execute/ read.
        if (has_execute && kd.files.empty()) {
            collect_execute_files(dir, fd, pending.outside_roots, kd);
        }
        // A kernel directory (by its name, or by its place in the persistent kernel cache) holds
        // backend output in its subdirectories (execute/, spyreCodeDir/, ...), never other kernel
        // directories: they are not walked. execute/<kernel>/sdsc.json was collected above.
        bool kernel_layout = kd.kernel.has_value() || cache_entry;
        if (!kd.files.empty()) {
            std::sort(kd.files.begin(), kd.files.end(), by_index_then_name);
            ++kernels_;
            emitted_.insert(id);
            on_kernel_dir_(std::move(kd));
        }
        if (kernel_layout) {
            return;
        }
        // Push subdirectories in reverse so that they are walked in name order.
        for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
            if (it->kind != EntryKind::directory || it->name == "execute") {
                continue;
            }
            if (skipped_as_incomplete(it->name, dir_name)) {
                ++stats_.skipped_incomplete;
                continue;
            }
            std::string path = join_path(dir, it->name);
            bool outside = pending.outside_roots || (it->is_symlink && !inside_roots(path));
            stack.push_back(
                {std::move(path), fd, outside, root, join_path(pending.relative, it->name)});
        }
    }

    // A directory symlink that is not followed: remembered when it leads to SDSC files (one
    // directory read of its target), for note_unfollowed_links.
    void note_link(int dfd, std::string path, const Entry& e) {
        int raw = ::openat(dfd, e.name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (raw < 0) {
            return;
        }
        DirFd guard(raw);
        bool holds_sdsc = false;
        for (;;) {
            ssize_t n = ::getdents64(raw, dirents_.data(), dirents_.size());
            if (n <= 0) {
                break;
            }
            for (ssize_t at = 0; at < n && !holds_sdsc;) {
                const auto* d = reinterpret_cast<const struct dirent64*>(dirents_.data() + at);
                at += d->d_reclen;
                holds_sdsc = match_sdsc_file_name(d->d_name).has_value();
            }
            if (holds_sdsc) {
                break;
            }
        }
        if (holds_sdsc || kernel_name_from_dir(e.name) || e.name == "inductor-spyre" ||
            e.name == "inductor-spyre-cache") {
            unfollowed_.emplace_back(std::move(path), e.target);
        }
    }

    // The oldest layout keeps one op per kernel in <kernel dir>/execute/<kernel>/sdsc.json; those
    // files belong to the kernel directory, not to execute/<kernel>/.
    void collect_execute_files(const std::string& dir, const std::shared_ptr<DirFd>& fd,
                               bool outside_roots, KernelDir& kd) {
        std::vector<Entry> entries;
        auto execute = read_directory({join_path(dir, "execute"), fd}, entries);
        if (execute == nullptr) {
            return;
        }
        for (const auto& e : entries) {
            std::string relative = join_path(e.name, "sdsc.json");
            struct stat st {};
            struct stat link {};
            if (e.kind == EntryKind::directory &&
                ::fstatat(execute->get(), relative.c_str(), &link, AT_SYMLINK_NOFOLLOW) == 0 &&
                ::fstatat(execute->get(), relative.c_str(), &st, 0) == 0 && !S_ISDIR(st.st_mode)) {
                // With links followed, execute/ or execute/<kernel>/ may be one.
                bool outside =
                    outside_roots || (options_.follow_symlinks &&
                                      !inside_roots(join_path(dir, "execute/" + e.name)));
                kd.files.push_back({join_path(dir, "execute/" + relative),
                                    SdscName{FileNaming::execute, std::nullopt, {}},
                                    S_ISREG(st.st_mode), outside});
                kd.files.back().symlink = S_ISLNK(link.st_mode);
                if (options_.find_temps) {
                    collect_temps(join_path(dir, "execute/" + e.name), execute, kd);
                }
            }
        }
    }

    // Our temporaries beside an execute/<kernel>/sdsc.json (writing commands only: one more
    // directory read per op of the oldest layout).
    void collect_temps(const std::string& dir, const std::shared_ptr<DirFd>& parent,
                       KernelDir& kd) {
        std::vector<Entry> entries;
        if (read_directory({dir, parent}, entries) == nullptr) {
            return;
        }
        for (const auto& e : entries) {
            if (e.kind == EntryKind::regular_file && !e.is_symlink && is_temp_file_name(e.name)) {
                kd.temps.push_back(join_path(dir, e.name));
            }
        }
    }

    const DiscoverOptions& options_;
    const std::function<void(KernelDir&&)>& on_kernel_dir_;
    const std::function<void(Problem&&)>& on_problem_;
    std::set<FileId> visited_;  // every directory read
    std::set<FileId> emitted_;  // the kernel directories passed on
    FileId current_{};          // the directory read_directory read last
    std::uint64_t kernels_ = 0; // kernel directories passed on
    std::vector<std::pair<std::string, FileId>>
        unfollowed_; // directory links leading to SDSC files
    DiscoverStats stats_;
    std::vector<char> dirents_;
    std::shared_ptr<const std::vector<std::string>> real_roots_;
};

} // namespace

void drop_context_files(KernelDir& dir) {
    std::erase_if(dir.files, [](const SdscFile& f) { return f.context; });
}

DirectoryFd::~DirectoryFd() {
    if (fd_ >= 0) {
        ::close(fd_);
    }
}

void release_directories(KernelDir& dir) {
    dir.fd.reset();
    for (auto& f : dir.files) {
        f.dir.reset();
    }
}

namespace {

// Why the files of a directory that cannot be opened again are not read.
std::string unreachable_because(const std::string& dir, int err) {
    if (err == ELOOP || err == ENOTDIR || err == EXDEV) {
        return "not read: " + dir +
               " is not the directory the walk read (a symbolic link or another file was put in "
               "its place during the run): not followed, skipped";
    }
    return "not read: cannot open its directory " + dir + " again: " + errno_message(err);
}

} // namespace

void open_kernel_dir(KernelDir& dir) {
    const KernelReach& reach = dir.reach;
    if (!reach.root) {
        return;
    }
    auto unreachable = [&](const std::string& where, int err) {
        std::string why = unreachable_because(where, err);
        for (auto& f : dir.files) {
            f.unreachable = why;
        }
        dir.has_bundle = false;
    };
    if (reach.relative.empty()) {
        dir.fd = reach.root;
    } else {
        int fd = open_directory_beneath(reach.root->get(), reach.relative, reach.follow_symlinks);
        if (fd < 0) {
            unreachable(dir.path, errno);
            return;
        }
        dir.fd = std::make_shared<const DirectoryFd>(fd);
    }
    bool outside = false;
    if (reach.follow_symlinks && reach.real_roots) {
        outside = !real_path_inside(real_path_of(dir.fd->get()), *reach.real_roots);
    }
    // A file directly in the kernel directory is opened there; execute/<kernel>/sdsc.json in its
    // own directory, opened from the kernel directory the same way.
    std::string prefix = dir.path;
    if (!prefix.empty() && prefix.back() != '/') {
        prefix.push_back('/');
    }
    for (auto& f : dir.files) {
        f.outside_roots |= outside;
        std::string_view name = file_name_of(f.path);
        std::string_view parent = std::string_view(f.path).substr(0, f.path.size() - name.size());
        if (parent.empty() || parent == prefix || !f.path.starts_with(prefix)) {
            f.dir = dir.fd;
            continue;
        }
        std::string below(parent.substr(prefix.size()));
        while (!below.empty() && below.front() == '/') {
            below.erase(below.begin());
        }
        if (below.empty()) {
            f.dir = dir.fd;
            continue;
        }
        int fd = open_directory_beneath(dir.fd->get(), below, reach.follow_symlinks);
        if (fd < 0) {
            f.unreachable = unreachable_because(std::string(parent.substr(0, parent.size() - 1)),
                                                errno);
            continue;
        }
        f.dir = std::make_shared<const DirectoryFd>(fd);
        if (reach.follow_symlinks && reach.real_roots && !f.outside_roots) {
            f.outside_roots = !real_path_inside(real_path_of(fd), *reach.real_roots);
        }
    }
}

namespace {

// `count` lowercase hex digits ending at `end` (exclusive) of `s`.
bool lower_hex_before(std::string_view s, std::size_t end, std::size_t count) {
    return end >= count && std::all_of(s.begin() + static_cast<std::ptrdiff_t>(end - count),
                                       s.begin() + static_cast<std::ptrdiff_t>(end), is_lower_hex);
}

} // namespace

std::optional<TempFileName> parse_temp_file_name(std::string_view name) {
    // Read from the end: the embedded name may hold anything, even ".sdscprov-".
    constexpr std::string_view suffix = ".tmp";
    constexpr std::string_view marker = ".sdscprov-b";
    if (name.size() < 2 || name[0] != '.' || !name.ends_with(suffix)) {
        return std::nullopt;
    }
    std::size_t end = name.size() - suffix.size();
    std::size_t digits = 0;
    while (digits < end && digits <= 20 && is_digit(name[end - 1 - digits])) {
        ++digits;
    }
    if (digits == 0 || digits > 20) {
        return std::nullopt;
    }
    end -= digits;
    if (end < 1 || name[end - 1] != '-' || !lower_hex_before(name, end - 1, 16)) {
        return std::nullopt;
    }
    std::size_t run = end - 1 - 16;
    if (run < 1 || name[run - 1] != '-' || !lower_hex_before(name, run - 1, 8)) {
        return std::nullopt;
    }
    std::size_t boot = run - 1 - 8;
    if (boot < marker.size() + 2 || name.substr(boot - marker.size(), marker.size()) != marker) {
        return std::nullopt;
    }
    return TempFileName{name.substr(1, boot - marker.size() - 1), name.substr(boot, 8),
                        name.substr(run, 16)};
}

bool is_temp_file_name(std::string_view name) {
    return parse_temp_file_name(name).has_value();
}

std::string temp_embedded_name(std::string_view file_name) {
    constexpr std::size_t longest = 180;
    if (file_name.size() <= longest) {
        return std::string(file_name);
    }
    char hash[17];
    std::snprintf(hash, sizeof hash, "%016llx",
                  static_cast<unsigned long long>(fnv1a64(file_name)));
    std::size_t keep = longest - 1 - 16;
    // Not inside a UTF-8 sequence: the name is shown in notes.
    while (keep > 0 && (static_cast<unsigned char>(file_name[keep]) & 0xC0) == 0x80) {
        --keep;
    }
    return std::string(file_name.substr(0, keep)) + "~" + hash;
}

std::optional<SdscName> match_sdsc_file_name(std::string_view name) {
    constexpr std::string_view prefix = "sdsc_";
    constexpr std::string_view suffix = ".json";
    if (name.size() <= prefix.size() + suffix.size() || !name.starts_with(prefix) ||
        !name.ends_with(suffix)) {
        return std::nullopt;
    }
    std::string_view stem = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    std::size_t digits = 0;
    while (digits < stem.size() && is_digit(stem[digits])) {
        ++digits;
    }
    if (digits == 0 || digits > 19) {
        return std::nullopt;
    }
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < digits; ++i) {
        n = n * 10 + static_cast<std::uint64_t>(stem[i] - '0');
    }
    if (digits == stem.size()) {
        return SdscName{FileNaming::indexed, n, {}};
    }
    std::string_view opfunc = stem.substr(digits + 1);
    if (stem[digits] != '_' || opfunc.empty() ||
        !std::all_of(opfunc.begin(), opfunc.end(), is_ident)) {
        return std::nullopt;
    }
    return SdscName{FileNaming::indexed_opfunc, n, std::string(opfunc)};
}

namespace {

// With --follow-symlinks, the real paths of the directory roots: a link met in the walk that
// leads back under one of them is not followed twice.
std::vector<std::string> real_roots_of(const std::vector<std::string>& roots,
                                       const DiscoverOptions& options) {
    std::vector<std::string> real_roots;
    if (!options.follow_symlinks) {
        return real_roots;
    }
    for (const auto& root : roots) {
        struct stat st {};
        if (::stat(root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
            continue;
        }
        if (std::string real = real_path(root); !real.empty()) {
            real_roots.push_back(std::move(real));
        }
    }
    return real_roots;
}

// Explicit file roots, grouped by their directory (in order of first appearance): each group is
// the directory's kernel with all its SDSC files, the ones not named being context only.
struct FileGroup {
    FileId dir_id;
    KernelDir kernel;
    std::vector<FileId> named; // the files named, by identity: one file however it is named
};

// The group of the directory of `root` (a file), made when it is the first file named there.
FileGroup& group_of(std::vector<FileGroup>& file_groups, Walker& walker, const std::string& root) {
    std::string parent = parent_dir(root);
    struct stat parent_st {};
    FileId parent_id{};
    if (::stat(parent.c_str(), &parent_st) == 0) {
        parent_id = {parent_st.st_dev, parent_st.st_ino};
    }
    auto group = std::find_if(file_groups.begin(), file_groups.end(), [&](const FileGroup& g) {
        return parent_id != FileId{} ? g.dir_id == parent_id : g.kernel.path == parent;
    });
    if (group != file_groups.end()) {
        return *group;
    }
    KernelDir kd;
    kd.path = parent;
    kd.kernel = kernel_name_from_dir(base_name(parent == "." ? std::string_view{} : parent));
    struct stat bundle {};
    kd.has_bundle = ::stat(join_path(parent, "bundle.mlir").c_str(), &bundle) == 0;
    // The directory of the files named, held open: they are opened there for their work.
    int parent_fd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (parent_fd >= 0) {
        kd.reach = walker.reach(std::make_shared<const DirectoryFd>(parent_fd), {});
    }
    file_groups.push_back({parent_id, std::move(kd), {}});
    return file_groups.back();
}

// Adds the file `root` (stat'ed as `st`) to its directory's group, once however it is named.
void add_named_file(std::vector<FileGroup>& file_groups, Walker& walker, const std::string& root,
                    const struct stat& st) {
    FileGroup& group = group_of(file_groups, walker, root);
    FileId id{st.st_dev, st.st_ino};
    if (std::find(group.named.begin(), group.named.end(), id) != group.named.end()) {
        return;
    }
    group.named.push_back(id);
    std::string_view file_name = base_name(root);
    SdscName name{FileNaming::named, std::nullopt, {}};
    if (auto m = match_sdsc_file_name(file_name)) {
        name = std::move(*m);
    } else if (file_name == "sdsc.json" && base_name(parent_dir(parent_dir(root))) == "execute") {
        name.naming = FileNaming::execute;
    }
    group.kernel.files.push_back({root, std::move(name), S_ISREG(st.st_mode)});
    struct stat link {};
    group.kernel.files.back().symlink = ::lstat(root.c_str(), &link) == 0 && S_ISLNK(link.st_mode);
}

// The kernel of a group of named files: the directory's other SDSC files join as context (not in
// the execute layout), unless a directory root covered the files already (nullopt).
std::optional<KernelDir> kernel_of(FileGroup& group, Walker& walker) {
    KernelDir& named = group.kernel;
    if (group.dir_id != FileId{} && walker.was_emitted(group.dir_id)) {
        return std::nullopt;
    }
    bool execute_layout = std::any_of(named.files.begin(), named.files.end(),
                                      [](auto& f) { return f.name.naming == FileNaming::execute; });
    std::optional<KernelDir> whole;
    if (!execute_layout && group.dir_id != FileId{}) {
        whole = walker.list_kernel_dir(named.path, group.dir_id);
    }
    if (whole) {
        // A named file takes its sibling entry's place (same directory, same name), spelled
        // as it was named; a named file of another name is added.
        for (auto& file : named.files) {
            auto same = std::find_if(whole->files.begin(), whole->files.end(), [&](auto& f) {
                return base_name(f.path) == base_name(file.path);
            });
            if (same != whole->files.end()) {
                *same = std::move(file);
            } else {
                whole->files.push_back(std::move(file));
            }
        }
        named = std::move(*whole);
    }
    std::sort(named.files.begin(), named.files.end(), by_index_then_name);
    return std::move(named);
}

} // namespace

DiscoverStats discover(const std::vector<std::string>& roots, const DiscoverOptions& options,
                       const std::function<void(KernelDir&&)>& on_kernel_dir,
                       const std::function<void(Problem&&)>& on_problem) {
    Walker walker(options, on_kernel_dir, on_problem, real_roots_of(roots, options));
    std::vector<FileGroup> file_groups;
    for (const auto& root : roots) {
        struct stat st {};
        if (::stat(root.c_str(), &st) != 0) {
            on_problem(make_problem(root, {}, ProblemCode::bad_argument,
                                    "cannot access: " + errno_message(errno)));
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            walker.walk(root);
        } else {
            add_named_file(file_groups, walker, root, st);
        }
    }
    for (auto& group : file_groups) {
        if (auto kernel = kernel_of(group, walker)) {
            on_kernel_dir(std::move(*kernel));
        }
    }
    walker.note_unfollowed_links();
    return walker.stats();
}

} // namespace sdscprov
