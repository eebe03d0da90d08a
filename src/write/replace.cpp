#include "sdscprov/write/replace.hpp"

#include "sdscprov/core/path.hpp"
#include "sdscprov/walk/discover.hpp"
#include "write/temp_registry.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <map>
#include <mutex>
#include <set>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace sdscprov {

namespace {

std::string errno_text(int err = errno) {
    return std::strerror(err);
}

std::string octal_mode(unsigned mode) {
    char text[8];
    std::snprintf(text, sizeof text, "%04o", mode & 07777U);
    return text;
}

// ---- This run ----------------------------------------------------------------------------------

// The start of the kernel's boot id: the same in every pid namespace of one machine, another after
// a reboot. "00000000" when it cannot be read (no /proc): then no kernel is taken for ours.
std::string boot_tag() {
    char text[37] = {};
    int fd = ::open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd < 0 ? -1 : ::read(fd, text, 36);
    if (fd >= 0) {
        ::close(fd);
    }
    std::string tag(text, n >= 8 ? 8 : 0);
    bool hex = tag.size() == 8 && std::all_of(tag.begin(), tag.end(), [](char c) {
                   return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
               });
    return hex ? tag : std::string("00000000");
}

// 16 random hex digits: no other run, in this pid namespace or any other, makes our names.
std::string run_token() {
    unsigned char bytes[8] = {};
    if (::getrandom(bytes, sizeof bytes, 0) != static_cast<ssize_t>(sizeof bytes)) {
        // No getrandom (very old kernels): time and pid, still unlikely to meet another run's.
        timespec now{};
        ::clock_gettime(CLOCK_REALTIME, &now);
        std::uint64_t mix = static_cast<std::uint64_t>(now.tv_nsec) ^
                            (static_cast<std::uint64_t>(now.tv_sec) << 20) ^
                            (static_cast<std::uint64_t>(::getpid()) << 44);
        std::memcpy(bytes, &mix, sizeof bytes);
    }
    char text[17];
    for (std::size_t i = 0; i < sizeof bytes; ++i) {
        std::snprintf(text + 2 * i, 3, "%02x", bytes[i]);
    }
    return std::string(text, 16);
}

// The soft limit on open files, raised to the hard one first: every temporary stays open (it
// holds its lock) until its rename.
std::size_t raised_files_limit() {
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) {
        return 1024; // the usual default
    }
    if (limit.rlim_cur != limit.rlim_max) {
        rlimit raised = limit;
        raised.rlim_cur = limit.rlim_max;
        if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) {
            limit = raised;
        }
    }
    return static_cast<std::size_t>(limit.rlim_cur); // RLIM_INFINITY: the largest
}

// Process facts read once: they cost a system call each and never change while we run.
struct ProcessFacts {
    std::string boot = boot_tag();
    std::string run = run_token();
    uid_t euid = ::geteuid();
    std::size_t files_limit = raised_files_limit();
};

const ProcessFacts& process_facts() {
    static const ProcessFacts facts;
    return facts;
}

// ---- Metadata ----------------------------------------------------------------------------------

// Extended attributes by name (sorted), values as bytes.
using Xattrs = std::vector<std::pair<std::string, std::string>>;

// Reads every extended attribute through `list` and `get` (the path or the descriptor variants of
// listxattr and getxattr). A file system without them has none. False with errno on failure.
template <class List, class Get> bool read_xattrs(List list, Get get, Xattrs& out) {
    out.clear();
    std::string names;
    for (;;) {
        ssize_t n = list(nullptr, 0);
        if (n < 0) {
            return errno == ENOTSUP;
        }
        if (n == 0) {
            return true;
        }
        names.resize(static_cast<std::size_t>(n));
        n = list(names.data(), names.size());
        if (n >= 0) {
            names.resize(static_cast<std::size_t>(n));
            break;
        }
        if (errno != ERANGE) {
            return false;
        }
    }
    for (std::size_t at = 0; at < names.size();) {
        std::size_t end = names.find('\0', at);
        end = end == std::string::npos ? names.size() : end;
        std::string name = names.substr(at, end - at);
        at = end + 1;
        std::string value;
        for (;;) {
            ssize_t n = get(name.c_str(), nullptr, 0);
            if (n < 0) {
                return false;
            }
            value.resize(static_cast<std::size_t>(n));
            n = get(name.c_str(), value.data(), value.size());
            if (n >= 0) {
                value.resize(static_cast<std::size_t>(n));
                break;
            }
            if (errno != ERANGE) {
                return false;
            }
        }
        out.emplace_back(std::move(name), std::move(value));
    }
    std::sort(out.begin(), out.end());
    return true;
}

