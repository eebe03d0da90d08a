#include "sdscprov/handle/source_text.hpp"

#include "core/read_file.hpp"
#include "sdscprov/core/display.hpp"
#include "sdscprov/core/path.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <vector>

namespace sdscprov {

// ---- the option and the note --------------------------------------------------------------------

namespace {

// "a/" is "a", "/" stays "/".
std::string without_trailing_slash(std::string_view path) {
    while (path.size() > 1 && path.back() == '/') {
        path.remove_suffix(1);
    }
    return std::string(path);
}

// What each refusal is called in a report: its JSON name, and its words for people.
struct RefusalName {
    SourceRefusal refusal;
    std::string_view json;
    std::string_view words;
};
constexpr RefusalName refusal_names[source_refusal_count] = {
    {SourceRefusal::outside_roots, "outside_roots",
     "outside the allowed roots (--source-root DIR)"},
    {SourceRefusal::not_python, "not_python", "not a Python file"},
    {SourceRefusal::missing, "missing", "not found here"},
    {SourceRefusal::not_regular, "not_regular", "not a regular file"},
    {SourceRefusal::too_large, "too_large", "larger than 16 MiB"},
    {SourceRefusal::unreadable, "unreadable", "unreadable (permission or I/O error)"},
};

constexpr std::size_t max_prefixes_said = 5;

} // namespace

std::optional<SourceMapping> parse_source_mapping(std::string_view text, std::string& error) {
    auto eq = text.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size()) {
        error = "'" + std::string(text) + "': FROM=TO is needed (a path of the handles, '=', " +
                "where it is here)";
        return std::nullopt;
    }
    return SourceMapping{without_trailing_slash(text.substr(0, eq)),
                         without_trailing_slash(text.substr(eq + 1))};
}

std::string_view to_string(SourceRefusal refusal) {
    return refusal_names[static_cast<std::size_t>(refusal)].json;
}

void SourceTextNote::merge(const SourceTextNote& other) {
    read = read && other.read;
    not_shown.insert(other.not_shown.begin(), other.not_shown.end());
    unreadable_prefixes.insert(other.unreadable_prefixes.begin(), other.unreadable_prefixes.end());
}

std::vector<std::string> source_text_sentences(const SourceTextNote& note) {
    if (!note.read) {
        return {"source text: not read (--no-source-text)"};
    }
    if (note.not_shown.empty()) {
        return {};
    }
    std::size_t counts[source_refusal_count] = {};
    for (const auto& [file, why] : note.not_shown) {
        ++counts[static_cast<std::size_t>(why)];
    }
    std::size_t n = note.not_shown.size();
    std::string head =
        "source text: " + std::to_string(n) + (n == 1 ? " file" : " files") + " not shown:";
    const char* sep = " ";
    for (const auto& name : refusal_names) {
        if (auto c = counts[static_cast<std::size_t>(name.refusal)]) {
            head += sep + std::to_string(c) + " " + std::string(name.words);
            sep = ", ";
        }
    }
    std::vector<std::string> out{std::move(head)};
    std::size_t said = 0;
    for (const auto& prefix : note.unreadable_prefixes) {
        if (said++ == max_prefixes_said) {
            std::size_t more = note.unreadable_prefixes.size() - max_prefixes_said;
            out.push_back("and " + std::to_string(more) + " more unreadable " +
                          (more == 1 ? "prefix" : "prefixes"));
            break;
        }
        out.push_back("lines under " + prefix + " are not readable here: --source-map " +
                      without_trailing_slash(prefix) + "=DIR");
    }
    return out;
}

// ---- the rule on a file opened
// --------------------------------------------------------------------

std::optional<SourceRefusal> judge_opened_source(const OpenedSource& opened,
                                                 const std::vector<std::string>& real_roots) {
    if (!opened.real_path.ends_with(".py")) {
        return SourceRefusal::not_python;
    }
    bool under = std::any_of(real_roots.begin(), real_roots.end(), [&](const std::string& root) {
        const std::string& p = opened.real_path;
        return root == "/"
                   ? p.starts_with('/')
                   : p.starts_with(root) && (p.size() == root.size() || p[root.size()] == '/');
    });
    if (!under) {
        return SourceRefusal::outside_roots;
    }
    if (opened.pseudo_fs || !opened.regular) {
        return SourceRefusal::not_regular;
    }
    if (opened.size > max_source_file_size) {
        return SourceRefusal::too_large;
    }
    return std::nullopt;
}

