#include "profile/trace_source.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>
#include <vector>
#include <zlib.h>

namespace sdscprov::trace_source {

namespace {

std::string errno_text(int err) {
    return std::generic_category().message(err);
}

class FileSource final : public ByteSource {
public:
    FileSource(int fd, bool owned) : fd_(fd), owned_(owned) {}
    ~FileSource() override {
        if (owned_) {
            ::close(fd_);
        }
    }
    FileSource(const FileSource&) = delete;
    FileSource& operator=(const FileSource&) = delete;

    std::ptrdiff_t read(char* out, std::size_t n) override {
        for (;;) {
            ssize_t got = ::read(fd_, out, n);
            if (got >= 0) {
                return got;
            }
            if (errno != EINTR) {
                error_ = "cannot read: " + errno_text(errno);
                return -1;
            }
        }
    }

private:
    int fd_;
    bool owned_;
};

class MemorySource final : public ByteSource {
public:
    MemorySource(std::string_view bytes, std::size_t chunk) : bytes_(bytes), chunk_(chunk) {}
    std::ptrdiff_t read(char* out, std::size_t n) override {
        std::size_t take = std::min({n, chunk_, bytes_.size()});
        std::memcpy(out, bytes_.data(), take);
        bytes_.remove_prefix(take);
        return static_cast<std::ptrdiff_t>(take);
    }

private:
    std::string_view bytes_;
    std::size_t chunk_;
};

// Replays the bytes read ahead to sniff the format, then reads on from the source.
class Prefixed final : public ByteSource {
public:
    Prefixed(std::string head, std::unique_ptr<ByteSource> rest)
        : head_(std::move(head)), rest_(std::move(rest)) {}
    std::ptrdiff_t read(char* out, std::size_t n) override {
        if (at_ < head_.size()) {
            std::size_t take = std::min(n, head_.size() - at_);
            std::memcpy(out, head_.data() + at_, take);
            at_ += take;
            return static_cast<std::ptrdiff_t>(take);
        }
        auto got = rest_->read(out, n);
        if (got < 0) {
            error_ = rest_->error();
        }
        return got;
    }

private:
    std::string head_;
    std::size_t at_ = 0;
    std::unique_ptr<ByteSource> rest_;
};

// gzip: inflated a chunk at a time. A member's end followed by more input starts the next
// member; input that ends inside a member is an error, as is input that is not gzip there.
class GzipSource final : public ByteSource {
public:
    GzipSource(std::unique_ptr<ByteSource> raw, std::size_t chunk)
        : raw_(std::move(raw)), in_(std::max<std::size_t>(chunk, 4096)) {
        // 16 + 15: a gzip wrapper, the largest window.
        ok_ = ::inflateInit2(&z_, 16 + MAX_WBITS) == Z_OK;
    }
    ~GzipSource() override {
        if (ok_) {
            ::inflateEnd(&z_);
        }
    }
    GzipSource(const GzipSource&) = delete;
    GzipSource& operator=(const GzipSource&) = delete;
    bool gzip() const override { return true; }

    std::ptrdiff_t read(char* out, std::size_t n) override {
        if (!ok_) {
            error_ = "cannot inflate: zlib could not be initialised";
            return -1;
        }
        if (failed_) {
            return -1;
        }
        if (n > (std::size_t{1} << 30)) {
            n = std::size_t{1} << 30;
        }
        z_.next_out = reinterpret_cast<Bytef*>(out);
        z_.avail_out = static_cast<uInt>(n);
        while (z_.avail_out == n) {
            if (z_.avail_in == 0 && !raw_eof_) {
                auto got = raw_->read(in_.data(), in_.size());
                if (got < 0) {
                    error_ = raw_->error();
                    return failed(n);
                }
                if (got == 0) {
                    raw_eof_ = true;
                } else {
                    z_.next_in = reinterpret_cast<Bytef*>(in_.data());
                    z_.avail_in = static_cast<uInt>(got);
                }
            }
            if (z_.avail_in == 0 && raw_eof_ && member_done_) {
                return 0;
            }
            if (member_done_) {
                // More input after a member: the next member (gzip -d reads them all).
                if (::inflateReset(&z_) != Z_OK) {
                    error_ = "cannot inflate: zlib reset failed";
                    return failed(n);
                }
                member_done_ = false;
            }
            uInt in_before = z_.avail_in;
            uInt out_before = z_.avail_out;
            int rc = ::inflate(&z_, Z_NO_FLUSH);
            if ((rc == Z_OK || rc == Z_BUF_ERROR) && z_.avail_in == in_before &&
                z_.avail_out == out_before) {
                // No progress with room to spare: the input ended inside a member (what zlib
                // held back was given out first), or it is not inflatable. Never a loop.
                error_ = raw_eof_ && z_.avail_in == 0
                             ? "the gzip data ends inside a compressed block (truncated?)"
                             : "the gzip data is corrupt: inflate makes no progress";
                return failed(n);
            }
            if (rc == Z_STREAM_END) {
                member_done_ = true;
            } else if (rc == Z_NEED_DICT || rc == Z_DATA_ERROR) {
                error_ = std::string("the gzip data is corrupt: ") +
                         (z_.msg != nullptr ? z_.msg : "invalid data");
                return failed(n);
            } else if (rc == Z_MEM_ERROR) {
                error_ = "cannot inflate: out of memory";
                return failed(n);
            } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
                error_ = "cannot inflate: zlib error " + std::to_string(rc);
                return failed(n);
            }
        }
        return static_cast<std::ptrdiff_t>(n - z_.avail_out);
    }

