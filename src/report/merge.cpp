#include "sdscprov/report/merge.hpp"

#include "core/read_file.hpp"
#include "sdscprov/core/display.hpp"
#include "sdscprov/report/profile_merge.hpp"
#include "sdscprov/report/report.hpp"
#include "sdscprov/walk/shard.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <string_view>
#include <tuple>

namespace sdscprov {

namespace {

using rapidjson::Document;
using rapidjson::Value;

// The schema versions this build writes (docs/report-json.md): the only ones it merges.
constexpr int known_version = 1;

// Counts in `totals` that are the whole walk's in every shard, not the shard's share.
constexpr std::string_view walk_wide[] = {"skipped_incomplete"};

// Why the reports cannot be merged; thrown inside this file only, returned as a value.
struct Refusal {
    std::string message;
};

[[noreturn]] void refuse(std::string message) {
    throw Refusal{std::move(message)};
}

std::string_view text_of(const Value& v) {
    return {v.GetString(), v.GetStringLength()};
}

const Value* member(const Value& object, std::string_view name) {
    if (!object.IsObject()) {
        return nullptr;
    }
    auto it = object.FindMember(Value(rapidjson::StringRef(name.data(), name.size())));
    return it == object.MemberEnd() ? nullptr : &it->value;
}

Value* member(Value& object, std::string_view name) {
    return const_cast<Value*>(member(static_cast<const Value&>(object), name));
}

struct Input {
    std::string source;
    Document doc;
    std::string kind; // "sdscprov_report" or "sdscprov_check"
    int version = 0;
    std::string command; // scan, annotate, strip; "check" for sdscprov_check
    Shard shard;
    std::uint64_t positions = 0;
    std::uint64_t kernels = 0;