bool path_xattrs(const std::string& path, Xattrs& out) {
    return read_xattrs(
        [&](char* buf, std::size_t size) { return ::llistxattr(path.c_str(), buf, size); },
        [&](const char* name, void* buf, std::size_t size) {
            return ::lgetxattr(path.c_str(), name, buf, size);
        },
        out);
}

bool fd_xattrs(int fd, Xattrs& out) {
    return read_xattrs([&](char* buf, std::size_t size) { return ::flistxattr(fd, buf, size); },
                       [&](const char* name, void* buf, std::size_t size) {
                           return ::fgetxattr(fd, name, buf, size);
                       },
                       out);
}

// Gives the temporary `fd` exactly the attributes `wanted`: those it got on creation (a
// directory's default ACL, a security label) that the file lacks are removed. Empty on success,
// else what failed; `as_created` tells that the temporary had exactly `wanted` already.
std::string copy_xattrs(int fd, const Xattrs& wanted, bool& as_created) {
    Xattrs have;
    if (!fd_xattrs(fd, have)) {
        return "cannot list the new file's extended attributes: " + errno_text();
    }
    as_created = have == wanted; // then nothing below changes them
    auto named = [](const Xattrs& in, const std::string& name) {
        return std::find_if(in.begin(), in.end(), [&](const auto& a) { return a.first == name; });
    };
    for (const auto& attribute : have) {
        const std::string& name = attribute.first;
        if (named(wanted, name) == wanted.end() && ::fremovexattr(fd, name.c_str()) != 0) {
            return "cannot remove the extended attribute '" + name +
                   "' the new file got from its directory: " + errno_text();
        }
    }
    for (const auto& [name, value] : wanted) {
        auto it = named(have, name);
        if (it != have.end() && it->second == value) {
            continue;
        }
        if (::fsetxattr(fd, name.c_str(), value.data(), value.size(), 0) != 0) {
            return "cannot give the new file the extended attribute '" + name +
                   "' of the file: " + errno_text();
        }
    }
    return {};
}

// Network and cluster file systems, where a lock may be kept by another machine's kernel only:
// NFS, SMB/CIFS, FUSE, Ceph, 9p, AFS, Coda, GFS2, OCFS2, Lustre, GPFS.
bool on_network_file_system(int fd) {
    struct statfs fs {};
    if (::fstatfs(fd, &fs) != 0) {
        return true; // unknown: the careful answer
    }
    const auto type = static_cast<unsigned long>(fs.f_type);
    const unsigned long network[] = {0x6969UL,     0x517BUL,     0xFF534D42UL, 0xFE534D42UL,
                                     0x65735546UL, 0x00C36400UL, 0x01021997UL, 0x5346414FUL,
                                     0x6B414653UL, 0x73757245UL, 0x01161970UL, 0x7461636FUL,
                                     0x0BD00BD0UL, 0x47504653UL};
    return std::find(std::begin(network), std::end(network), type) != std::end(network);
}

// Writes the pieces one after the other: one writev, more only for a short write.
bool write_all(int fd, std::span<const std::string_view> pieces) {
    thread_local std::vector<iovec> io;
    io.clear();
    for (std::string_view piece : pieces) {
        if (!piece.empty()) {
            io.push_back({const_cast<char*>(piece.data()), piece.size()});
        }
    }
    std::size_t next = 0;
    while (next < io.size()) {
        int count = static_cast<int>(std::min<std::size_t>(io.size() - next, IOV_MAX));
        ssize_t n = ::writev(fd, io.data() + next, count);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return false;
        }
        auto written = static_cast<std::size_t>(n);
        while (next < io.size() && written >= io[next].iov_len) {
            written -= io[next++].iov_len;
        }
        if (written > 0) {
            io[next].iov_base = static_cast<char*>(io[next].iov_base) + written;
            io[next].iov_len -= written;
        }
    }
    return true;
}