    // After an error: the bytes inflated before it first (the error is seen by the next read, at
    // the end of the good text, whatever the reads' sizes).
    std::ptrdiff_t failed(std::size_t n) {
        failed_ = true;
        auto produced = static_cast<std::ptrdiff_t>(n - z_.avail_out);
        return produced > 0 ? produced : -1;
    }

private:
    std::unique_ptr<ByteSource> raw_;
    std::vector<char> in_;
    z_stream z_{};
    bool ok_ = false;
    bool raw_eof_ = false;
    bool member_done_ = false;
    bool failed_ = false;
};

// Reads ahead up to two bytes and wraps `raw` in a GzipSource when they are gzip's magic.
std::unique_ptr<ByteSource> sniffed(std::unique_ptr<ByteSource> raw, std::size_t chunk) {
    std::string head;
    char buf[2];
    while (head.size() < 2) {
        auto got = raw->read(buf, 2 - head.size());
        if (got <= 0) {
            break; // an error is seen again by the next read
        }
        head.append(buf, static_cast<std::size_t>(got));
    }
    bool gz = head.size() == 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
              static_cast<unsigned char>(head[1]) == 0x8b;
    auto prefixed = std::make_unique<Prefixed>(std::move(head), std::move(raw));
    if (gz) {
        return std::make_unique<GzipSource>(std::move(prefixed), chunk);
    }
    return prefixed;
}

} // namespace

std::unique_ptr<ByteSource> open_file(const std::string& path, std::size_t chunk_bytes,
                                      std::string& error) {
    int fd = STDIN_FILENO;
    bool owned = false;
    if (path != "-") {
        fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) {
            error = "cannot open: " + errno_text(errno);
            return nullptr;
        }
        owned = true;
    }
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        if (owned) {
            ::close(fd);
        }
        error = "is a directory, not a trace file";
        return nullptr;
    }
    if (owned && S_ISREG(st.st_mode)) {
        ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    }
    return sniffed(std::make_unique<FileSource>(fd, owned), chunk_bytes);
}

std::unique_ptr<ByteSource> open_descriptor(int fd, bool owned, std::size_t chunk_bytes) {
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    return sniffed(std::make_unique<FileSource>(fd, owned), chunk_bytes);
}

std::unique_ptr<ByteSource> open_memory(std::string_view bytes, std::size_t chunk_bytes) {
    return sniffed(std::make_unique<MemorySource>(bytes, std::max<std::size_t>(chunk_bytes, 1)),
                   chunk_bytes);
}

} // namespace sdscprov::trace_source

namespace sdscprov {

namespace {

// What the first bytes of a regular file say (TraceFile): gzip, a JSON array, or an object whose
// first MiB names traceEvents is a trace.
TraceFile::Kind kind_of_head(std::string_view head) {
    if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
        static_cast<unsigned char>(head[1]) == 0x8b) {
        return TraceFile::Kind::trace;
    }
    auto first = head.find_first_not_of(" \t\r\n");
    if (first != std::string_view::npos && head[first] == '[') {
        return TraceFile::Kind::trace;
    }
    return head.find("\"traceEvents\"") != std::string_view::npos ? TraceFile::Kind::trace
                                                                  : TraceFile::Kind::other;
}

} // namespace

TraceFile::Impl::~Impl() {
    if (fd >= 0) {
        ::close(fd);
    }
}

TraceFile::TraceFile(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TraceFile::TraceFile(TraceFile&&) noexcept = default;
TraceFile& TraceFile::operator=(TraceFile&&) noexcept = default;
TraceFile::~TraceFile() = default;

const std::string& TraceFile::path() const {
    return impl_->path;
}

TraceFile::Kind TraceFile::kind() const {
    return impl_->kind;
}

std::uint64_t TraceFile::text_size() const {
    return impl_->text_size;
}

TraceFile TraceFile::open(const std::string& path) {
    auto impl = std::make_unique<Impl>();
    impl->path = path;
    if (path == "-") {
        impl->kind = Kind::trace;
        return TraceFile(std::move(impl));
    }
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        return TraceFile(std::move(impl)); // the reader says why
    }
    if (S_ISDIR(st.st_mode)) {
        impl->kind = Kind::directory;
        return TraceFile(std::move(impl));
    }
    if (!S_ISREG(st.st_mode)) {
        return TraceFile(std::move(impl)); // opened by the reader: a FIFO's open waits for a writer
    }
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        return TraceFile(std::move(impl));
    }
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd); // replaced since the stat: the reader opens it and says what it is
        return TraceFile(std::move(impl));
    }
    impl->fd = fd;
    std::string head(std::size_t{1} << 20, '\0');
    std::size_t got = 0;
    while (got < head.size()) {
        ssize_t n = ::pread(fd, head.data() + got, head.size() - got, static_cast<off_t>(got));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            break;
        }
        got += static_cast<std::size_t>(n);
    }
    head.resize(got);
    impl->kind = kind_of_head(head);
    bool gzip = got >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
                static_cast<unsigned char>(head[1]) == 0x8b;
    impl->text_size = gzip ? 0 : static_cast<std::uint64_t>(st.st_size);
    return TraceFile(std::move(impl));
}

} // namespace sdscprov
