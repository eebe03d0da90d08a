#include "sdscprov/sidecars/spyre_provenance.hpp"

#include "sidecars/located_json.hpp"
#include "sidecars/padded_readers.hpp"
#include "sidecars/spyre_meaning.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <initializer_list>
#include <set>
#include <simdjson.h>

namespace sdscprov {

namespace {

using simdjson::dom::element;

bool all_of_chars(std::string_view s, const std::function<bool(char)>& ok) {
    return std::all_of(s.begin(), s.end(), ok);
}

// The schema's string patterns.
bool is_decimal_id(std::string_view s) {
    return !s.empty() && (s == "0" || s[0] != '0') &&
           all_of_chars(s, [](char c) { return c >= '0' && c <= '9'; });
}
bool is_event_key(std::string_view s) {
    return s.size() == 16 &&
           all_of_chars(s, [](char c) { return (c >= 'a' && c <= 'z') || (c >= '2' && c <= '7'); });
}
bool is_sha256_hex(std::string_view s) {
    return s.size() == 64 &&
           all_of_chars(s, [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}
// ^spyre_kernel_v1_[A-Za-z0-9_]+_[a-z2-7]{16}$
bool is_event_name_base(std::string_view s) {
    constexpr std::string_view prefix = "spyre_kernel_v1_";
    if (s.size() < prefix.size() + 1 + 1 + 16 || s.substr(0, prefix.size()) != prefix) {
        return false;
    }
    std::string_view middle = s.substr(prefix.size(), s.size() - prefix.size() - 17);
    return s[s.size() - 17] == '_' && is_event_key(s.substr(s.size() - 16)) &&
           all_of_chars(middle, [](char c) {
               return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '_';
           });
}
// ^.+:[1-9][0-9]*$
bool is_alias(std::string_view s) {
    auto colon = s.rfind(':');
    return colon != std::string_view::npos && colon > 0 && colon + 1 < s.size() &&
           s[colon + 1] != '0' &&
           all_of_chars(s.substr(colon + 1), [](char c) { return c >= '0' && c <= '9'; });
}

// Reads the document. Structure errors are schema-validation-failure (the reader's code);
// meaning errors are collected separately and reported only when the structure is sound.
class SpyreParser : public detail::LocatedJsonReader {
public:
    SpyreParser(std::string path, std::string_view bytes)
        : LocatedJsonReader(std::move(path), bytes, ProblemCode::schema_validation_failure) {}

    std::optional<SpyreProvenance> read(const element& root) {
        SpyreProvenance doc;
        doc.path = path_;
        simdjson::dom::object obj;
        if (root.get(obj) != simdjson::SUCCESS) {
            version_error(0, "spyre_provenance.json is a JSON object with 'schemaVersion': 1");
            return std::nullopt;
        }
        // schemaVersion first: a forward version is reported as such, whatever else changed.
        std::size_t child = 1;
        bool has_version = false;
        for (auto [key, value] : obj) {
            if (key == "schemaVersion") {
                has_version = true;
                std::int64_t v = 0;
                if (!integral(value, v) || v != 1) {
                    version_error(child, "unsupported schemaVersion " + std::string(raw(child)) +
                                             " (this sdscprov reads schema version 1)");
                    return std::nullopt;
                }
            }
            child += locs_[child].count;
        }
        if (!has_version) {
            version_error(0, "no 'schemaVersion': not a spyre_provenance.json?");
            return std::nullopt;
        }
        read_document(root, doc);
        if (any_error()) {
            return std::nullopt;
        }
        check_meaning(doc);
        if (any_error()) {
            return std::nullopt;
        }
        return doc;
    }

private:
    using MemberFn = std::function<void(std::string_view, const element&, std::size_t)>;

    void version_error(std::size_t at, std::string message) {
        problems.push_back(make_problem(path_, position(at, false),
                                        ProblemCode::unsupported_schema_version,
                                        std::move(message)));
    }

    void semantic(TextPosition pos, std::string message) {
        problems.push_back(
            make_problem(path_, pos, ProblemCode::semantic_validation_failure, std::move(message)));
    }

    // JSON Schema's "integer": any number with no fractional part.
    static bool integral(const element& e, std::int64_t& out) {
        if (e.get(out) == simdjson::SUCCESS) {
            return true;
        }
        std::uint64_t u = 0;
        if (e.get(u) == simdjson::SUCCESS) {
            out = INT64_MAX;
            return true;
        }
        double d = 0;
        if (e.get(d) == simdjson::SUCCESS && std::isfinite(d) && std::floor(d) == d &&
            std::fabs(d) < 9.0e18) {
            out = static_cast<std::int64_t>(d);
            return true;
        }
        return false;
    }

    bool integer(const element& e, std::size_t at, std::string_view what, std::int64_t min,
                 std::int64_t& out) {
        if (!integral(e, out) || out < min) {
            error(at, false, std::string(what) + " must be an integer >= " + std::to_string(min));
            return false;
        }
        return true;
    }

    // An object with exactly the members `required` (all present) and `optional`.
    void fields(const element& e, std::size_t at, const std::string& where,
                std::initializer_list<std::string_view> required,
                std::initializer_list<std::string_view> optional, const MemberFn& f) {
        simdjson::dom::object obj;
        if (!object(e, at, where, obj)) {
            return;
        }
        std::set<std::string_view> seen;
        members(obj, at, [&](std::string_view key, const element& v, std::size_t m) {
            bool known = std::find(required.begin(), required.end(), key) != required.end() ||
                         std::find(optional.begin(), optional.end(), key) != optional.end();
            if (!known) {
                std::string list;
                for (auto k : required) {
                    list += (list.empty() ? "" : ", ") + std::string(k);
                }
                for (auto k : optional) {
                    list += (list.empty() ? "" : ", ") + std::string(k);
                }
                unknown(key, m, where, list);
                return;
            }
            seen.insert(key);
            f(key, v, m);
        });
        for (auto k : required) {
            if (seen.count(k) == 0) {
                error(at, false, where + " has no '" + std::string(k) + "'");
            }
        }
    }

    // An object of key -> value with keys checked by `key_ok`.
    void map_of(const element& e, std::size_t at, const std::string& where,
                const std::function<bool(std::string_view)>& key_ok, std::string_view key_rule,
                std::size_t min_properties, const MemberFn& f) {
        simdjson::dom::object obj;
        if (!object(e, at, where, obj)) {
            return;
        }
        if (obj.size() < min_properties) {
            error(at, false, where + " must not be empty");
        }
        members(obj, at, [&](std::string_view key, const element& v, std::size_t m) {
            if (!key_ok(key)) {
                error(m, true,
                      "key '" + std::string(key) + "' of " + where + " is not " +
                          std::string(key_rule));
                return;
            }
            f(key, v, m);
        });
    }

    bool constant(const element& e, std::size_t at, std::string_view what,
                  std::string_view expected_text, const std::function<bool(const element&)>& eq) {
        if (!eq(e)) {
            error(at, false,
                  std::string(what) + " must be " + std::string(expected_text) + ", not " +
                      std::string(raw(at)));
            return false;
        }
        return true;
    }

    bool nonempty_string(const element& e, std::size_t at, const std::string& what,
                         std::string& out) {
        if (!string(e, at, what, out)) {
            return false;
        }
        if (out.empty()) {
            error(at, false, what + " must not be empty");
            return false;
        }
        return true;
    }

    bool patterned(const element& e, std::size_t at, const std::string& what,
                   const std::function<bool(std::string_view)>& ok, std::string_view rule,
                   std::string& out) {
        if (!string(e, at, what, out)) {
            return false;
        }
        if (!ok(out)) {
            error(at, false, what + " '" + out + "' is not " + std::string(rule));
            return false;
        }
        return true;
    }

    // An array of strings; `unique`: no repeats; `item_ok`: each item's pattern.
    void strings(const element& e, std::size_t at, const std::string& what, bool unique,
                 bool nonempty_items, const std::function<bool(std::string_view)>& item_ok,
                 std::string_view rule, std::vector<std::string>& out,
                 std::vector<TextPosition>* positions = nullptr) {
        simdjson::dom::array arr;
        if (!array(e, at, what, arr)) {
            return;
        }
        elements(arr, at, [&](const element& v, std::size_t i_at, std::size_t) {
            std::string s;
            if (!string(v, i_at, "an item of " + what, s)) {
                return;
            }
            if (nonempty_items && s.empty()) {
                error(i_at, false, "an item of " + what + " is empty");
            } else if (item_ok && !item_ok(s)) {
                error(i_at, false, "'" + s + "' in " + what + " is not " + std::string(rule));
            } else if (unique && std::find(out.begin(), out.end(), s) != out.end()) {
                error(i_at, false, "'" + s + "' appears twice in " + what);
            }
            out.push_back(std::move(s));
            if (positions) {
                positions->push_back(position(i_at, false));
            }
        });
    }

    void read_document(const element& root, SpyreProvenance& doc) {
        // The early draft's projections lack two members; a document is one or the other.
        doc.early_draft = true;
        fields(root, 0, "the document",
               {"schemaVersion", "eventKey", "mergeGeneration", "status", "diagnostics", "handles",
                "kernelIdentities", "kernelOccurrences", "upstreamProjections"},
               {}, [&](std::string_view key, const element& v, std::size_t m) {
                   if (key == "eventKey") {
                       read_event_key(v, m);
                   } else if (key == "mergeGeneration") {
                       std::int64_t g = 0;
                       integer(v, m, "'mergeGeneration'", 1, g);
                   } else if (key == "status") {
                       if (patterned(
                               v, m, "'status'",
                               [](std::string_view s) { return s == "complete" || s == "partial"; },
                               "complete or partial", doc.status)) {
                           at_.status_pos = position(m, false);
                       }
                   } else if (key == "diagnostics") {
                       at_.diagnostics_pos = position(m, false);
                       fields(v, m, "'diagnostics'", {},
                              {"collection-failure", "upstream-projection-failure"},
                              [&](std::string_view k, const element& d, std::size_t d_at) {
                                  std::int64_t n = 0;
                                  if (integer(d, d_at, "'" + std::string(k) + "'", 1, n)) {
                                      doc.diagnostics[std::string(k)] = n;
                                  }
                              });
                   } else if (key == "handles") {
                       map_of(v, m, "'handles'", is_decimal_id, "a decimal id", 0,
                              [&](std::string_view id, const element& h, std::size_t h_at) {
                                  read_handle(id, h, h_at, doc.handles[std::string(id)]);
                              });
                   } else if (key == "kernelIdentities") {
                       map_of(v, m, "'kernelIdentities'", is_event_key,
                              "a 16-character event key ([a-z2-7])", 1,
                              [&](std::string_view k, const element& i, std::size_t i_at) {
                                  read_identity(k, i, i_at, doc.identities[std::string(k)]);
                              });
                   } else if (key == "kernelOccurrences") {
                       map_of(v, m, "'kernelOccurrences'", is_sha256_hex, "a SHA-256 hex digest", 1,
                              [&](std::string_view k, const element& o, std::size_t o_at) {
                                  read_occurrence(k, o, o_at, doc.occurrences[std::string(k)]);
                              });
                   } else if (key == "upstreamProjections") {
                       map_of(v, m, "'upstreamProjections'", is_sha256_hex, "a SHA-256 hex digest",
                              1, [&](std::string_view k, const element& p, std::size_t p_at) {
                                  read_projection(k, p, p_at, doc);
                              });
                   }
               });
    }

    void read_event_key(const element& e, std::size_t at) {
        fields(e, at, "'eventKey'", {"version", "algorithm", "width", "stepAttribution"}, {},
               [&](std::string_view k, const element& v, std::size_t m) {
                   std::int64_t n = 0;
                   std::string_view s;
                   if (k == "version") {
                       constant(v, m, "'eventKey.version'", "1",
                                [&](const element& x) { return integral(x, n) && n == 1; });
                   } else if (k == "width") {
                       constant(v, m, "'eventKey.width'", "16",
                                [&](const element& x) { return integral(x, n) && n == 16; });
                   } else if (k == "algorithm") {
                       constant(v, m, "'eventKey.algorithm'", "\"sha256-prefix-80-base32-lower\"",
                                [&](const element& x) {
                                    return x.get(s) == simdjson::SUCCESS &&
                                           s == "sha256-prefix-80-base32-lower";
                                });
                   } else {
                       constant(v, m, "'eventKey.stepAttribution'", "\"bundle\"",
                                [&](const element& x) {
                                    return x.get(s) == simdjson::SUCCESS && s == "bundle";
                                });
                   }
               });
    }

    void read_source(const element& e, std::size_t at, const std::string& where,
                     std::optional<HandleSource>& out) {
        if (e.is_null()) {
            out.reset();
            return;
        }
        HandleSource src;
        fields(e, at, where, {"file", "start_line", "start_col", "end_line", "end_col"}, {},
               [&](std::string_view k, const element& v, std::size_t m) {
                   std::string what = where + "." + std::string(k);
                   std::int64_t n = 0;
                   if (k == "file") {
                       nonempty_string(v, m, what, src.file);
                   } else if (k == "start_line") {
                       integer(v, m, what, 1, src.start_line);
                   } else if (k == "start_col") {
                       integer(v, m, what, 0, src.start_col);
                   } else if (v.is_null()) {
                       (k == "end_line" ? src.end_line : src.end_col).reset();
                   } else if (integer(v, m, what + " (or null)", k == "end_line" ? 1 : 0, n)) {
                       (k == "end_line" ? src.end_line : src.end_col) = n;
                   }
               });
        out = std::move(src);
    }

    void read_handle(std::string_view key, const element& e, std::size_t at, SpyreHandle& out) {
        std::string where = "handle '" + std::string(key) + "'";
        out.pos = position(at, false);
        DebugHandle& h = out.handle;
        fields(e, at, where,
               {"id", "source", "aten_op", "ir_chain", "fused_from", "transform_history"}, {},
               [&](std::string_view k, const element& v, std::size_t m) {
                   if (k == "id") {
                       if (patterned(v, m, where + ".id", is_decimal_id, "a decimal id string",
                                     h.id) &&
                           h.id != key) {
                           at_.id_mismatch.push_back(
                               {position(m, false),
                                where + " has id '" + h.id + "': it must equal its key"});
                       }
                   } else if (k == "source") {
                       read_source(v, m, where + ".source", h.source);
                   } else if (k == "aten_op") {
                       if (optional_string(v, m, where + ".aten_op", h.aten_op) && h.aten_op &&
                           h.aten_op->empty()) {
                           error(m, false, where + ".aten_op must not be empty");
                       }
                   } else if (k == "ir_chain") {
                       strings(v, m, where + ".ir_chain", false, true, nullptr, "", h.ir_chain);
                   } else if (k == "fused_from") {
                       strings(v, m, where + ".fused_from", true, false, is_decimal_id,
                               "a decimal id", out.fused_ids,
                               &at_.fused_positions[std::string(key)]);
                   } else {
                       read_history(v, m, where, h.transform_history);
                   }
               });
    }

    void read_history(const element& e, std::size_t at, const std::string& where,
                      std::vector<TransformStep>& out) {
        simdjson::dom::array arr;
        if (!array(e, at, where + ".transform_history", arr)) {
            return;
        }
        elements(arr, at, [&](const element& v, std::size_t s_at, std::size_t i) {
            std::string w = where + ".transform_history[" + std::to_string(i) + "]";
            TransformStep step;
            fields(v, s_at, w, {"kind", "pass_name", "reason"}, {},
                   [&](std::string_view k, const element& x, std::size_t m) {
                       if (k == "kind") {
                           patterned(
                               x, m, w + ".kind",
                               [](std::string_view s) {
                                   return s == "rewrite" || s == "fusion" || s == "decomposition" ||
                                          s == "clone" || s == "remap";
                               },
                               "rewrite, fusion, decomposition, clone or remap", step.kind);
                       } else if (k == "pass_name") {
                           nonempty_string(x, m, w + ".pass_name", step.pass_name);
                       } else {
                           optional_string(x, m, w + ".reason", step.reason);
                       }
                   });
            out.push_back(std::move(step));
        });
    }

    void read_identity(std::string_view key, const element& e, std::size_t at, SpyreIdentity& out) {
        std::string where = "kernel identity '" + std::string(key) + "'";
        out.pos = position(at, false);
        fields(e, at, where, {"directHandleIds", "specHandleBindings", "atenOps", "eventNameBase"},
               {}, [&](std::string_view k, const element& v, std::size_t m) {
                   if (k == "directHandleIds") {
                       strings(v, m, where + ".directHandleIds", true, false, is_decimal_id,
                               "a decimal id", out.direct_handle_ids);
                   } else if (k == "specHandleBindings") {
                       read_bindings(v, m, where, out.bindings);
                   } else if (k == "atenOps") {
                       strings(v, m, where + ".atenOps", true, false, nullptr, "", out.aten_ops);
                   } else {
                       patterned(v, m, where + ".eventNameBase", is_event_name_base,
                                 "spyre_kernel_v1_<name>_<event key>", out.event_name_base);
                   }
               });
    }

    void read_bindings(const element& e, std::size_t at, const std::string& where,
                       std::vector<SpyreBinding>& out) {
        simdjson::dom::array arr;
        if (!array(e, at, where + ".specHandleBindings", arr)) {
            return;
        }
        elements(arr, at, [&](const element& v, std::size_t b_at, std::size_t i) {
            std::string w = where + ".specHandleBindings[" + std::to_string(i) + "]";
            SpyreBinding b;
            b.pos = position(b_at, false);
            fields(v, b_at, w, {"specPath", "handleId"}, {},
                   [&](std::string_view k, const element& x, std::size_t m) {
                       if (k == "handleId") {
                           patterned(x, m, w + ".handleId", is_decimal_id, "a decimal id",
                                     b.handle_id);
                           return;
                       }
                       simdjson::dom::array path;
                       if (!array(x, m, w + ".specPath", path)) {
                           return;
                       }
                       if (path.size() == 0) {
                           error(m, false, w + ".specPath must not be empty");
                       }
                       elements(path, m, [&](const element& n, std::size_t n_at, std::size_t) {
                           std::int64_t index = 0;
                           if (integer(n, n_at, w + ".specPath[]", 0, index)) {
                               b.spec_path.push_back(static_cast<std::uint64_t>(index));
                           }
                       });
                   });
            out.push_back(std::move(b));
        });
    }

    void read_occurrence(std::string_view key, const element& e, std::size_t at,
                         SpyreOccurrence& out) {
        std::string where = "kernel occurrence '" + std::string(key) + "'";
        out.pos = position(at, false);
        fields(e, at, where, {"identityKey", "compileId", "compilerKernelName", "registrations"},
               {"selector"}, [&](std::string_view k, const element& v, std::size_t m) {
                   if (k == "identityKey") {
                       patterned(v, m, where + ".identityKey", is_event_key, "an event key",
                                 out.identity_key);
                   } else if (k == "compileId") {
                       patterned(v, m, where + ".compileId", is_sha256_hex, "a SHA-256 hex digest",
                                 out.compile_id);
                   } else if (k == "compilerKernelName") {
                       nonempty_string(v, m, where + ".compilerKernelName", out.kernel_name);
                   } else if (k == "selector") {
                       std::string selector;
                       nonempty_string(v, m, where + ".selector", selector);
                   } else {
                       read_registrations(v, m, where, out);
                   }
               });
    }

    void read_registrations(const element& e, std::size_t at, const std::string& where,
                            SpyreOccurrence& out) {
        simdjson::dom::array arr;
        if (!array(e, at, where + ".registrations", arr)) {
            return;
        }
        std::set<std::pair<std::int64_t, std::string>> seen;
        elements(arr, at, [&](const element& v, std::size_t r_at, std::size_t i) {
            std::string w = where + ".registrations[" + std::to_string(i) + "]";
            std::int64_t ordinal = 0;
            std::string alias;
            fields(v, r_at, w, {"ordinal", "alias"}, {},
                   [&](std::string_view k, const element& x, std::size_t m) {
                       if (k == "ordinal") {
                           integer(x, m, w + ".ordinal", 1, ordinal);
                       } else {
                           patterned(x, m, w + ".alias", is_alias, "<kernel>:<ordinal>", alias);
                       }
                   });
            if (!seen.insert({ordinal, alias}).second) {
                error(r_at, false, w + " repeats an earlier registration");
            }
            at_.registrations.push_back({position(r_at, false), ordinal, alias});
            out.aliases.push_back(alias);
        });
        // The kernel name may be read after the registrations: fixed up in check_meaning.
        at_.registration_owner.resize(at_.registrations.size(), &out);
    }

    void read_name_map(const element& e, std::size_t at, const std::string& where, NameLists& out) {
        map_of(
            e, at, where, [](std::string_view) { return true; }, "", 0,
            [&](std::string_view k, const element& v, std::size_t m) {
                strings(v, m, where + "['" + std::string(k) + "']", true, false, nullptr, "",
                        out[std::string(k)]);
            });
    }

    // The members of a projection that say what made it: source, version, producer, settings.
    void read_projection_header(std::string_view k, const element& v, std::size_t m,
                                const std::string& w) {
        std::string_view s;
        double d = 0;
        std::int64_t n = 0;
        if (k == "source") {
            constant(v, m, w, "\"inductor_provenance_tracking_node_mappings\"",
                     [&](const element& x) {
                         return x.get(s) == simdjson::SUCCESS &&
                                s == "inductor_provenance_tracking_node_mappings";
                     });
        } else if (k == "version") {
            constant(v, m, w, "2.0", [&](const element& x) {
                return (x.get(d) == simdjson::SUCCESS && d == 2.0) ||
                       (x.get(n) == simdjson::SUCCESS && n == 2);
            });
        } else if (k == "producer") {
            fields(v, m, w, {"torchSpyreVersion", "torchVersion"}, {},
                   [&](std::string_view pk, const element& x, std::size_t x_at) {
                       std::string version;
                       nonempty_string(x, x_at, w + "." + std::string(pk), version);
                   });
        } else if (k == "settings") {
            fields(v, m, w, {"provenanceTrackingLevel", "structuredTracing"}, {},
                   [&](std::string_view sk, const element& x, std::size_t x_at) {
                       bool b = false;
                       if (sk == "provenanceTrackingLevel") {
                           integer(x, x_at, w + "." + std::string(sk), 0, n);
                       } else if (x.get(b) != simdjson::SUCCESS) {
                           error(x_at, false, w + ".structuredTracing must be a boolean");
                       }
                   });
        }
    }

    void read_projection(std::string_view key, const element& e, std::size_t at,
                         SpyreProvenance& doc) {
        std::string where = "upstream projection '" + std::string(key) + "'";
        SpyreProjection& out = doc.projections[std::string(key)];
        out.pos = position(at, false);
        out.mappings.path = path_;
        out.mappings.version = 2.0;
        bool has_uncollected = false;
        bool has_failed = false;
        fields(
            e, at, where,
            {"source", "version", "producer", "settings", "kernels", "upstreamJoin", "preToPost",
             "postToPre", "cppCodeToPost", "postToCppCode", "kernelStackTraces"},
            {"uncollectedKernels", "upstreamProjectionFailed"},
            [&](std::string_view k, const element& v, std::size_t m) {
                std::string w = where + "." + std::string(k);
                if (k == "source" || k == "version" || k == "producer" || k == "settings") {
                    read_projection_header(k, v, m, w);
                } else if (k == "kernels") {
                    read_projection_kernels(v, m, w, out);
                } else if (k == "uncollectedKernels") {
                    has_uncollected = true;
                    strings(v, m, w, true, true, nullptr, "", out.uncollected);
                } else if (k == "upstreamProjectionFailed") {
                    has_failed = true;
                    if (v.get(out.failed) != simdjson::SUCCESS) {
                        error(m, false, w + " must be a boolean");
                    }
                } else if (k == "upstreamJoin") {
                    patterned(
                        v, m, w,
                        [](std::string_view j) {
                            return j == "ok" || j == "partial" ||
                                   j == "unavailable-provenance-level-0" ||
                                   j == "unavailable-cache-replay";
                        },
                        "ok, partial, unavailable-provenance-level-0 or unavailable-cache-replay",
                        out.upstream_join);
                } else if (k == "preToPost") {
                    read_name_map(v, m, w, out.mappings.pre_to_post);
                } else if (k == "postToPre") {
                    read_name_map(v, m, w, out.mappings.post_to_pre);
                } else if (k == "cppCodeToPost") {
                    read_name_map(v, m, w, out.mappings.code_to_post);
                } else if (k == "postToCppCode") {
                    read_name_map(v, m, w, out.mappings.post_to_code);
                } else {
                    read_stack_traces(v, m, w, out.mappings.kernel_stack_traces);
                }
            });
        // Schema v1 requires both members; its early draft has neither.
        if (has_uncollected != has_failed) {
            error(at, false,
                  where + " has " +
                      (has_uncollected
                           ? "'uncollectedKernels' without 'upstreamProjectionFailed'"
                           : "'upstreamProjectionFailed' without 'uncollectedKernels'"));
        }
        if (has_uncollected) {
            doc.early_draft = false;
        }
        at_.draft_shapes.insert(has_uncollected);
        if (at_.draft_shapes.size() > 1) {
            error(at, false,
                  where + ": some projections have 'uncollectedKernels' and "
                          "'upstreamProjectionFailed' (schema v1) and some do not (its early "
                          "draft)");
        }
    }

    void read_projection_kernels(const element& e, std::size_t at, const std::string& where,
                                 SpyreProjection& out) {
        simdjson::dom::array arr;
        if (!array(e, at, where, arr)) {
            return;
        }
        if (arr.size() == 0) {
            error(at, false, where + " must not be empty");
        }
        elements(arr, at, [&](const element& v, std::size_t k_at, std::size_t i) {
            std::string w = where + "[" + std::to_string(i) + "]";
            std::pair<std::string, std::string> kernel;
            fields(v, k_at, w, {"compilerKernelName", "identityKey"}, {},
                   [&](std::string_view k, const element& x, std::size_t m) {
                       if (k == "compilerKernelName") {
                           nonempty_string(x, m, w + ".compilerKernelName", kernel.first);
                       } else {
                           patterned(x, m, w + ".identityKey", is_event_key, "an event key",
                                     kernel.second);
                       }
                   });
            out.kernel_pos.push_back(position(k_at, false));
            out.kernels.push_back(std::move(kernel));
        });
    }

    void read_stack_traces(const element& e, std::size_t at, const std::string& where,
                           NameLists& out) {
        map_of(
            e, at, where, [](std::string_view) { return true; }, "", 0,
            [&](std::string_view alias, const element& v, std::size_t m) {
                std::string w = where + "['" + std::string(alias) + "']";
                fields(v, m, w, {"stackTraces", "postGradNodes", "preGradNodes"}, {},
                       [&](std::string_view k, const element& x, std::size_t x_at) {
                           std::vector<std::string> list;
                           strings(x, x_at, w + "." + std::string(k), true, false, nullptr, "",
                                   list);
                           if (k == "stackTraces") {
                               out[std::string(alias)] = std::move(list);
                           }
                       });
            });
    }

    void check_meaning(SpyreProvenance& doc) {
        check_spyre_meaning(doc, at_, [this](TextPosition pos, std::string message) {
            semantic(pos, std::move(message));
        });
    }

    SpyrePositions at_;
};

SpyreReadResult parse_padded(const std::string& path, std::string_view bytes) {
    return detail::read_located<SpyreParser>(path, bytes, &SpyreReadResult::doc);
}

} // namespace

SpyreReadResult detail::parse_spyre_padded(const std::string& path, std::string_view bytes) {
    return parse_padded(path, bytes);
}

SpyreReadResult parse_spyre_provenance(const std::string& path, std::string_view bytes) {
    simdjson::padded_string padded(bytes);
    return parse_padded(path, std::string_view(padded.data(), padded.size()));
}

SpyreReadResult read_spyre_provenance(const std::string& path, std::uint64_t max_size) {
    SpyreReadResult result;
    auto content = detail::load_padded(path, "spyre_provenance.json", max_size, result.problems);
    if (!content) {
        return result;
    }
    return parse_padded(path, std::string_view(content->data(), content->size()));
}

DebugHandle expand_handle(const SpyreProvenance& doc, const std::string& id) {
    const SpyreHandle& h = doc.handles.at(id);
    DebugHandle out = h.handle;
    out.fused_from.clear();
    for (const auto& child : h.fused_ids) {
        out.fused_from.push_back(expand_handle(doc, child));
    }
    return out;
}

OriginsMap spyre_origins(const SpyreProvenance& doc) {
    OriginsMap map;
    map.path = doc.path;
    std::set<std::pair<std::string, std::string>> seen; // (kernel name, identity)
    for (const auto& [key, occ] : doc.occurrences) {
        if (!seen.insert({occ.kernel_name, occ.identity_key}).second) {
            continue; // the same bundle in another compile: the same handles
        }
        const SpyreIdentity& identity = doc.identities.at(occ.identity_key);
        OriginsKernel kernel;
        kernel.name = occ.kernel_name;
        kernel.identity = occ.identity_key;
        kernel.pos = occ.pos;
        for (const auto& b : identity.bindings) {
            OriginsOp op;
            op.spec_path = b.spec_path;
            op.pos = b.pos;
            op.handle = std::make_shared<const DebugHandle>(expand_handle(doc, b.handle_id));
            op.buffer = op.handle->ir_chain.empty() ? std::string() : op.handle->ir_chain.back();
            kernel.ops.push_back(std::move(op));
        }
        map.kernels.push_back(std::move(kernel));
    }
    return map;
}

std::vector<UpstreamMappings> spyre_upstream(const SpyreProvenance& doc) {
    std::vector<UpstreamMappings> out;
    for (const auto& [compile, p] : doc.projections) {
        out.push_back(p.mappings);
    }
    return out;
}

} // namespace sdscprov
