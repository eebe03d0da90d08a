#include "sdscprov/profile/annotate_trace.hpp"

#include "sdscprov/write/replace.hpp"

#include <cerrno>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

namespace sdscprov {

namespace {

constexpr std::size_t flush_bytes = std::size_t{1} << 20;

std::string parent_dir(const std::string& path) {
    auto slash = path.rfind('/');
    if (slash == std::string::npos) {
        return ".";
    }
    return slash == 0 ? std::string("/") : path.substr(0, slash);
}

} // namespace

struct AnnotatedTrace::Impl {
    ProfileBuilder& builder;
    std::string out;
    // Ours by its name and lock for its whole life (replace.hpp): removed when not renamed, also
    // by a signal, and never taken for someone else's file by a later sweep.
    std::optional<PendingReplace> temp;
    int fd = -1;
    bool gzip = false;
    z_stream z{};
    bool z_ready = false;
    std::string pending;       // bytes to write
    std::string deflated;      // gzip output buffer
    std::uint64_t written = 0; // offset in the trace of the next byte passed to bytes()
    struct Insertion {
        std::uint64_t offset; // inserted before the trace's byte at this offset
        std::string text;
    };
    std::deque<Insertion> insertions;
    std::uint64_t annotated = 0;
    int error = 0; // errno of the first failure
    std::string failed_step;

    Impl(ProfileBuilder& b, std::string o) : builder(b), out(std::move(o)) {
        gzip = out.size() > 3 && out.compare(out.size() - 3, 3, ".gz") == 0;
    }

    ~Impl() {
        if (z_ready) {
            ::deflateEnd(&z);
        }
        temp.reset(); // removes the temporary unless it was renamed
    }

    void fail(const char* step) {
        if (error == 0) {
            error = errno != 0 ? errno : EIO;
            failed_step = step;
        }
    }

    void write_all(std::string_view bytes) {
        while (!bytes.empty() && error == 0) {
            ssize_t n = ::write(fd, bytes.data(), bytes.size());
            if (n < 0) {
                if (errno == EINTR) {
                    continue;
                }
                fail("cannot write the annotated trace");
                return;
            }
            bytes.remove_prefix(static_cast<std::size_t>(n));
        }
    }

    void flush(bool finish) {
        if (error != 0) {
            pending.clear();
            return;
        }
        if (!gzip) {
            write_all(pending);
            pending.clear();
            return;
        }
        z.next_in = reinterpret_cast<Bytef*>(pending.data());
        z.avail_in = static_cast<uInt>(pending.size());
        int rc = Z_OK;
        do {
            deflated.resize(flush_bytes);
            z.next_out = reinterpret_cast<Bytef*>(deflated.data());
            z.avail_out = static_cast<uInt>(deflated.size());
            rc = ::deflate(&z, finish ? Z_FINISH : Z_NO_FLUSH);
            if (rc == Z_STREAM_ERROR) {
                errno = EIO;
                fail("cannot compress the annotated trace");
                break;
            }
            write_all(std::string_view(deflated.data(), deflated.size() - z.avail_out));
        } while (error == 0 && (z.avail_out == 0 || (finish && rc != Z_STREAM_END)));
        pending.clear();
    }