// Whether the file found at commit is the one read. One exception to an exact match: a file of
// several names whose only change is fewer names (another of its names was replaced since, by us
// or anyone: that moves the change time too) is still the file read, not changed on disk.
bool still_as_read(FileStamp now, const FileStamp& read) {
    if (now == read) {
        return true;
    }
    if (now.links >= read.links) {
        return false;
    }
    now.links = read.links;
    now.ctime_ns = read.ctime_ns;
    return now == read;
}

int flock_retrying(int fd, int operation) {
    int rc = 0;
    while ((rc = ::flock(fd, operation)) != 0 && errno == EINTR) {
    }
    return rc;
}

} // namespace

// ---- PendingReplace ----------------------------------------------------------------------------

PendingReplace::~PendingReplace() {
    release();
}

PendingReplace::PendingReplace(PendingReplace&& other) noexcept
    : path(std::move(other.path)), temp(std::move(other.temp)), original(other.original),
      done(other.done), fd_(std::exchange(other.fd_, -1)),
      registration_(std::exchange(other.registration_, nullptr)),
      directory_(std::move(other.directory_)), created_mode_(other.created_mode_),
      created_uid_(other.created_uid_), created_gid_(other.created_gid_),
      remove_error_(other.remove_error_) {}

PendingReplace& PendingReplace::operator=(PendingReplace&& other) noexcept {
    if (this != &other) {
        release();
        path = std::move(other.path);
        temp = std::move(other.temp);
        original = other.original;
        done = other.done;
        fd_ = std::exchange(other.fd_, -1);
        directory_ = std::move(other.directory_);
        registration_ = std::exchange(other.registration_, nullptr);
        created_mode_ = other.created_mode_;
        created_uid_ = other.created_uid_;
        created_gid_ = other.created_gid_;
        remove_error_ = other.remove_error_;
    }
    return *this;
}

void PendingReplace::release() {
    // Removed while still locked; the name leaves the signal handlers' list only once it is gone.
    if (fd_ >= 0 && !done) {
        int rc = directory_fd() >= 0
                     ? ::unlinkat(directory_fd(), std::string(file_name_of(temp)).c_str(), 0)
                     : ::unlink(temp.c_str());
        remove_error_ = rc == 0 || errno == ENOENT ? 0 : errno;
    }
    if (registration_ != nullptr) {
        detail::unregister_temp(registration_);
        registration_ = nullptr;
    }
    if (fd_ >= 0) {
        ::close(fd_);
        fd_ = -1;
    }
    directory_.reset();
}

// ---- Directories held open ---------------------------------------------------------------------

namespace {

// Why no file of the directory `fd` can be replaced: marked append-only or immutable.
std::string unreplaceable_in(int fd) {
    int flags = 0;
    if (fd < 0 || ::ioctl(fd, FS_IOC_GETFLAGS, &flags) != 0 ||
        (flags & (FS_APPEND_FL | FS_IMMUTABLE_FL)) == 0) {
        return {};
    }
    return std::string("its directory is ") +
           ((flags & FS_IMMUTABLE_FL) != 0 ? "immutable (chattr +i)" : "append-only (chattr +a)") +
           ": a file there cannot be replaced, not written";
}

} // namespace

OpenDirectory::OpenDirectory(std::string parent)
    : path(std::move(parent)), fd(::open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)) {}

OpenDirectory::OpenDirectory(std::string parent, HeldDirectory directory)
    : path(std::move(parent)), held(std::move(directory)), fd(held ? held->get() : -1),
      unreplaceable(unreplaceable_in(fd)) {}

OpenDirectory::~OpenDirectory() {
    if (fd >= 0 && !held) {
        ::close(fd);
    }
}

