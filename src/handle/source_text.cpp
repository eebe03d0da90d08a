#include "sdscprov/handle/source_text.hpp"

#include "core/read_file.hpp"
#include "sdscprov/core/display.hpp"

#include <map>
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

// A source file of at most max_source_file_size bytes; nullopt on any failure (a fifo named in a
// handle is refused unopened, as in the tree).
std::optional<std::string> read_small_file(const std::string& path) {
    Problem ignored;
    auto bytes = detail::read_whole_file(path, max_source_file_size, "source file", ignored);
    return bytes ? std::optional<std::string>(std::in_place, bytes->data(), bytes->size())
                 : std::nullopt;
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

// Control characters and bidirectional formatting characters from files (a source line, a
// handle's strings) must not reach a terminal: display's one escaping.
std::string printable(std::string_view s) {
    return masked_text(s);
}

} // namespace sdscprov