    void append(std::string_view bytes) {
        pending.append(bytes);
        if (pending.size() >= flush_bytes) {
            flush(false);
        }
    }
};

AnnotatedTrace::AnnotatedTrace(ProfileBuilder& builder, std::string out)
    : impl_(std::make_unique<Impl>(builder, std::move(out))) {}

AnnotatedTrace::~AnnotatedTrace() = default;

std::optional<Problem> AnnotatedTrace::open(const std::string& input) {
    Impl& s = *impl_;
    auto refuse = [&](ProblemCode code, const std::string& why) {
        return make_problem(s.out, {}, code, why + ": the annotated trace is not written");
    };
    struct stat st {};
    mode_t mode = 0666;
    bool exists = ::lstat(s.out.c_str(), &st) == 0;
    if (exists) {
        if (S_ISLNK(st.st_mode)) {
            return refuse(ProblemCode::bad_argument, "is a symbolic link, never replaced");
        }
        if (!S_ISREG(st.st_mode)) {
            return refuse(ProblemCode::bad_argument, "exists and is not a regular file");
        }
        struct stat in {};
        if (input != "-" && ::stat(input.c_str(), &in) == 0 && in.st_dev == st.st_dev &&
            in.st_ino == st.st_ino) {
            return refuse(ProblemCode::bad_argument,
                          "is the trace being read: give --annotate-trace another path");
        }
        if ((st.st_mode & S_IWUSR) == 0) {
            return refuse(ProblemCode::write_failed, "is read-only, never replaced");
        }
        mode = st.st_mode & 07777;
    }
    Problem problem;
    s.temp = create_temp_beside(s.out, problem);
    if (!s.temp) {
        return refuse(ProblemCode::write_failed, problem.message);
    }
    s.fd = s.temp->fd();
    if (!exists) { // a new file: the mode open(2) would give it
        mode_t mask = ::umask(0);
        ::umask(mask);
        mode = 0666 & ~mask;
    }
    if (::fchmod(s.fd, mode) != 0) {
        return refuse(ProblemCode::write_failed, "cannot give the new file the old one's mode: " +
                                                     std::string(std::strerror(errno)));
    }
    if (s.gzip) {
        // Level 1: an annotated copy of a large trace is written at disk speed.
        if (::deflateInit2(&s.z, 1, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
            return refuse(ProblemCode::write_failed, "cannot start gzip compression");
        }
        s.z_ready = true;
    }
    return std::nullopt;
}

void AnnotatedTrace::event(const TraceEvent& e) {
    Impl& s = *impl_;
    s.builder.event(e);
    const std::string* annotation = s.builder.annotation();
    if (annotation == nullptr) {
        return;
    }
    ++s.annotated;
    if (e.args_state == FieldState::ok) {
        s.insertions.push_back(
            {e.args_open + 1, "\"sdscprov\": " + *annotation + (e.args_empty ? "" : ", ")});
    } else {
        s.insertions.push_back({e.end, std::string(e.empty ? "" : ", ") +
                                           "\"args\": {\"sdscprov\": " + *annotation + "}"});
    }
}

void AnnotatedTrace::bytes(std::string_view text) {
    Impl& s = *impl_;
    std::uint64_t end = s.written + text.size();
    while (!s.insertions.empty() && s.insertions.front().offset <= end) {
        auto& insertion = s.insertions.front();
        auto before = static_cast<std::size_t>(insertion.offset - s.written);
        s.append(text.substr(0, before));
        s.append(insertion.text);
        text.remove_prefix(before);
        s.written = insertion.offset;
        s.insertions.pop_front();
    }
    s.append(text);
    s.written = end;
}

std::optional<Problem> AnnotatedTrace::commit() {
    Impl& s = *impl_;
    s.flush(true);
    if (s.error == 0 && ::fsync(s.fd) != 0) {
        s.fail("cannot sync the annotated trace");
    }
    if (s.error == 0 && ::rename(s.temp->temp.c_str(), s.out.c_str()) != 0) {
        s.fail("cannot rename the annotated trace into place");
    }
    s.temp->done = s.error == 0;
    s.temp->release(); // closes it (and removes it unless renamed)
    s.fd = -1;
    if (s.error != 0) {
        return make_problem(s.out, {}, ProblemCode::write_failed,
                            s.failed_step + ": " + std::strerror(s.error) +
                                " (nothing was written there)");
    }
    int dir = ::open(parent_dir(s.out).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
        (void)::fsync(dir);
        ::close(dir);
    }
    return std::nullopt;
}

std::uint64_t AnnotatedTrace::annotated_events() const {
    return impl_->annotated;
}

} // namespace sdscprov