std::shared_ptr<const OpenDirectory> TempDirectories::of(const std::string& parent,
                                                         const HeldDirectory& held) {
    if (last_ == nullptr || last_->path != parent || (held && last_->held != held)) {
        last_ = held ? std::make_shared<const OpenDirectory>(parent, held)
                     : std::make_shared<const OpenDirectory>(parent);
    }
    return last_;
}

// ---- Writing -----------------------------------------------------------------------------------

std::optional<PendingReplace> create_temp_beside(const std::string& path, Problem& problem,
                                                 mode_t mode, TempDirectories* directories,
                                                 const HeldDirectory& held) {
    static std::atomic<unsigned long> counter{0};
    const ProcessFacts& facts = process_facts();
    auto refuse = [&](const std::string& why) {
        problem = make_problem(path, {}, ProblemCode::write_failed, why);
        return std::nullopt;
    };
    PendingReplace pending;
    pending.path = path;
    const std::string parent = parent_dir(path);
    // Created through the directory held open when there is one: the name is then looked up in
    // it alone, not walked to from the top again.
    std::shared_ptr<const OpenDirectory> directory;
    if (directories != nullptr) {
        directory = directories->of(parent, held);
    }
    const int dir_fd = directory ? directory->fd : -1;
    const std::string prefix = parent + "/." + temp_embedded_name(file_name_of(path)) +
                               ".sdscprov-b" + facts.boot + "-" + facts.run + "-";
    const std::size_t name_at = parent.size() + 1;
    // A sweep of another run may remove a temporary between its creation and our lock (it saw a
    // free lock): then the file we hold has no name any more, and another name is tried.
    struct stat st {};
    for (int attempt = 0; pending.fd_ < 0; ++attempt) {
        pending.temp = prefix + std::to_string(counter++) + ".tmp";
        const char* const name = pending.temp.c_str() + name_at;
        const int flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW;
        int fd = -1;
        int err = 0;
        detail::SignalSlot* slot = dir_fd >= 0
                                       ? detail::begin_temp_creation(name, dir_fd)
                                       : detail::begin_temp_creation(pending.temp.c_str(), -1);
        if (slot == nullptr) {
            return refuse("interrupted by a signal");
        }
        pending.registration_ = slot;
        fd = dir_fd >= 0 ? ::openat(dir_fd, name, flags, mode)
                         : ::open(pending.temp.c_str(), flags, mode);
        err = errno;
        detail::end_temp_creation(slot);
        if (fd >= 0) {
            pending.fd_ = fd;
            if (dir_fd >= 0) {
                pending.directory_ = directory;
            }
        }
        if (fd < 0) {
            pending.release();
            if (err == EEXIST && attempt < 3) {
                continue;
            }
            return refuse("cannot create a temporary file beside it: " + errno_text(err));
        }
        // Without flock (some FUSE file systems) no sweep can take the lock either, so none
        // removes the file: it is written unlocked.
        (void)flock_retrying(fd, LOCK_EX);
        if (::fstat(fd, &st) != 0) {
            err = errno;
            pending.release();
            return refuse("cannot stat the temporary file: " + errno_text(err));
        }
        if (st.st_nlink == 0) {
            pending.release(); // removed by a sweep before our lock: our unlink finds nothing
            if (attempt == 3) {
                return refuse("cannot keep a temporary file beside it: another run removes them");
            }
        }
    }
    pending.created_mode_ = st.st_mode;
    pending.created_uid_ = st.st_uid;
    pending.created_gid_ = st.st_gid;
    return pending;
}

std::optional<PendingReplace> write_temp(const std::string& path, std::string_view bytes,
                                         const FileStamp& original, Durability durability,
                                         Problem& problem) {
    std::string_view whole[] = {bytes};
    return write_temp(path, whole, original, durability, problem);
}