namespace {

// File systems whose files are made up by the kernel (their "regular" files hold process state,
// keys, settings): never a source.
bool is_pseudo_file_system(decltype(std::declval<struct statfs>().f_type) type) {
    constexpr unsigned long pseudo[] = {
        PROC_SUPER_MAGIC,
        SYSFS_MAGIC,
        DEVPTS_SUPER_MAGIC,
        DEBUGFS_MAGIC,
        TRACEFS_MAGIC,
        SECURITYFS_MAGIC,
        CGROUP_SUPER_MAGIC,
        CGROUP2_SUPER_MAGIC,
        BPF_FS_MAGIC,
        EFIVARFS_MAGIC,
        PSTOREFS_MAGIC,
        SELINUX_MAGIC,
        SMACK_MAGIC,
        NSFS_MAGIC,
        0x73636673 /* configfs */,
        0x42494e4d /* binfmt_misc */,
    };
    auto t = static_cast<unsigned long>(type);
    return std::find(std::begin(pseudo), std::end(pseudo), t) != std::end(pseudo);
}

struct Fd {
    int fd = -1;
    ~Fd() {
        if (fd >= 0) {
            ::close(fd);
        }
    }
};

bool same_file(const struct stat& a, const struct stat& b) {
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// The real path of the file `fd` holds (opened at `path`): asked of /proc, else resolved from the
// path and kept only when it is the same file.
std::optional<std::string> real_path_of(int fd, const std::string& path, const struct stat& st) {
    char buf[PATH_MAX + 1];
    std::string link = "/proc/self/fd/" + std::to_string(fd);
    ssize_t n = ::readlink(link.c_str(), buf, PATH_MAX);
    if (n > 0 && buf[0] == '/') {
        return std::string(buf, static_cast<std::size_t>(n));
    }
    if (!::realpath(path.c_str(), buf)) {
        return std::nullopt;
    }
    struct stat resolved {};
    if (::stat(buf, &resolved) != 0 || !same_file(resolved, st)) {
        return std::nullopt;
    }
    return std::string(buf);
}

// The first directory of `path` that does not exist here, else the file's own, with '/' after
// it; empty for a bare name.
std::string missing_prefix(const std::string& path) {
    for (auto slash = path.find('/', 1); slash != std::string::npos;
         slash = path.find('/', slash + 1)) {
        std::string dir = path.substr(0, slash);
        struct stat st {};
        if (::stat(dir.c_str(), &st) != 0 && (errno == ENOENT || errno == ENOTDIR)) {
            return dir + "/";
        }
    }
    auto slash = path.rfind('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

} // namespace

// ---- reading ------------------------------------------------------------------------------------

// A source file's bytes and line starts, read once.
struct SourceLines::SourceText {
    simdjson::padded_string bytes;
    std::vector<std::size_t> line_starts;
};

struct SourceLines::Files {
    const SourceTextOptions& options;
    std::vector<std::string> real_roots;
    std::vector<const SourceMapping*> map; // longest FROM first
    std::map<std::string, std::optional<SourceText>> by_path;
    std::map<std::string, std::string> prefix_of_dir; // missing_prefix by parent, asked once
    SourceTextNote note;

    explicit Files(const SourceTextOptions& o) : options(o) {
        note.read = o.read;
        for (const auto& root : o.roots) {
            char buf[PATH_MAX + 1];
            if (::realpath(root.c_str(), buf)) {
                real_roots.emplace_back(buf);
            }
        }
        for (const auto& m : o.map) {
            map.push_back(&m);
        }
        std::stable_sort(map.begin(), map.end(), [](const auto* a, const auto* b) {
            return a->from.size() > b->from.size();
        });
    }

    // The path to read for the handle's `path`, and whether a --source-map gave it.
    std::pair<std::string, bool> mapped(const std::string& path) const {
        for (const auto* m : map) {
            std::string_view from = m->from == "/" ? std::string_view() : m->from;
            if (path.starts_with(from) &&
                (path.size() == from.size() || path[from.size()] == '/')) {
                std::string_view to = m->to == "/" && path.size() > from.size()
                                          ? std::string_view()
                                          : std::string_view(m->to);
                return {std::string(to) + path.substr(from.size()), true};
            }
        }
        return {path, false};
    }

    std::optional<SourceText> refuse(const std::string& path, SourceRefusal why) {
        note.not_shown.emplace(path, why);
        return std::nullopt;
    }

    // `path` (the handle's) read under the rule, or the reason noted.
    std::optional<SourceText> load(const std::string& path) {
        if (!options.read) {
            return std::nullopt;
        }
        auto [name, through_map] = mapped(path);
        if (!name.ends_with(".py")) { // not even opened
            return refuse(path, SourceRefusal::not_python);
        }
        // O_PATH: the file is found (links followed) without being opened for reading, so that
        // nothing is asked of a device or a fifo before the rule is applied to it.
        Fd held{::open(name.c_str(), O_PATH | O_CLOEXEC)};
        if (held.fd < 0) {
            if (errno != ENOENT && errno != ENOTDIR) {
                return refuse(path, SourceRefusal::unreadable);
            }
            if (!through_map) {
                auto [it, asked] = prefix_of_dir.try_emplace(parent_dir(path));
                if (asked) { // the files of one directory share their prefix
                    it->second = missing_prefix(path);
                }
                if (!it->second.empty()) {
                    note.unreadable_prefixes.insert(it->second);
                }
            }
            return refuse(path, SourceRefusal::missing);
        }
        struct stat st {};
        struct statfs fs {};
        if (::fstat(held.fd, &st) != 0 || ::fstatfs(held.fd, &fs) != 0) {
            return refuse(path, SourceRefusal::unreadable);
        }
        auto real = real_path_of(held.fd, name, st);
        if (!real) {
            return refuse(path, SourceRefusal::unreadable);
        }
        OpenedSource opened{*real, S_ISREG(st.st_mode), static_cast<std::uint64_t>(st.st_size),
                            is_pseudo_file_system(fs.f_type)};
        if (auto why = judge_opened_source(opened, real_roots)) {
            return refuse(path, *why);
        }
        // The file judged, opened for reading by its real path; another file there since (a
        // rename, a link put in its way) is refused.
        int fd = ::open(real->c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW);
        struct stat now {};
        if (fd < 0 || ::fstat(fd, &now) != 0 || !same_file(now, st)) {
            if (fd >= 0) {
                ::close(fd);
            }
            return refuse(path, SourceRefusal::unreadable);
        }
        Problem problem;
        auto bytes =
            detail::read_open_file(fd, *real, max_source_file_size, "source file", problem);
        if (!bytes) {
            return refuse(path, problem.code == ProblemCode::file_too_large
                                    ? SourceRefusal::too_large
                                    : SourceRefusal::unreadable);
        }
        SourceText text{std::move(*bytes), {}};
        std::string_view all(text.bytes.data(), text.bytes.size());
        // A final line end does not start another line.
        for (std::size_t at = 0; at < all.size();) {
            text.line_starts.push_back(at);
            auto nl = all.find('\n', at);
            if (nl == std::string::npos) {
                break;
            }
            at = nl + 1;
        }
        return text;
    }
};

SourceLines::SourceLines(const SourceTextOptions& options)
    : files_(std::make_unique<Files>(options)) {}
SourceLines::~SourceLines() = default;

const SourceTextNote& SourceLines::note() const {
    return files_->note;
}

std::optional<std::string> SourceLines::line(const std::optional<HandleSource>& source) {
    if (!source) {
        return std::nullopt;
    }
    return line(source->file, source->start_line);
}

std::optional<std::string> SourceLines::line(const std::string& file, std::int64_t n) {
    if (file.empty() || n < 1) {
        return std::nullopt;
    }
    auto& files = files_->by_path;
    auto it = files.find(file);
    if (it == files.end()) {
        it = files.emplace(file, files_->load(file)).first;
    }
    if (!it->second) {
        return std::nullopt;
    }
    const SourceText& text = *it->second;
    auto at = static_cast<std::uint64_t>(n);
    if (at > text.line_starts.size()) {
        return std::nullopt;
    }
    std::size_t begin = text.line_starts[at - 1];
    std::string_view line(text.bytes.data() + begin, text.bytes.size() - begin);
    line = line.substr(0, line.find('\n'));
    if (!line.empty() && line.back() == '\r') {
        line.remove_suffix(1);
    }
    if (at == 1 && line.starts_with("\xEF\xBB\xBF")) {
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
