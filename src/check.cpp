#include "sdscprov/check.hpp"

#include "json_out.hpp"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

namespace sdscprov {

std::string_view to_string(CheckRule r) {
    switch (r) {
    case CheckRule::missing_handle:
        return "missing-handle";
    case CheckRule::null_handle:
        return "null-handle";
    case CheckRule::malformed_handle:
        return "malformed-handle";
    case CheckRule::stale_handle:
        return "stale-handle";
    }
    return "missing-handle";
}

std::vector<Finding> check_kernel(const KernelReport& report) {
    std::vector<Finding> findings;
    for (std::size_t i = 0; i < report.files.size(); ++i) {
        const ScanResult& f = report.files[i];
        if (f.status != FileStatus::ok) {
            continue;
        }
        const std::string op = "op '" + f.op_key + "'";
        switch (f.handle_state) {
        case HandleState::absent:
            findings.push_back({f.file.path, f.op_key_pos, CheckRule::missing_handle,
                                op + " has no debug_handle_"});
            continue;
        case HandleState::null:
            findings.push_back({f.file.path, f.handle_pos, CheckRule::null_handle,
                                op + ": debug_handle_ is null"});
            continue;
        case HandleState::malformed:
            findings.push_back({f.file.path, f.handle_pos, CheckRule::malformed_handle,
                                op + ": debug_handle_ is malformed (see FORMATS section 3)"});
            continue;
        case HandleState::populated:
            break;
        }
        if (report.annotation && i < report.annotation->files.size()) {
            const FileOutcome& outcome = report.annotation->files[i];
            if (outcome.action == FileAction::differs || outcome.action == FileAction::refresh) {
                findings.push_back({f.file.path, f.handle_pos, CheckRule::stale_handle,
                                    op + ": debug_handle_ is not the origins map's (id " +
                                        f.handle->id + "); sdscprov annotate --refresh"});
            }
        }
    }
    return findings;
}

void write_check_json(std::ostream& out, const std::vector<Finding>& findings,
                      const std::vector<Problem>& problems, std::uint64_t files) {
    rapidjson::StringBuffer buffer;
    rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buffer);
    w.SetIndent(' ', 2);
    auto string = [&](std::string_view s) {
        w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
    };
    auto position = [&](const TextPosition& pos) {
        w.Key("line");
        json_out::position(w, pos.line);
        w.Key("col");
        json_out::position(w, pos.col);
    };
    w.StartObject();
    w.Key("sdscprov_check");
    w.Int(1);
    w.Key("files");
    w.Uint64(files);
    w.Key("findings");
    w.StartArray();
    for (const auto& f : findings) {
        w.StartObject();
        w.Key("path");
        string(f.path);
        position(f.pos);
        w.Key("rule");
        string(to_string(f.rule));
        w.Key("message");
        string(f.message);
        w.EndObject();
    }
    w.EndArray();
    w.Key("problems");
    w.StartArray();
    for (const auto& p : problems) {
        json_out::problem(w, p);
    }
    w.EndArray();
    w.EndObject();
    out.write(buffer.GetString(), static_cast<std::streamsize>(buffer.GetSize()));
    out << '\n';
}

} // namespace sdscprov