namespace {

// Why the file at `path` (of permission bits `mode`) is not to be replaced, found before a
// temporary is made beside it; empty when it may be. Its extended attributes go to `xattrs`.
std::string not_replaceable(const std::string& path, mode_t mode, const TempSource& source,
                            Xattrs& xattrs) {
    // A rename needs no permission on the file itself, so a read-only file would be replaced
    // (by root even in place): its missing write bit is the owner's "do not change", kept.
    if ((mode & S_IWUSR) == 0) {
        return "is read-only (mode " + octal_mode(mode) +
               ", no write permission for its owner): not written";
    }
    // Read from the file as it was read, through its descriptor when there is one, else from the
    // path: should they change after the scan, the change time moves and commit leaves the file
    // alone (as it does when the path names another file by then).
    if (!(source.fd >= 0 ? fd_xattrs(source.fd, xattrs) : path_xattrs(path, xattrs))) {
        return "cannot read its extended attributes: " + errno_text();
    }
    // A directory marked append-only or immutable lets a temporary be created but neither
    // renamed over the file nor removed: refused before anything is made there. Asked once per
    // directory held open for the temporaries (a kernel's), not per file.
    if (source.directories != nullptr) {
        return source.directories->of(parent_dir(path), source.directory)->unreplaceable;
    }
    return source.directory ? OpenDirectory(parent_dir(path), source.directory).unreplaceable
                            : std::string();
}

// "<what>: <errno's text><tail>"
std::string failed(const std::string& what, const char* tail = "") {
    return what + ": " + write_error_text(errno) + tail;
}

// Gives the written temporary `fd` the original's owner, extended attributes and mode, in that
// order, and checks what it got; `temp_*` are what it was created with. Empty when done, else why
// the file is not written.
std::string give_original_metadata(int fd, const FileStamp& original, mode_t mode, mode_t temp_mode,
                                   uid_t temp_uid, gid_t temp_gid, const Xattrs& xattrs) {
    // Owner first (a chown clears the setuid and setgid bits), then the attributes (a chown clears
    // file capabilities), then the mode (which sets the ACL's mask and owner/other entries).
    const bool chown_needed = temp_uid != original.uid || temp_gid != original.gid;
    if (chown_needed) {
        if (::fchown(fd, temp_uid == original.uid ? static_cast<uid_t>(-1) : original.uid,
                     temp_gid == original.gid ? static_cast<gid_t>(-1) : original.gid) != 0) {
            return failed("cannot give the new file its owner (uid " +
                              std::to_string(original.uid) + ", gid " +
                              std::to_string(original.gid) + ")",
                          ": not written");
        }
    }
    bool xattrs_as_created = false;
    if (std::string wrong = copy_xattrs(fd, xattrs, xattrs_as_created); !wrong.empty()) {
        return wrong + ": not written";
    }
    // When nothing was changed since the fstat after the lock, which gave the file's owner and
    // mode, and the temporary's attributes were read and are the file's, all of it is known, not
    // assumed: no fchmod and no read-back.
    if (!chown_needed && xattrs_as_created && (temp_mode & 07777) == mode) {
        return {};
    }
    if (::fchmod(fd, mode) != 0) {
        return failed("cannot give the new file its mode " + octal_mode(mode), ": not written");
    }
    // The kernel clears bits it does not let this user set (setgid for a group it is not in)
    // without an error: what the new file has is checked, not assumed.
    struct stat st {};
    Xattrs got;
    if (::fstat(fd, &st) != 0 || !fd_xattrs(fd, got)) {
        return failed("cannot read back the new file's mode and attributes");
    }
    if ((st.st_mode & 07777) != mode || st.st_uid != original.uid || st.st_gid != original.gid) {
        return "the new file would have mode " + octal_mode(st.st_mode) + ", uid " +
               std::to_string(st.st_uid) + ", gid " + std::to_string(st.st_gid) +
               " where the file has " + octal_mode(mode) + ", " + std::to_string(original.uid) +
               ", " + std::to_string(original.gid) + ": not written";
    }
    if (got != xattrs) {
        return "the new file's extended attributes would differ from the file's: not written";
    }
    return {};
}

} // namespace

