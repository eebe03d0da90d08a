#include "sdscprov/profile/annotate_trace.hpp"

#include "core/json_out.hpp"
#include "profile/utilization_rows.hpp"
#include "sdscprov/core/path.hpp"
#include "sdscprov/write/fd_output.hpp"
#include "sdscprov/write/replace.hpp"

#include <cerrno>
#include <cstring>
#include <deque>
#include <dirent.h>
#include <fcntl.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_map>
#include <zlib.h>

namespace sdscprov {

namespace {

constexpr std::size_t flush_bytes = std::size_t{1} << 20;

// What the bundles table says of one bundle: everything the events of the old format repeated.
std::string bundle_description(const ProfileBundle& b) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
    auto strings = [&](std::string_view key, const auto& items, auto text) {
        json_out::key(w, key);
        w.StartArray();
        for (const auto& item : items) {
            json_out::string(w, text(item));
        }
        w.EndArray();
    };
    auto same = [](const std::string& s) -> std::string_view { return s; };
    w.StartObject();
    json_out::member(w, "event_name", b.event_name);
    strings("source_lines", b.lines, [](const SourceLine& l) { return l.label(); });
    strings("aten_ops", b.aten_ops, same);
    strings("kernels", b.kernel_names, same);
    strings("kernel_dirs", b.kernel_dirs, same);
    strings("handles", b.handle_ids, same);
    json_out::member(w, "paired_by", to_string(b.resolution));
    w.EndObject();
    return {buffer.GetString(), buffer.GetSize()};
}

std::string json_string(std::string_view s) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
    json_out::string(w, s);
    return {buffer.GetString(), buffer.GetSize()};
}

// What a bundle's events say beside its key, so that Perfetto shows it on the event: the source
// line of the bundle that had taken the most device time when its first event was read (the
// first by file and line on a tie) as FILE-NAME:LINE (its full path is in the bundles table),
// then " +N" when it has N more lines, and its kernel as the kernel ranking names it, but for the
// key (KERNEL@DIRECTORY-NAME in one directory, else KERNEL: the key is the member beside it; the
// event name without a kernel name). Few bytes: they are repeated on every event of the bundle.
// `ns`: the lines' device time so far, by the ids in `ids`.
std::string said_of(const ProfileBundle& b, const std::vector<std::uint32_t>& ids,
                    const std::vector<std::uint64_t>& ns) {
    std::string said;
    if (!b.lines.empty()) {
        std::size_t hottest = 0;
        for (std::size_t i = 1; i < ids.size(); ++i) {
            if (ns[ids[i]] > ns[ids[hottest]]) {
                hottest = i;
            }
        }
        const SourceLine& line = b.lines[hottest];
        std::string text = std::string(file_name_of(line.file)) + ":" + std::to_string(line.line);
        if (b.lines.size() > 1) {
            text += " +" + std::to_string(b.lines.size() - 1);
        }
        said += ",\"line\":" + json_string(text);
    }
    std::string kernel;
    for (const auto& name : b.kernel_names) {
        kernel += (kernel.empty() ? "" : "+") + name;
    }
    if (kernel.empty()) {
        kernel = b.event_name;
    } else if (b.kernel_dirs.size() == 1) {
        kernel += "@" + std::string(base_name(b.kernel_dirs.front()));
    }
    return said + ",\"kernel\":" + json_string(kernel);
}

struct FileId {
    dev_t dev;
    ino_t ino;
    bool operator==(const FileId&) const = default;
};