    [[noreturn]] void not_ours(const std::string& why) const {
        refuse(source + ": not a shard report of this sdscprov: " + why);
    }
    const Value& need(const Value& object, std::string_view name, std::string_view where) const {
        const Value* v = member(object, name);
        if (v == nullptr) {
            not_ours(std::string(where) + " has no '" + std::string(name) + "'");
        }
        return *v;
    }
    Value& need(Value& object, std::string_view name, std::string_view where) const {
        return const_cast<Value&>(need(static_cast<const Value&>(object), name, where));
    }
    std::uint64_t count(const Value& object, std::string_view name, std::string_view where) const {
        const Value& v = need(object, name, where);
        if (!v.IsUint64()) {
            not_ours(std::string(where) + "." + std::string(name) + " is not a count");
        }
        return v.GetUint64();
    }
    std::string_view string(const Value& object, std::string_view name,
                            std::string_view where) const {
        const Value& v = need(object, name, where);
        if (!v.IsString()) {
            not_ours(std::string(where) + "." + std::string(name) + " is not a string");
        }
        return text_of(v);
    }
    // A path as the reports write it: a string, or {"bytes": base64} for one that is not UTF-8.
    std::string path(const Value& object, std::string_view name, std::string_view where) const {
        const Value& v = need(object, name, where);
        if (v.IsString()) {
            return std::string(text_of(v));
        }
        const Value* bytes = member(v, "bytes");
        std::optional<std::string> decoded;
        if (bytes != nullptr && bytes->IsString() && v.MemberCount() == 1) {
            decoded = base64_decode(text_of(*bytes));
        }
        if (!decoded) {
            not_ours(std::string(where) + "." + std::string(name) + " is not a path");
        }
        return *decoded;
    }
    Value& array(std::string_view name) {
        Value* v = member(doc, name);
        if (v == nullptr || !v->IsArray()) {
            not_ours("no '" + std::string(name) + "' array");
        }
        return *v;
    }
    std::string shard_name() const { return to_string(shard); }
};

void read_input(const ShardReport& report, Input& in) {
    in.source = report.source;
    in.doc.Parse(report.json.data(), report.json.size());
    if (in.doc.HasParseError()) {
        std::string why = rapidjson::GetParseError_En(in.doc.GetParseError());
        if (!why.empty() && why.back() == '.') {
            why.pop_back();
        }
        refuse(in.source + ": not JSON: " + why + " at byte " +
               std::to_string(in.doc.GetErrorOffset()));
    }
    for (const char* kind : {"sdscprov_report", "sdscprov_check"}) {
        if (member(in.doc, kind) != nullptr) {
            in.kind = kind;
        }
    }
    if (in.kind.empty()) {
        refuse(in.source +
               ": not an sdscprov JSON report (no 'sdscprov_report' or 'sdscprov_check' member)");
    }
    const Value& version = in.need(in.doc, in.kind, "the report");
    if (!version.IsInt()) {
        in.not_ours(in.kind + " is not a version number");
    }
    in.version = version.GetInt();
    in.command = in.kind == "sdscprov_check" ? "check" : in.string(in.doc, "command", "the report");
    const Value* shard = member(in.doc, "shard");
    if (shard == nullptr) {
        refuse(in.source + ": made without --shard: merge joins the JSON reports of the shards " +
               "of one run (--shard I/N)");
    }
    if (in.string(*shard, "hash", "shard") != "fnv1a64") {
        refuse(in.source + ": shards chosen by hash '" +
               std::string(in.string(*shard, "hash", "shard")) +
               "', not fnv1a64: made by another sdscprov version");
    }
    std::uint64_t index = in.count(*shard, "index", "shard");
    std::uint64_t count = in.count(*shard, "count", "shard");
    if (count == 0 || count > UINT32_MAX || index == 0 || index > count) {
        in.not_ours("shard " + std::to_string(index) + "/" + std::to_string(count));
    }
    in.shard = {static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(count)};
    in.positions = in.count(*shard, "positions", "shard");
    in.kernels = in.count(*shard, "kernels", "shard");
}

std::vector<std::string_view> member_names(const Value& object) {
    std::vector<std::string_view> names;
    for (const auto& m : object.GetObject()) {
        names.push_back(text_of(m.name));
    }
    return names;
}

// The reports must come from the shards of one run: same command, schema, sharding and walk,
// each shard once.
void check_compatible(std::vector<Input>& inputs) {
    const Input& a = inputs.front();
    for (const Input& b : inputs) {
        if (b.command != a.command) {
            refuse("cannot merge reports of different commands: " + a.source + " is from " +
                   a.command + ", " + b.source + " from " + b.command);
        }
        if (b.version != a.version) {
            refuse("cannot merge reports of different schema versions: " + a.source + " has " +
                   a.kind + " " + std::to_string(a.version) + ", " + b.source + " " +
                   std::to_string(b.version));
        }
    }
    if (a.version != known_version) {
        refuse(a.source + ": " + a.kind + " version " + std::to_string(a.version) +
               " is not one this sdscprov merges (" + std::to_string(known_version) + ")");
    }
    for (const Input& b : inputs) {
        if (b.shard.count != a.shard.count) {
            refuse("cannot merge shards of different shardings: " + a.source + " is shard " +
                   a.shard_name() + ", " + b.source + " shard " + b.shard_name());
        }
    }
    std::sort(inputs.begin(), inputs.end(),
              [](const Input& x, const Input& y) { return x.shard.index < y.shard.index; });
    for (std::size_t i = 1; i < inputs.size(); ++i) {
        if (inputs[i].shard.index == inputs[i - 1].shard.index) {
            refuse("overlapping shards: " + inputs[i - 1].source + " and " + inputs[i].source +
                   " are both shard " + inputs[i].shard_name());
        }
    }
    std::string missing;
    std::uint32_t next = 1;
    for (std::uint32_t i = 1; i <= a.shard.count; ++i) {
        if (next <= inputs.size() && inputs[next - 1].shard.index == i) {
            ++next;
        } else {
            missing += (missing.empty() ? "" : ", ") + to_string(Shard{i, a.shard.count});
            if (missing.size() > 200) {
                missing += ", ...";
                break;
            }
        }
    }
    if (!missing.empty()) {
        refuse("missing shard(s) " + missing + ": merge needs the reports of all " +
               std::to_string(a.shard.count) + " shards");
    }
    const Input& first = inputs.front();
    for (const Input& b : inputs) {
        if (b.positions != first.positions) {
            refuse(first.source + " and " + b.source +
                   " saw different walks: run every shard with the same paths and options over "
                   "the same caches");
        }
        if (member_names(b.doc) != member_names(first.doc)) {
            refuse(first.source + " and " + b.source +
                   " have different members: made by different sdscprov versions?");
        }
    }
}

// An element of a merged array: sorted by its position in the walk, then by shard (only one
// shard holds a position) and by its place in that shard's report.
struct Placed {
    std::uint64_t position;
    std::size_t input;
    std::size_t local;
    Value* value;
    bool operator<(const Placed& o) const {
        return std::tie(position, input, local) < std::tie(o.position, o.input, o.local);
    }
};

struct Merged {
    std::vector<Placed> entries;  // kernels (sdscprov_report) or findings (sdscprov_check)
    std::vector<Placed> problems; // walk and kernel problems
    std::vector<std::vector<Value*>> run_problems; // per input
};

void erase(Value& object, std::string_view name) {
    object.EraseMember(Value(rapidjson::StringRef(name.data(), name.size())));
}

// A shard's problems: the run's (the same in every shard), and the walk's and its kernels'
// (placed by position). Returns how many walk positions its problems hold.
std::uint64_t collect_problems(Input& in, std::size_t i, const std::vector<std::uint64_t>& own,
                               bool report,
                               std::vector<std::pair<std::uint64_t, std::size_t>>& events,
                               Merged& merged) {
    std::uint64_t walk_problems = 0;
    Value& problems = in.array("problems");
    for (rapidjson::SizeType j = 0; j < problems.Size(); ++j) {
        Value& p = problems[j];
        std::string where = "problems[" + std::to_string(j) + "]";
        std::string_view scope = in.string(p, "scope", where);
        if (scope == "run") {
            merged.run_problems[i].push_back(&p);
        } else if (scope == "walk" || scope == "kernel") {
            std::uint64_t position = in.count(p, "position", where);
            if (position >= in.positions) {
                in.not_ours(where + ".position is past the walk's end");
            }
            if (scope == "walk") {
                std::string path = in.path(p, "path", where);
                if (shard_of(path, in.shard.count) != in.shard.index) {
                    refuse(in.source + ": the walk problem at " + quote_path(path) +
                           " belongs to another shard than " + in.shard_name());
                }
                events.emplace_back(position, i);
                ++walk_problems;
            } else if (report && !std::binary_search(own.begin(), own.end(), position)) {
                in.not_ours(where + " belongs to no kernel directory of the report");
            }
            merged.problems.push_back({position, i, j, &p});
        } else {
            in.not_ours(where + ".scope is '" + std::string(scope) + "'");
        }
        erase(p, "scope");
        erase(p, "position");
    }
    return walk_problems;
}

// Every position of the walk is held by exactly one shard, once.
void check_positions(const std::vector<Input>& inputs,
                     std::vector<std::pair<std::uint64_t, std::size_t>>& events,
                     std::uint64_t held) {
    std::sort(events.begin(), events.end());
    for (std::size_t e = 1; e < events.size(); ++e) {
        if (events[e].first != events[e - 1].first) {
            continue;
        }
        if (events[e].second == events[e - 1].second) {
            inputs[events[e].second].not_ours("two entries at position " +
                                              std::to_string(events[e].first));
        }
        refuse("overlapping shards: " + inputs[events[e - 1].second].source + " and " +
               inputs[events[e].second].source + " both hold position " +
               std::to_string(events[e].first) + " of the walk");
    }
    const Input& first = inputs.front();
    if (held != first.positions) {
        refuse("the shards hold " + std::to_string(held) + " of the walk's " +
               std::to_string(first.positions) +
               " kernel directories and walk problems: were the reports cut or edited?");
    }
}

void collect(std::vector<Input>& inputs, Merged& merged) {
    bool report = inputs.front().kind == "sdscprov_report";
    const char* entries = report ? "kernels" : "findings";
    // Every position of the walk is held by one shard: a kernel directory or a walk problem.
    std::vector<std::pair<std::uint64_t, std::size_t>> events; // position, input
    std::uint64_t held = 0; // positions the shards say they hold: kernel directories, walk problems
    merged.run_problems.resize(inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        Input& in = inputs[i];
        Value& array = in.array(entries);
        std::vector<std::uint64_t> own; // this shard's kernel positions (sdscprov_report)
        for (rapidjson::SizeType j = 0; j < array.Size(); ++j) {
            Value& e = array[j];
            std::string where = std::string(entries) + "[" + std::to_string(j) + "]";
            std::uint64_t position = in.count(e, "position", where);
            if (position >= in.positions) {
                in.not_ours(where + ".position is past the walk's end");
            }
            if (report) {
                std::string dir = in.path(e, "dir", where);
                if (shard_of(dir, in.shard.count) != in.shard.index) {
                    refuse(in.source + ": kernel directory " + quote_path(dir) +
                           " belongs to shard " +
                           to_string(Shard{shard_of(dir, in.shard.count), in.shard.count}) +
                           ", not " + in.shard_name());
                }
                own.push_back(position);
                events.emplace_back(position, i);
            } else if (own.empty() || own.back() != position) {
                own.push_back(position);
            }
            erase(e, "position");
            merged.entries.push_back({position, i, j, &e});
        }
        if (report && array.Size() != in.kernels) {
            in.not_ours("it lists " + std::to_string(array.Size()) +
                        " kernel directories, its shard member says " + std::to_string(in.kernels));
        }
        if (!report) {
            // Findings do not list every kernel directory: their positions are the shard's.
            for (auto p : own) {
                events.emplace_back(p, i);
            }
        }
        held += in.kernels;
        std::sort(own.begin(), own.end());
        held += collect_problems(in, i, own, report, events, merged);
    }
    check_positions(inputs, events, held);
    std::sort(merged.entries.begin(), merged.entries.end());
    std::sort(merged.problems.begin(), merged.problems.end());
}

// The run's own problems (annotate's origins maps) are in every shard: the same list.
void check_run_problems(const std::vector<Input>& inputs, const Merged& merged) {
    const auto& first = merged.run_problems.front();
    for (std::size_t i = 1; i < inputs.size(); ++i) {
        const auto& other = merged.run_problems[i];
        bool same = other.size() == first.size();
        for (std::size_t j = 0; same && j < other.size(); ++j) {
            same = *other[j] == *first[j];
        }
        if (!same) {
            refuse(inputs[0].source + " and " + inputs[i].source +
                   " differ in the run's own problems (the origins maps'): were they run with "
                   "the same maps?");
        }
    }
}

// Sums `add` into `sum` (same members, in the same order): counts are added, except the walk's
// own and the names in `recomputed` (left as they are, computed again afterwards); anything
// else must be equal.
void add_into(Value& sum, const Value& add, const std::string& path, const Input& a, const Input& b,
              const std::vector<std::string_view>& recomputed) {
    auto differ = [&]() {
        refuse(a.source + " and " + b.source + " differ in '" + path +
               "', which is the same in every shard of a run");
    };
    if (sum.IsObject() && add.IsObject()) {
        if (member_names(sum) != member_names(add)) {
            differ();
        }
        auto s = sum.MemberBegin();
        for (auto m = add.MemberBegin(); m != add.MemberEnd(); ++m, ++s) {
            add_into(s->value, m->value, path + "." + std::string(text_of(m->name)), a, b,
                     recomputed);
        }
        return;
    }
    std::string_view name = std::string_view(path).substr(path.rfind('.') + 1);
    if (std::find(recomputed.begin(), recomputed.end(), name) != recomputed.end()) {
        return;
    }
    bool wide = std::find(std::begin(walk_wide), std::end(walk_wide), name) != std::end(walk_wide);
    if (sum.IsUint64() && add.IsUint64() && !wide) {
        sum.SetUint64(sum.GetUint64() + add.GetUint64());
    } else if (sum != add) {
        differ();
    }
}

void sum_member(std::vector<Input>& inputs, std::string_view name,
                const std::vector<std::string_view>& recomputed = {}) {
    Value* sum = member(inputs.front().doc, name);
    for (std::size_t i = 1; i < inputs.size(); ++i) {
        const Value* add = member(inputs[i].doc, name);
        add_into(*sum, *add, std::string(name), inputs.front(), inputs[i], recomputed);
    }
}

// superdsc_json: the files per member are summed; the coverage is computed from the sums, as the
// single run computes it from its totals.
void merge_superdsc(std::vector<Input>& inputs) {
    sum_member(inputs, "superdsc_json", {"coverage"});
    Input& first = inputs.front();
    Value& superdsc = first.need(first.doc, "superdsc_json", "the report");
    std::uint64_t documents = first.count(superdsc, "documents", "superdsc_json");
    Value& members = first.need(superdsc, "members", "superdsc_json");
    if (!members.IsObject()) {
        first.not_ours("superdsc_json.members is not an object");
    }
    for (rapidjson::SizeType i = 0; i < members.MemberCount(); ++i) {
        Value& cells = members.MemberBegin()[i].value;
        std::uint64_t files = first.count(cells, "files", "superdsc_json.members");
        Value& cell = first.need(cells, "coverage", "superdsc_json.members");
        auto name = to_string(coverage(files, documents));
        cell.SetString(rapidjson::StringRef(name.data(), name.size()));
    }
}

} // namespace

MergeResult merge_reports(const std::vector<ShardReport>& reports) {
    MergeResult result;
    if (reports.empty()) {
        result.problem = make_problem({}, {}, ProblemCode::merge_refused, "no report to merge");
        return result;
    }
    try {
        std::vector<Input> inputs(reports.size());
        for (std::size_t i = 0; i < reports.size(); ++i) {
            read_input(reports[i], inputs[i]);
        }
        check_compatible(inputs);
        Merged merged;
        collect(inputs, merged);
        check_run_problems(inputs, merged);
        bool report = inputs.front().kind == "sdscprov_report";
        if (report) {
            sum_member(inputs, "totals");
            merge_superdsc(inputs);
            const Input& first = inputs.front();
            if (first.count(first.need(first.doc, "totals", "the report"), "kernels", "totals") !=
                merged.entries.size()) {
                refuse("the shards' totals.kernels do not add up to the kernel directories "
                       "they list: were the reports edited?");
            }
        } else {
            sum_member(inputs, "files");
        }

        rapidjson::StringBuffer buffer;
        rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buffer);
        w.SetIndent(' ', 2); // as the report and check printers
        w.StartObject();
        const Input& first = inputs.front();
        for (const auto& m : first.doc.GetObject()) {
            std::string_view name = text_of(m.name);
            if (name == "shard") {
                continue;
            }
            w.Key(m.name.GetString(), m.name.GetStringLength());
            if (name == (report ? "kernels" : "findings")) {
                w.StartArray();
                for (const auto& e : merged.entries) {
                    e.value->Accept(w);
                }
                w.EndArray();
            } else if (name == "problems") {
                w.StartArray();
                for (const Value* p : merged.run_problems.front()) {
                    p->Accept(w);
                }
                for (const auto& p : merged.problems) {
                    p.value->Accept(w);
                }
                w.EndArray();
            } else if (name == "totals" || name == "superdsc_json" ||
                       (!report && name == "files")) {
                m.value.Accept(w); // summed above
            } else {
                for (const Input& b : inputs) {
                    if (*member(b.doc, name) != m.value) {
                        refuse(first.source + " and " + b.source + " differ in '" +
                               std::string(name) + "', which a single run prints once" +
                               (name == "tool" ? ": made by different sdscprov versions" : ""));
                    }
                }
                m.value.Accept(w);
            }
        }
        w.EndObject();
        result.report.assign(buffer.GetString(), buffer.GetSize());
        result.report.push_back('\n');
    } catch (const Refusal& r) {
        result.report.clear();
        result.problem = make_problem({}, {}, ProblemCode::merge_refused, r.message);
    }
    return result;
}

MergeFilesResult merge_report_files(const std::vector<std::string>& paths,
                                    const StreamWait& wait) {
    MergeFilesResult out;
    std::vector<ShardReport> reports;
    for (const auto& path : paths) {
        Problem problem;
        auto bytes = detail::read_named_input(path, std::numeric_limits<std::uint64_t>::max(),
                                              "the report", problem, wait);
        if (!bytes) {
            out.unreadable = std::move(problem);
            return out;
        }
        std::string json(bytes->data(), bytes->size());
        bytes.reset();
        if (reports.empty() && is_profile_report(json)) {
            auto merged = merge_profile_report_files(paths, std::move(json), wait);
            out.report = std::move(merged.report);
            out.unreadable = std::move(merged.unreadable);
            out.refusal = std::move(merged.refusal);
            return out;
        }
        reports.push_back(ShardReport{path, std::move(json)});
    }
    auto merged = merge_reports(reports);
    out.report = std::move(merged.report);
    out.refusal = std::move(merged.problem);
    return out;
}

} // namespace sdscprov
