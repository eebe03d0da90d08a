#include "sdscprov/profile/ideal.hpp"

#include "core/read_file.hpp"
#include "profile/saturating.hpp"
#include "sidecars/located_json.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_set>

namespace sdscprov {

std::string_view to_string(IdealRule rule) {
    return rule == IdealRule::total_entry ? "total" : "sum";
}

namespace {

constexpr std::string_view what_file = "ideal cycles file";

// Every problem with the file: a warning of one code, saying what it costs.
Problem ideal_problem(Problem p) {
    p.code = ProblemCode::bad_ideal_cycles;
    p.severity = default_severity(ProblemCode::bad_ideal_cycles);
    p.message += ": the kernel has no ideal";
    return p;
}

IdealCyclesRead refused(Problem p) {
    IdealCyclesRead r;
    r.problem = ideal_problem(std::move(p));
    return r;
}

// The document's entries, read in one pass over simdjson's DOM with each value's place in the text.
class IdealDocument final : public detail::LocatedJsonReader {
public:
    IdealDocument(const std::string& path, std::string_view bytes)
        : LocatedJsonReader(path, bytes, ProblemCode::bad_ideal_cycles) {}

    std::optional<KernelIdeal> read(const element& root) {
        simdjson::dom::array entries;
        if (!array(root, 0, "the file", entries)) {
            return std::nullopt;
        }
        if (entries.size() == 0) {
            error(0, false, "an empty array: no entry gives the kernel's cycles");
            return std::nullopt;
        }
        elements(entries, 0, [&](const element& e, std::size_t at, std::size_t i) {
            if (problems.empty()) {
                entry(e, at, i);
            }
        });
        if (!problems.empty()) {
            return std::nullopt;
        }
        if (total_at_) {
            ideal_.cycles = total_;
            ideal_.rule = IdealRule::total_entry;
        } else if (sum_overflows_) {
            error(0, false,
                  "the entries add up to more than " +
                      std::to_string(std::numeric_limits<std::uint64_t>::max()) + " cycles");
            return std::nullopt;
        } else {
            ideal_.cycles = sum_;
            ideal_.rule = IdealRule::sum_of_entries;
        }
        ideal_.entries = entries.size();
        return std::move(ideal_);
    }

private:
    void entry(const element& e, std::size_t at, std::size_t i) {
        simdjson::dom::object obj;
        const std::string which = "entry " + std::to_string(i + 1);
        if (!object(e, at, which, obj)) {
            return;
        }
        std::optional<std::uint64_t> cycles;
        std::optional<std::string> category;
        members(obj, at, [&](std::string_view key, const element& value, std::size_t child) {
            if (key == "ideal_cycles") {
                cycles = cycles_of(value, child, which);
            } else if (key == "op_category") {
                std::string s;
                if (string(value, child, which + "'s op_category", s)) {
                    category = std::move(s);
                }
            } else if (other_seen_.insert(key).second) {
                ideal_.other_members.emplace_back(key);
            }
        });
        if (!problems.empty()) {
            return;
        }
        if (!cycles || !category) {
            error(at, false, which + " has no " + (cycles ? "op_category" : "ideal_cycles"));
            return;
        }
        if (*category == ideal_total_category) {
            total(*cycles, at);
            return;
        }
        sum_overflows_ =
            sum_overflows_ || *cycles > std::numeric_limits<std::uint64_t>::max() - sum_;
        sum_ = saturating_add(sum_, *cycles);
        if (!ideal_.category || *cycles > largest_) {
            largest_ = *cycles;
            ideal_.category = std::move(*category);
        }
    }

    void total(std::uint64_t cycles, std::size_t at) {
        if (total_at_) {
            TextPosition first = position(*total_at_, false);
            error(at, false,
                  "a second \"TOTAL\" entry (the first is at " + std::to_string(first.line) + ":" +
                      std::to_string(first.col) + "): which one is the kernel's is not known");
            return;
        }
        total_at_ = at;
        total_ = cycles;
    }

    std::optional<std::uint64_t> cycles_of(const element& value, std::size_t at,
                                           const std::string& which) {
        std::uint64_t n = 0;
        if (value.get(n) == simdjson::SUCCESS) {
            return n;
        }
        std::string_view text = raw(at);
        constexpr std::size_t shown = 40;
        std::string quoted =
            text.size() > shown ? std::string(text.substr(0, shown)) + "..." : std::string(text);
        error(at, false, which + "'s ideal_cycles must be a non-negative integer, not " + quoted);
        return std::nullopt;
    }