// The first input of the run that is the file `out`, described ("the trace x"), or empty.
std::string input_named(const FileId& out, const AnnotateTraceInputs& inputs) {
    struct stat st {};
    auto same = [&](const std::string& path) {
        return ::stat(path.c_str(), &st) == 0 && FileId{st.st_dev, st.st_ino} == out;
    };
    if (inputs.trace == "-") {
        if (::fstat(STDIN_FILENO, &st) == 0 && FileId{st.st_dev, st.st_ino} == out) {
            return "the trace being read (standard input)";
        }
    } else if (same(inputs.trace)) {
        return "the trace being read";
    }
    for (const auto& sidecar : inputs.sidecars) {
        if (same(sidecar)) {
            return "the --origins sidecar " + sidecar;
        }
    }
    if (inputs.caches.empty()) {
        return {};
    }
    std::string found;
    discover(
        inputs.caches, inputs.discover,
        [&](KernelDir&& dir) {
            if (!found.empty()) {
                return;
            }
            for (const auto& file : dir.files) {
                if (same(file.path)) {
                    found = "the SDSC file " + file.path + " of a cache given";
                    return;
                }
            }
            if (dir.has_bundle && same(dir.path + "/bundle.mlir")) {
                found = "the bundle " + dir.path + "/bundle.mlir of a cache given";
            }
        },
        [](Problem&&) {}); // the caches' problems are the index's to report
    return found;
}

} // namespace

