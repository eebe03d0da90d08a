#include "sdscprov/source_text.hpp"

#include <cerrno>
#include <fcntl.h>
#include <map>
#include <simdjson.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace sdscprov {

// A source file's bytes and line starts, read once.
struct SourceLines::SourceText {
    std::string bytes;
    std::vector<std::size_t> line_starts;
};

struct SourceLines::Files {
    std::map<std::string, std::optional<SourceText>> by_path;
};

namespace {

// `s` with every byte that does not start a valid UTF-8 sequence replaced by U+FFFD: source
// files may be in another encoding, and both printers must write valid UTF-8.
std::string valid_utf8(std::string_view s) {
    if (simdjson::validate_utf8(s.data(), s.size())) {
        return std::string(s);
    }
    std::string out;
    out.reserve(s.size() + 8);
    std::size_t i = 0;
    while (i < s.size()) {
        auto c = static_cast<unsigned char>(s[i]);
        std::size_t len = c < 0x80           ? 1
                          : (c >> 5) == 0x6  ? 2
                          : (c >> 4) == 0xE  ? 3
                          : (c >> 3) == 0x1E ? 4
                                             : 0;
        if (len == 1 ||
            (len > 1 && i + len <= s.size() && simdjson::validate_utf8(s.data() + i, len))) {
            out.append(s.substr(i, len));
            i += len;
        } else {
            out += "\xEF\xBF\xBD";
            ++i;
        }
    }
    return out;
}

// Reads a regular file of at most max_source_file_size bytes; nullopt on any failure. O_NONBLOCK
// so that a fifo named in a handle cannot block the open; the fstat then refuses it.
std::optional<std::string> read_small_file(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        return std::nullopt;
    }
    struct stat st {};
    std::optional<std::string> result;
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
        static_cast<std::uint64_t>(st.st_size) <= max_source_file_size) {
        std::string bytes(static_cast<std::size_t>(st.st_size), '\0');
        std::size_t done = 0;
        bool ok = true;
        while (done < bytes.size()) {
            ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n <= 0) {
                ok = n == 0; // shrunk meanwhile: keep what was read
                break;
            }
            done += static_cast<std::size_t>(n);
        }
        if (ok) {
            bytes.resize(done);
            result = std::move(bytes);
        }
    }
    ::close(fd);
    return result;
}

std::optional<SourceLines::SourceText> load(const std::string& path) {
    auto bytes = read_small_file(path);
    if (!bytes) {
        return std::nullopt;
    }
    SourceLines::SourceText text{std::move(*bytes), {}};
    // A final line end does not start another line.
    for (std::size_t at = 0; at < text.bytes.size();) {
        text.line_starts.push_back(at);
        auto nl = text.bytes.find('\n', at);
        if (nl == std::string::npos) {
            break;
        }
        at = nl + 1;
    }
    return text;
}

} // namespace

SourceLines::SourceLines() : files_(std::make_unique<Files>()) {}
SourceLines::~SourceLines() = default;

std::optional<std::string> SourceLines::line(const std::optional<HandleSource>& source) {
    if (!source || source->file.empty() || source->start_line < 1) {
        return std::nullopt;
    }
    auto& files = files_->by_path;
    auto it = files.find(source->file);
    if (it == files.end()) {
        it = files.emplace(source->file, load(source->file)).first;
    }
    if (!it->second) {
        return std::nullopt;
    }
    const SourceText& text = *it->second;
    auto n = static_cast<std::uint64_t>(source->start_line);
    if (n > text.line_starts.size()) {
        return std::nullopt;
    }
    std::size_t begin = text.line_starts[n - 1];
    std::string_view line(text.bytes.data() + begin, text.bytes.size() - begin);
    line = line.substr(0, line.find('\n'));
    if (!line.empty() && line.back() == '\r') {
        line.remove_suffix(1);
    }
    if (n == 1 && line.starts_with("\xEF\xBB\xBF")) {
        line.remove_prefix(3);
    }
    return valid_utf8(line);
}

// Control characters from files (a source line, a handle's strings) must not reach a terminal.
std::string printable(std::string_view s) {
    std::string out(s);
    for (auto& c : out) {
        auto u = static_cast<unsigned char>(c);
        if ((u < 0x20 && c != '\t') || u == 0x7F) {
            c = '?';
        }
    }
    return out;
}

} // namespace sdscprov