std::optional<PendingReplace> write_temp(const std::string& path,
                                         std::span<const std::string_view> pieces,
                                         const FileStamp& original, Durability durability,
                                         Problem& problem, const TempSource& source) {
    auto refuse = [&](const std::string& why) {
        problem =
            make_problem(path, {}, ProblemCode::write_failed, why + " (the file is unchanged)");
        return std::nullopt;
    };
    const auto mode = static_cast<mode_t>(original.mode & 07777);
    Xattrs xattrs;
    if (std::string why = not_replaceable(path, mode, source, xattrs); !why.empty()) {
        return refuse(why);
    }
    // Created with the file's permission bits where nobody else could write to it meanwhile:
    // then, most of the time, it has the file's mode from the start and needs no fchmod.
    const mode_t create_mode = mode & 0777 & ~static_cast<mode_t>(S_IWGRP | S_IWOTH);
    std::optional<PendingReplace> created =
        create_temp_beside(path, problem, create_mode, source.directories, source.directory);
    if (!created) {
        problem.message += " (the file is unchanged)";
        return std::nullopt;
    }
    PendingReplace pending = std::move(*created);
    pending.original = original;
    // The temporary as created, from the fstat that followed its lock.
    mode_t temp_mode = pending.created_mode_;
    int fd = pending.fd_;
    auto fail = [&](const std::string& why) {
        pending.release();
        return refuse(why);
    };
    // The group and other bits it was created with are the file's, for the file's group: a
    // temporary of another group (the writer's, or a setgid directory's) would show the bytes
    // to people the file does not, so it holds them for its owner only until its owner and mode
    // are the file's.
    if (pending.created_gid_ != original.gid && (temp_mode & 0077) != 0) {
        if (::fchmod(fd, temp_mode & 07700) != 0) {
            return fail(failed("cannot make the temporary file private"));
        }
        temp_mode &= ~static_cast<mode_t>(0077);
    }
    if (!write_all(fd, pieces)) {
        return fail(failed("cannot write the temporary file"));
    }
    if (std::string why = give_original_metadata(
            fd, original, mode, temp_mode, pending.created_uid_, pending.created_gid_, xattrs);
        !why.empty()) {
        return fail(why);
    }
    if (durability == Durability::full && ::fsync(fd) != 0) {
        return fail(failed("cannot fsync the temporary file"));
    }
    return pending;
}

namespace {

// --durability batch: one syncfs per file system of the batch. A full disk can show only here
// (delayed allocation, writeback): a temp that may not be on disk is never renamed over a good
// file. False, with a problem per file (all released), when a sync failed.
bool sync_batch(std::vector<PendingReplace>& pending, std::vector<Problem>& problems) {
    std::map<dev_t, int> file_systems;
    int err = 0;
    for (const auto& p : pending) {
        struct stat st {};
        if (::fstat(p.fd(), &st) != 0) {
            err = errno;
            break;
        }
        file_systems.emplace(st.st_dev, p.fd());
    }
    for (const auto& [device, fd] : file_systems) {
        if (err == 0 && ::syncfs(fd) != 0) {
            err = errno;
        }
    }
    if (err == 0) {
        return true;
    }
    for (auto& p : pending) {
        p.release();
        problems.push_back(make_problem(p.path, {}, ProblemCode::write_failed,
                                        "cannot sync the temporary file: " + errno_text(err) +
                                            " (the file is unchanged)"));
    }
    return false;
}

// Renames `p`'s temporary over its file, through `dir_fd` (its directory) when there is one,
// if the file is still the one read and not a link; else a problem, and `p` is released.
bool replace_one(PendingReplace& p, int dir_fd, std::vector<Problem>& problems) {
    const std::string name(file_name_of(p.path));
    struct stat st {};
    // The file must still be the one we read: a compile that rewrote it in the meantime wins.
    bool exists = (dir_fd >= 0 ? ::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW)
                               : ::lstat(p.path.c_str(), &st)) == 0;
    if (exists && S_ISLNK(st.st_mode)) {
        // Renaming over a link would replace the link, and writing through it could reach
        // outside the tree: links are never written.
        p.release();
        problems.push_back(make_problem(p.path, {}, ProblemCode::write_failed,
                                        "is a symbolic link: not written (the link and its "
                                        "target are unchanged)"));
        return false;
    }
    if (!exists || !S_ISREG(st.st_mode) || !still_as_read(file_stamp(st), p.original)) {
        p.release();
        problems.push_back(
            make_problem(p.path, {}, ProblemCode::changed_on_disk,
                         "changed on disk after it was read: left as it is now, not annotated"));
        return false;
    }
    if ((dir_fd >= 0
             ? ::renameat(dir_fd, std::string(file_name_of(p.temp)).c_str(), dir_fd, name.c_str())
             : ::rename(p.temp.c_str(), p.path.c_str())) != 0) {
        const std::string why = errno_text();
        p.release();
        // Said either way: a temporary that stays (an append-only directory refuses its
        // removal as it refused the rename) is named, for whoever may remove it.
        const std::string fate =
            p.remove_error() == 0
                ? "its temporary file was removed"
                : "its temporary file " + p.temp +
                      " could not be removed either: " + errno_text(p.remove_error());
        problems.push_back(make_problem(p.path, {}, ProblemCode::write_failed,
                                        "cannot rename the temporary file over it: " + why +
                                            " (the file is unchanged; " + fate + ")"));
        return false;
    }
    p.done = true;
    p.release();
    return true;
}