struct AnnotatedTrace::Impl {
    ProfileBuilder& builder;
    std::string out;
    bool to_stdout = false;
    // Ours by its name and lock for its whole life (replace.hpp): removed when not renamed, also
    // by a signal, and never taken for someone else's file by a later sweep.
    std::optional<PendingReplace> temp;
    std::optional<struct stat> existing; // OUT as found by open(), when it exists
    std::vector<Problem> notes;
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
        std::size_t times_at = 0; // where the event's timeline figures go into `text`
        bool ready = true;        // false until they are known (tell())
    };
    // In the trace's order; the n-th annotated event's is the n-th pushed (its tag), and the
    // bundles' table, last, the only one without a tag.
    std::deque<Insertion> insertions;
    std::uint64_t passed = 0; // insertions written (popped)
    // The trace's bytes from `written` on that wait for an insertion not ready: from held_at.
    std::string held;
    std::size_t held_at = 0;
    // At most this many bytes wait: past it, the first insertion goes without its figures
    // (counted: untimed), so that a device with few activities among many of another's does not
    // hold the trace in memory.
    static constexpr std::size_t hold_limit = std::size_t{64} << 20;
    std::uint64_t untimed = 0;
    // The figures of the event being added, told before its insertion was made (it left its
    // device's window at once).
    std::optional<std::pair<std::uint64_t, ActivityTimes>> early;
    // The bundles referred to, in the order of their first annotated event: key, description.
    struct Described {
        std::size_t index = 0;
        std::vector<std::uint32_t> lines; // ids into line_ns
        std::string said;                 // its line, how many more, its kernel (JSON members)
    };
    std::unordered_map<std::string, Described> described;
    std::vector<std::pair<std::string, std::string>> descriptions;
    // The device time of each source line over the events annotated so far (a line's id: its
    // place in line_ns), which picks the line a bundle's events name.
    std::unordered_map<std::string, std::uint32_t> line_ids;
    std::vector<std::uint64_t> line_ns;
    int error = 0; // errno of the first failure
    std::string failed_step;

    Impl(ProfileBuilder& b, std::string o) : builder(b), out(std::move(o)) {
        to_stdout = out == "-";
        gzip = !to_stdout && out.size() > 3 && out.compare(out.size() - 3, 3, ".gz") == 0;
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
        if (error != 0) {
            return;
        }
        if (const int failed = sdscprov::write_all(fd, bytes); failed != 0) {
            errno = failed;
            fail("cannot write the annotated trace");
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

    // Writes `text` (the trace's bytes from `written` on) with the insertions that fall in it,
    // up to the first one not ready; returns the rest of `text`, from that insertion on.
    std::string_view pass(std::string_view text) {
        for (;;) {
            const std::uint64_t end = written + text.size();
            if (insertions.empty() || insertions.front().offset > end) {
                append(text);
                written = end;
                return {};
            }
            Insertion& insertion = insertions.front();
            const auto before = static_cast<std::size_t>(insertion.offset - written);
            append(text.substr(0, before));
            text.remove_prefix(before);
            written = insertion.offset;
            if (!insertion.ready) {
                return text;
            }
            append(insertion.text);
            insertions.pop_front();
            ++passed;
        }
    }

    // Passes the held bytes as far as the insertions allow.
    void pass_held() {
        const std::string_view rest = pass(std::string_view(held).substr(held_at));
        held_at = held.size() - rest.size();
        if (rest.empty()) {
            held.clear();
            held_at = 0;
        } else if (held_at >= (std::size_t{1} << 20) && held_at * 2 >= held.size()) {
            held.erase(0, held_at);
            held_at = 0;
        }
    }

    // Bytes that wait for an insertion: held, within hold_limit.
    void hold(std::string_view text) {
        held.append(text);
        while (held.size() - held_at > hold_limit && !insertions.empty() &&
               !insertions.front().ready) {
            insertions.front().ready = true;
            ++untimed;
            pass_held();
        }
    }

    // The tag-th annotated event's figures: its insertion is ready.
    void tell(std::uint64_t tag, const ActivityTimes& t) {
        if (tag == passed + insertions.size()) {
            early.emplace(tag, t); // its insertion comes next
            return;
        }
        if (tag < passed || tag - passed >= insertions.size()) {
            return;
        }
        Insertion& insertion = insertions[static_cast<std::size_t>(tag - passed)];
        std::string members;
        auto member = [&](const char* name, const std::optional<std::uint64_t>& ns) {
            if (ns) {
                members += std::string(",\"") + name + "\":" + std::to_string(*ns);
            }
        };
        member("gap_ns", t.gap_ns);
        member("host_wait_ns", t.host_wait_ns);
        member("launch_delay_ns", t.launch_delay_ns);
        insertion.text.insert(insertion.times_at, members);
        insertion.ready = true;
        if (tag == passed) {
            pass_held();
        }
    }

    // Removes the temporaries of OUT whose writer is gone (a run killed while writing it), as
    // annotate removes those of the files it writes; only names made for OUT are looked at.
    void sweep() {
        const std::string parent = parent_dir(out);
        const std::string embedded = temp_embedded_name(file_name_of(out));
        DIR* dir = ::opendir(parent.c_str());
        if (dir == nullptr) {
            return;
        }
        std::vector<std::string> temps;
        while (const dirent* entry = ::readdir(dir)) {
            auto parsed = parse_temp_file_name(entry->d_name);
            if (parsed && parsed->embedded == embedded) {
                temps.push_back((parent == "/" ? "" : parent) + "/" + entry->d_name);
            }
        }
        ::closedir(dir);
        for (const auto& t : temps) {
            std::string detail;
            switch (remove_if_abandoned(t, detail)) {
            case TempFate::removed:
                notes.push_back(make_problem(t, {}, ProblemCode::leftover_temp,
                                             "removed a temporary file left by an interrupted "
                                             "sdscprov run (its lock was free: the run is gone)"));
                break;
            case TempFate::other_host:
                notes.push_back(make_problem(
                    t, {}, ProblemCode::leftover_temp,
                    "left as it is: a temporary file of an sdscprov run on another machine (or "
                    "before a reboot) on a network file system, where a free lock does not prove "
                    "that run gone; remove it once no sdscprov run writes here"));
                break;
            case TempFate::alive:
            case TempFate::ours:
            case TempFate::kept:
                break;
            }
        }
    }
};

AnnotatedTrace::AnnotatedTrace(ProfileBuilder& builder, std::string out)
    : impl_(std::make_unique<Impl>(builder, std::move(out))) {
    builder.time_annotated(
        [s = impl_.get()](std::uint64_t tag, const ActivityTimes& t) { s->tell(tag, t); });
}

AnnotatedTrace::~AnnotatedTrace() = default;

const std::vector<Problem>& AnnotatedTrace::notes() const {
    return impl_->notes;
}

std::optional<Problem> AnnotatedTrace::untimed_note() const {
    const Impl& s = *impl_;
    if (s.untimed == 0) {
        return std::nullopt;
    }
    return make_problem(s.to_stdout ? std::string("<stdout>") : s.out, {},
                        ProblemCode::untimed_annotations,
                        std::to_string(s.untimed) +
                            " annotated events are written without their gap_ns, host_wait_ns "
                            "and launch_delay_ns: more than 64 MiB of the trace came after each "
                            "before its device's timeline settled it (a device with few "
                            "activities among many of another's)");
}

bool AnnotatedTrace::to_stdout() const {
    return impl_->to_stdout;
}

std::optional<Problem> AnnotatedTrace::open(const AnnotateTraceInputs& inputs) {
    Impl& s = *impl_;
    const std::string shown = s.to_stdout ? std::string("<stdout>") : s.out;
    auto refuse = [&](ProblemCode code, const std::string& why) {
        return make_problem(shown, {}, code, why + ": the annotated trace is not written");
    };
    auto refuse_input = [&](const FileId& id) -> std::optional<Problem> {
        std::string input = input_named(id, inputs);
        if (input.empty()) {
            return std::nullopt;
        }
        return refuse(ProblemCode::bad_argument,
                      "is " + input + ": give --annotate-trace another path");
    };
    if (s.to_stdout) {
        // Standard output redirected to an input (`>> trace.json`) would be read as it grows.
        struct stat st {};
        if (::fstat(STDOUT_FILENO, &st) == 0 && S_ISREG(st.st_mode)) {
            if (auto refused = refuse_input({st.st_dev, st.st_ino})) {
                return refused;
            }
        }
        s.fd = STDOUT_FILENO;
        return std::nullopt;
    }
    struct stat st {};
    if (::lstat(s.out.c_str(), &st) == 0) {
        if (S_ISLNK(st.st_mode)) {
            return refuse(ProblemCode::bad_argument, "is a symbolic link, never replaced");
        }
        if (!S_ISREG(st.st_mode)) {
            return refuse(ProblemCode::bad_argument, "exists and is not a regular file");
        }
        if (auto refused = refuse_input({st.st_dev, st.st_ino})) {
            return refused;
        }
        if ((st.st_mode & S_IWUSR) == 0) {
            return refuse(ProblemCode::write_failed, "is read-only, never replaced");
        }
        // Another user's file keeps its owner only when root writes it: refused before the trace
        // is read, rather than after.
        const uid_t euid = ::geteuid();
        if (euid != 0 && st.st_uid != euid) {
            return refuse(ProblemCode::write_failed,
                          "belongs to uid " + std::to_string(st.st_uid) +
                              ": its replacement could not keep its owner");
        }
        s.existing = st;
    }
    s.sweep();
    Problem problem;
    s.temp = create_temp_beside(s.out, problem);
    if (!s.temp) {
        return refuse(ProblemCode::write_failed, problem.message);
    }
    s.fd = s.temp->fd();
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
    const ProfileBundle* bundle = s.builder.annotated_bundle();
    if (bundle == nullptr) {
        return;
    }
    auto dur = event_dur_ns(e);
    auto [it, added] = s.described.try_emplace(bundle->key);
    Impl::Described& d = it->second;
    if (added) {
        d.index = s.descriptions.size();
        s.descriptions.emplace_back(bundle->key, bundle_description(*bundle));
        for (const auto& line : bundle->lines) {
            auto [id, fresh] =
                s.line_ids.try_emplace(line.label(), static_cast<std::uint32_t>(s.line_ns.size()));
            if (fresh) {
                s.line_ns.push_back(0);
            }
            d.lines.push_back(id->second);
        }
    }
    for (auto id : d.lines) {
        s.line_ns[id] += dur.value_or(0);
    }
    if (added) {
        d.said = said_of(*bundle, d.lines, s.line_ns);
    }
    std::string reference = "{\"bundle\":" + json_string(bundle->key) + d.said + "}";
    if (bundle->ideal) { // the event's own ideal and utilization (utilization.hpp)
        reference = with_ideal(reference, *bundle->ideal, dur ? &*dur : nullptr);
    }
    // The timeline's figures go before the reference's closing brace, once known.
    const bool waits = s.builder.annotated_timed();
    if (e.args_state == FieldState::ok) {
        std::string text = "\"sdscprov\":" + reference + (e.args_empty ? "" : ",");
        const std::size_t at = text.size() - (e.args_empty ? 1 : 2);
        s.insertions.push_back({e.args_open + 1, std::move(text), at, !waits});
    } else {
        std::string text = std::string(e.empty ? "" : ", ") + "\"args\":{\"sdscprov\":" +
                           reference + "}";
        const std::size_t at = text.size() - 2;
        s.insertions.push_back({e.end, std::move(text), at, !waits});
    }
    if (s.early) {
        const auto [tag, times] = *s.early;
        s.early.reset();
        s.tell(tag, times);
    }
}

void AnnotatedTrace::events_end(std::uint64_t offset) {
    Impl& s = *impl_;
    if (s.descriptions.empty()) {
        return; // nothing refers to a bundle: the copy is the trace
    }
    // After the last event (an annotated one exists, so the array is not empty).
    std::string table =
        ",\n{\"name\": \"sdscprov_bundles\", \"ph\": \"M\", \"pid\": 0, \"tid\": 0, "
        "\"args\": {\"bundles\": {";
    for (std::size_t i = 0; i < s.descriptions.size(); ++i) {
        table += (i == 0 ? "\n" : ",\n") + json_string(s.descriptions[i].first) + ": " +
                 s.descriptions[i].second;
    }
    table += "}}}\n";
    s.insertions.push_back({offset, std::move(table)});
}

void AnnotatedTrace::bytes(std::string_view text) {
    Impl& s = *impl_;
    if (s.held_at < s.held.size()) {
        s.hold(text); // after bytes still waiting for an insertion
        return;
    }
    const std::string_view rest = s.pass(text);
    if (!rest.empty()) {
        s.held.clear();
        s.held_at = 0;
        s.hold(rest);
    }
}

std::optional<Problem> AnnotatedTrace::commit() {
    Impl& s = *impl_;
    // Every figure the timeline had was told by the builder's finish(); none waits any longer.
    for (auto& insertion : s.insertions) {
        insertion.ready = true;
    }
    s.pass_held();
    s.flush(true);
    auto failed = [&]() {
        std::string reason = std::strerror(s.error);
        if (s.error == EFBIG) {
            reason += " (the limit on the size of files this process may write, ulimit -f)";
        }
        return make_problem(s.to_stdout ? std::string("<stdout>") : s.out, {},
                            ProblemCode::write_failed,
                            s.failed_step + ": " + reason +
                                (s.to_stdout ? std::string(" (the copy is incomplete)")
                                             : std::string(" (nothing was written there)")));
    };
    if (s.to_stdout) {
        s.fd = -1;
        if (s.error != 0) {
            return failed();
        }
        return std::nullopt;
    }
    if (s.error == 0) {
        if (s.existing) {
            std::string wrong = give_metadata_of(s.fd, s.out, *s.existing);
            if (!wrong.empty()) {
                s.temp->release();
                s.fd = -1;
                return make_problem(s.out, {}, ProblemCode::write_failed,
                                    wrong + ": not replaced (nothing was written there)");
            }
        } else { // a new file: the mode open(2) would give it
            mode_t mask = ::umask(0);
            ::umask(mask);
            if (::fchmod(s.fd, 0666 & ~mask) != 0) {
                s.fail("cannot give the new file its mode");
            }
        }
    }
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
        return failed();
    }
    int dir = ::open(parent_dir(s.out).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
        (void)::fsync(dir);
        ::close(dir);
    }
    return std::nullopt;
}

} // namespace sdscprov