    KernelIdeal ideal_;
    std::unordered_set<std::string_view> other_seen_; // keys in the parser's document
    std::uint64_t sum_ = 0;
    bool sum_overflows_ = false;
    std::uint64_t largest_ = 0;
    std::optional<std::size_t> total_at_; // location index of the TOTAL entry
    std::uint64_t total_ = 0;
};

// A problem of the file at `path` (recoded by ideal_problem).
Problem file_problem(const std::string& path, std::string message) {
    return make_problem(path, {}, ProblemCode::bad_ideal_cycles, std::move(message));
}

} // namespace

IdealCyclesRead IdealCyclesReader::parse(const std::string& path, std::string_view bytes) {
    simdjson::padded_string padded(bytes);
    return parse_padded(path, std::string_view(padded.data(), padded.size()));
}

IdealCyclesRead IdealCyclesReader::parse_padded(const std::string& path,
                                                std::string_view padded_bytes) {
    // simdjson does not skip a byte order mark; it has no column, so the positions in the rest
    // are those of the whole file.
    std::string_view doc = padded_bytes;
    if (doc.substr(0, 3) == "\xEF\xBB\xBF") {
        doc.remove_prefix(3);
    }
    std::vector<Problem> problems;
    simdjson::dom::element root;
    if (!detail::parse_located(parser_, path, doc, root, problems)) {
        return refused(std::move(problems.front()));
    }
    IdealDocument document(path, doc);
    IdealCyclesRead r;
    r.ideal = document.read(root);
    if (!document.problems.empty()) {
        r.ideal.reset();
        r.problem = ideal_problem(std::move(document.problems.front()));
    }
    return r;
}

IdealCyclesRead IdealCyclesReader::read(const std::string& kernel_dir,
                                        const IdealReadOptions& options) {
    const std::string path = kernel_dir + "/" + std::string(ideal_cycles_path);
    auto cannot = [&](std::string doing, int err) {
        return refused(file_problem(path, std::move(doing) + " " + std::string(what_file) + ": " +
                                              std::strerror(err)));
    };
    // Each name is opened relative to a descriptor of the directory it is in, without following
    // a link unless asked (O_NOFOLLOW): a link or another file swapped in between a look and the
    // open is never read. O_NONBLOCK: a fifo without a writer is not waited on.
    struct Fd {
        int fd = -1;
        ~Fd() {
            if (fd >= 0) {
                ::close(fd);
            }
        }
    };
    const int nofollow = options.follow_symlinks ? 0 : O_NOFOLLOW;
    Fd dir{::open(kernel_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
    if (dir.fd < 0) {
        return errno == ENOENT ? IdealCyclesRead{}
                               : cannot("cannot open the directory of the", errno);
    }
    // Why the open of `name` in `at` failed: absent, a link, a special file, or the system's
    // reason.
    auto failed = [&](int at, const char* name, std::string_view which, int err) {
        struct stat st {};
        bool seen = ::fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
        if (!seen && errno == ENOENT) {
            return IdealCyclesRead{}; // no file: the ideal is unknown
        }
        if (seen && S_ISLNK(st.st_mode) && !options.follow_symlinks) {
            return refused(file_problem(path, std::string(which) +
                                                  " is a symbolic link, not followed "
                                                  "(--follow-symlinks follows it)"));
        }
        if (seen && err == ENXIO && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
            return refused(file_problem(path, detail::not_regular_message(st.st_mode)));
        }
        return cannot("cannot read", err);
    };
    Fd perf{::openat(dir.fd, "perf", O_RDONLY | O_DIRECTORY | O_CLOEXEC | nofollow)};
    if (perf.fd < 0) {
        return failed(dir.fd, "perf", "its directory perf", errno);
    }
    const char* name = ideal_cycles_path.data() + ideal_cycles_path.rfind('/') + 1;
    int fd = ::openat(perf.fd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | nofollow);
    if (fd < 0) {
        return failed(perf.fd, name, "it", errno);
    }
    Problem problem;
    auto bytes = detail::read_open_file(fd, path, options.max_file_size, what_file, problem);
    if (!bytes) {
        return refused(std::move(problem));
    }
    return parse_padded(path, std::string_view(bytes->data(), bytes->size()));
}

std::uint64_t ideal_ns(std::uint64_t cycles, std::uint32_t core_mhz) {
    if (core_mhz == 0) {
        return std::numeric_limits<std::uint64_t>::max();
    }
    // cycles x 1000 / MHz rounded half up is floor((2000 x cycles + MHz) / (2 x MHz)), which is
    // q x 1000 + floor((2000 x r + MHz) / (2 x MHz)) for cycles = q x MHz + r: no product can
    // overflow (r < MHz < 2^32) and the whole part is known to fit before it is formed.
    constexpr std::uint64_t largest = std::numeric_limits<std::uint64_t>::max();
    const std::uint64_t mhz = core_mhz;
    const std::uint64_t q = cycles / mhz;
    const std::uint64_t part = (2000 * (cycles % mhz) + mhz) / (2 * mhz); // at most 1000
    return q > (largest - part) / 1000 ? largest : q * 1000 + part;
}

} // namespace sdscprov
