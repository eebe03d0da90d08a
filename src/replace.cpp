#include "sdscprov/replace.hpp"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace sdscprov {

namespace {

std::string parent_of(const std::string& path) {
    auto slash = path.rfind('/');
    if (slash == std::string::npos) {
        return ".";
    }
    return slash == 0 ? std::string("/") : path.substr(0, slash);
}

std::string name_of(const std::string& path) {
    auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string errno_text() {
    return std::strerror(errno);
}

FileStamp stamp_of(const struct stat& st) {
    return FileStamp{static_cast<std::uint64_t>(st.st_dev),
                     static_cast<std::uint64_t>(st.st_ino),
                     static_cast<std::uint64_t>(st.st_size),
                     static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
                     static_cast<std::uint32_t>(st.st_mode),
                     static_cast<std::uint32_t>(st.st_uid),
                     static_cast<std::uint32_t>(st.st_gid)};
}

// Process facts read once: they cost a system call each and never change while we run. The
// umask is read by setting it back at once, before this process creates any file of its own.
struct ProcessFacts {
    std::string pid = std::to_string(::getpid());
    uid_t euid = ::geteuid();
    gid_t egid = ::getegid();
    mode_t umask = [] {
        mode_t m = ::umask(022);
        ::umask(m);
        return m;
    }();
};

const ProcessFacts& process_facts() {
    static const ProcessFacts facts;
    return facts;
}

bool write_all(int fd, std::string_view bytes) {
    while (!bytes.empty()) {
        ssize_t n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return false;
        }
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

} // namespace

long temp_file_pid(std::string_view name) {
    auto at = name.rfind(".sdscprov-");
    if (!is_temp_file_name(name) || at == std::string_view::npos) {
        return 0;
    }
    long pid = 0;
    for (std::size_t i = at + 10; i < name.size() && name[i] >= '0' && name[i] <= '9'; ++i) {
        if (pid > 1'000'000'000) {
            return 0;
        }
        pid = pid * 10 + (name[i] - '0');
    }
    return pid;
}

std::string temp_path_beside(const std::string& path) {
    static std::atomic<unsigned long> counter{0};
    return parent_of(path) + "/." + name_of(path) + ".sdscprov-" + process_facts().pid + "-" +
           std::to_string(counter++) + ".tmp";
}

std::optional<PendingReplace> write_temp(const std::string& path, std::string_view bytes,
                                         const FileStamp& original, Durability durability,
                                         Problem& problem) {
    const ProcessFacts& facts = process_facts();
    std::string temp = temp_path_beside(path);
    auto fail = [&](const std::string& what, int fd) {
        problem = make_problem(path, {}, ProblemCode::write_failed,
                               what + ": " + errno_text() + " (the file is unchanged)");
        if (fd >= 0) {
            ::close(fd);
        }
        ::unlink(temp.c_str());
        return std::nullopt;
    };
    const auto mode = static_cast<mode_t>(original.mode & 07777);
    // A rename needs no permission on the file itself, so a read-only file would be replaced
    // (by root even in place): its missing write bit is the owner's "do not change", kept.
    if ((mode & S_IWUSR) == 0) {
        char octal[8];
        std::snprintf(octal, sizeof octal, "%04o", static_cast<unsigned>(mode));
        problem = make_problem(path, {}, ProblemCode::write_failed,
                               std::string("is read-only (mode ") + octal +
                                   ", no write permission for its owner): not written (the file "
                                   "is unchanged)");
        return std::nullopt;
    }
    int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
    if (fd < 0) {
        problem = make_problem(path, {}, ProblemCode::write_failed,
                               "cannot create a temporary file beside it: " + errno_text() +
                                   " (the file is unchanged)");
        return std::nullopt;
    }
    // Same permissions as the original (the umask may have taken bits away); same owner when we
    // are allowed to set it (root) and it differs.
    if ((mode & facts.umask) != 0 && ::fchmod(fd, mode) != 0) {
        return fail("cannot set the temporary file's mode", fd);
    }
    if (facts.euid == 0 && (original.uid != facts.euid || original.gid != facts.egid)) {
        (void)::fchown(fd, original.uid, original.gid);
    }
    if (!write_all(fd, bytes)) {
        return fail("cannot write the temporary file", fd);
    }
    if (durability == Durability::full && ::fsync(fd) != 0) {
        return fail("cannot fsync the temporary file", fd);
    }
    if (::close(fd) != 0) {
        return fail("cannot close the temporary file", -1);
    }
    return PendingReplace{path, std::move(temp), original, false};
}

std::vector<Problem> commit(std::vector<PendingReplace>& pending, Durability durability) {
    std::vector<Problem> problems;
    if (pending.empty()) {
        return problems;
    }
    if (durability == Durability::batch) {
        // A full disk can show only here (delayed allocation, writeback): a temp that may not be
        // on disk is never renamed over a good file.
        int fd = ::open(pending.front().temp.c_str(), O_RDONLY | O_CLOEXEC);
        int err = fd < 0 || ::syncfs(fd) != 0 ? errno : 0;
        if (fd >= 0) {
            ::close(fd);
        }
        if (err != 0) {
            for (auto& p : pending) {
                ::unlink(p.temp.c_str());
                problems.push_back(make_problem(p.path, {}, ProblemCode::write_failed,
                                                std::string("cannot sync the temporary file: ") +
                                                    std::strerror(err) +
                                                    " (the file is unchanged)"));
            }
            return problems;
        }
    }
    std::set<std::string> directories;
    for (auto& p : pending) {
        struct stat st {};
        // The file must still be the one we read: a compile that rewrote it in the meantime wins.
        bool exists = ::lstat(p.path.c_str(), &st) == 0;
        if (exists && S_ISLNK(st.st_mode)) {
            // Renaming over a link would replace the link, and writing through it could reach
            // outside the tree: links are never written.
            ::unlink(p.temp.c_str());
            problems.push_back(make_problem(p.path, {}, ProblemCode::write_failed,
                                            "is a symbolic link: not written (the link and its "
                                            "target are unchanged)"));
            continue;
        }
        if (!exists || !S_ISREG(st.st_mode) || stamp_of(st) != p.original) {
            ::unlink(p.temp.c_str());
            problems.push_back(make_problem(
                p.path, {}, ProblemCode::changed_on_disk,
                "changed on disk after it was read: left as it is now, not annotated"));
            continue;
        }
        if (::rename(p.temp.c_str(), p.path.c_str()) != 0) {
            problems.push_back(make_problem(p.path, {}, ProblemCode::write_failed,
                                            "cannot rename the temporary file over it: " +
                                                errno_text() + " (the file is unchanged)"));
            ::unlink(p.temp.c_str());
            continue;
        }
        p.done = true;
        directories.insert(parent_of(p.path));
    }
    if (durability != Durability::none) {
        for (const auto& dir : directories) {
            int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            if (fd >= 0) {
                ::fsync(fd);
                ::close(fd);
            }
        }
    }
    return problems;
}

void discard(std::vector<PendingReplace>& pending) {
    for (auto& p : pending) {
        if (!p.done) {
            ::unlink(p.temp.c_str());
        }
    }
}

} // namespace sdscprov