void fsync_directories(const std::vector<std::shared_ptr<const OpenDirectory>>& directories) {
    for (const auto& directory : directories) {
        // An O_PATH descriptor cannot be synced: the directory is opened for reading through it.
        int fd = directory->fd >= 0
                     ? ::openat(directory->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                     : ::open(directory->path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd >= 0) {
            ::fsync(fd);
            ::close(fd);
        }
    }
}

} // namespace

std::vector<Problem> commit(std::vector<PendingReplace>& pending, Durability durability) {
    std::vector<Problem> problems;
    if (pending.empty()) {
        return problems;
    }
    if (durability == Durability::batch && !sync_batch(pending, problems)) {
        return problems;
    }
    // The check and the rename go through a descriptor of the file's directory: the one the
    // temporary was created through, else one opened here once for the files of one directory
    // (they come together). A directory's path is walked once, not for each file, and the check,
    // the rename and the directory's fsync all see the directory the temporary is in. Without one
    // (it could not be opened), by path.
    TempDirectories opened;
    std::vector<std::shared_ptr<const OpenDirectory>> renamed_in; // to fsync, each once
    std::set<const OpenDirectory*> listed;
    for (auto& p : pending) {
        const std::shared_ptr<const OpenDirectory> directory =
            p.directory() ? p.directory() : opened.of(parent_dir(p.path));
        if (replace_one(p, directory->fd, problems) && durability != Durability::none &&
            listed.insert(directory.get()).second) {
            renamed_in.push_back(directory);
        }
    }
    fsync_directories(renamed_in);
    return problems;
}

void discard(std::vector<PendingReplace>& pending) {
    for (auto& p : pending) {
        p.release();
    }
}

std::string give_metadata_of(int fd, const std::string& path, const struct stat& original) {
    const auto mode = static_cast<mode_t>(original.st_mode & 07777);
    Xattrs xattrs;
    if (!path_xattrs(path, xattrs)) {
        return "cannot read its extended attributes: " + errno_text();
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        return "cannot stat the temporary file: " + errno_text();
    }
    // Owner first (a chown clears the setuid and setgid bits), then the attributes (a chown clears
    // file capabilities), then the mode (which sets the ACL's mask and owner/other entries).
    if (st.st_uid != original.st_uid || st.st_gid != original.st_gid) {
        if (::fchown(fd, st.st_uid == original.st_uid ? static_cast<uid_t>(-1) : original.st_uid,
                     st.st_gid == original.st_gid ? static_cast<gid_t>(-1) : original.st_gid) !=
            0) {
            return "cannot give the new file its owner (uid " + std::to_string(original.st_uid) +
                   ", gid " + std::to_string(original.st_gid) + "): " + errno_text();
        }
    }
    bool as_created = false;
    if (std::string wrong = copy_xattrs(fd, xattrs, as_created); !wrong.empty()) {
        return wrong;
    }
    if (::fchmod(fd, mode) != 0) {
        return "cannot give the new file its mode " + octal_mode(mode) + ": " + errno_text();
    }
    // The kernel clears bits it does not let this user set without an error: checked, not assumed.
    Xattrs got;
    if (::fstat(fd, &st) != 0 || !fd_xattrs(fd, got)) {
        return "cannot read back the new file's mode and attributes: " + errno_text();
    }
    if ((st.st_mode & 07777) != mode || st.st_uid != original.st_uid ||
        st.st_gid != original.st_gid) {
        return "the new file would have mode " + octal_mode(st.st_mode) + ", uid " +
               std::to_string(st.st_uid) + ", gid " + std::to_string(st.st_gid) +
               " where the file has " + octal_mode(mode) + ", " + std::to_string(original.st_uid) +
               ", " + std::to_string(original.st_gid);
    }
    if (got != xattrs) {
        return "the new file's extended attributes would differ from the file's";
    }
    return {};
}

// ---- Sweeping ----------------------------------------------------------------------------------

TempFate remove_if_abandoned(const std::string& temp, std::string& detail, int dir_fd) {
    const std::string name(file_name_of(temp));
    // In the directory held open by its name, else by its path.
    const int at = dir_fd >= 0 ? dir_fd : AT_FDCWD;
    const char* where = dir_fd >= 0 ? name.c_str() : temp.c_str();
    auto parsed = parse_temp_file_name(name);
    if (!parsed) {
        detail = "not named like a temporary file of sdscprov";
        return TempFate::kept;
    }
    const ProcessFacts& facts = process_facts();
    if (parsed->run == facts.run && parsed->boot == facts.boot) {
        return TempFate::ours;
    }
    int fd = ::openat(at, where, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        detail = "cannot open: " + errno_text(); // gone meanwhile, most likely: renamed
        return TempFate::kept;
    }
    auto keep = [&](TempFate fate, std::string why) {
        ::close(fd);
        detail = std::move(why);
        return fate;
    };
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
        return keep(TempFate::kept, "not a regular file of one link");
    }
    if (flock_retrying(fd, LOCK_SH | LOCK_NB) != 0) {
        return errno == EWOULDBLOCK ? keep(TempFate::alive, "its writer holds its lock")
                                    : keep(TempFate::kept, "cannot try its lock: " + errno_text());
    }
    if (parsed->boot != facts.boot && on_network_file_system(fd)) {
        return keep(TempFate::other_host, "written by another kernel, on a network file system");
    }
    // Still the file we hold (names are never made twice, but the tree is not ours), removed
    // while the lock is ours: a writer that created it just now waits for it, then sees it gone.
    struct stat now {};
    if (::fstatat(at, where, &now, AT_SYMLINK_NOFOLLOW) != 0 || now.st_dev != st.st_dev ||
        now.st_ino != st.st_ino) {
        return keep(TempFate::kept, "replaced meanwhile");
    }
    if (::unlinkat(at, where, 0) != 0) {
        return keep(TempFate::kept, "cannot remove: " + errno_text());
    }
    ::close(fd);
    return TempFate::removed;
}

std::size_t open_files_limit() {
    return process_facts().files_limit;
}

std::size_t open_files_in_use(std::size_t unknown) {
    DIR* listing = ::opendir("/proc/self/fd");
    if (listing == nullptr) {
        return unknown;
    }
    std::size_t open = 0;
    while (const struct dirent* entry = ::readdir(listing)) {
        open += entry->d_name[0] != '.';
    }
    ::closedir(listing);
    return open - std::min<std::size_t>(open, 1); // the listing's own
}

void ignore_file_size_signal() {
    struct sigaction action {};
    action.sa_handler = SIG_IGN;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGXFSZ, &action, nullptr);
}

std::string write_error_text(int err) {
    std::string text = errno_text(err);
    rlimit limit{};
    if (err == EFBIG && ::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
        text += " (the file size limit of this process, RLIMIT_FSIZE or ulimit -f, is " +
                std::to_string(limit.rlim_cur) + " bytes)";
    }
    return text;
}

void remove_temps_on_signals() {
    process_facts(); // nothing of it is read in a handler, but it may raise the files limit once
    detail::install_temp_removal();
}

} // namespace sdscprov
