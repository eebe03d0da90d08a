#include "sdsc/provenance_tape.hpp"

#include "sdscprov/sdsc/scan.hpp"

#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

namespace sdscprov {

using simdjson::dom::element_type;

namespace {

struct Candidate {
    std::string_view name;
    ProvenanceMember member;
};

// The member among the candidates (of one length) that `key` names, or -1.
template <class... Candidates>
[[gnu::always_inline]] inline int member_among(std::string_view key, Candidates... candidates) {
    int found = -1;
    static_cast<void>(
        ((key == candidates.name ? (found = static_cast<int>(candidates.member), true) : false) ||
         ...));
    return found;
}

int provenance_member_of(std::string_view key) {
    using M = ProvenanceMember;
    // Switch on the length first: almost every key in an SDSC file is rejected by it.
    switch (key.size()) {
    case 7:
        return member_among(key, Candidate{"origins", M::origins});
    case 9:
        return member_among(key, Candidate{"from_node", M::from_node},
                            Candidate{"traceback", M::traceback});
    case 10:
        return member_among(key, Candidate{"provenance", M::provenance});
    case 11:
        return member_among(key, Candidate{"stack_trace", M::stack_trace},
                            Candidate{"origin_node", M::origin_node});
    case 13:
        return member_among(key, Candidate{"original_aten", M::original_aten},
                            Candidate{"debug_handle_", M::debug_handle});
    default:
        return -1;
    }
}

// simdjson's tape of a parsed document and its string buffer, read word by word.
struct Tape {
    const std::uint64_t* words;
    const std::uint8_t* strings;

    char type_of(std::size_t i) const { return static_cast<char>(words[i] >> 56); }
    std::uint64_t payload(std::size_t i) const { return words[i] & 0x00FFFFFFFFFFFFFFULL; }
    std::string_view string_at(std::size_t i) const {
        const std::uint8_t* p = strings + payload(i);
        std::uint32_t len = 0;
        std::memcpy(&len, p, sizeof len);
        return std::string_view(reinterpret_cast<const char*>(p + sizeof len), len);
    }
    bool is_number(std::size_t i) const {
        char t = type_of(i);
        return t == 'l' || t == 'u' || t == 'd';
    }
    bool populated(std::size_t i) const {
        switch (type_of(i)) {
        case 'n':
            return false;
        case '"':
            return !string_at(i).empty();
        case '{':
        case '[':
            return (payload(i) & 0xFFFFFFFFULL) != i + 2; // one past the matching close
        default:
            return true; // numbers and booleans, 0 and false included, are content
        }
    }

    // One past the used part of string_buf (the buffer is reused and holds older parses' strings
    // beyond it), 0 when the document has no string; `end` is the closing root word. The last
    // string on the tape bounds it. It is found walking back from the end: numbers take two
    // words, the second raw bits that may look like any type, but always right after their type
    // word; a string word right after a number's type word is therefore ambiguous, and only then
    // the tape is walked forward from the start.
    std::size_t strings_end(std::size_t end) const {
        std::size_t last_string = end;
        bool ambiguous = false;
        for (std::size_t i = end; i-- > 1;) {
            if (type_of(i) == '"') {
                ambiguous = i > 1 && is_number(i - 1);
                last_string = i;
                break;
            }
        }
        if (ambiguous) {
            last_string = end;
            for (std::size_t i = 1; i < end; i += is_number(i) ? 2 : 1) {
                if (type_of(i) == '"') {
                    last_string = i;
                }
            }
        }
        if (last_string == end) {
            return 0;
        }
        return payload(last_string) + sizeof(std::uint32_t) + string_at(last_string).size() + 1;
    }

    // Counts the strings of string_buf (up to `strings_end`) named debug_handle_ and those named
    // as another provenance member, stopping at the first of the others.
    void count_names(std::size_t strings_end, std::size_t& handle_names,
                     std::size_t& other_names) const {
        for (std::size_t at = 0; at < strings_end && other_names == 0;) {
            std::uint32_t len = 0;
            std::memcpy(&len, strings + at, sizeof len);
            // The names' lengths (7, 9, 10, 11, 13) as a bit mask, then their first letters.
            const char first = static_cast<char>(strings[at + sizeof len]);
            if (len < 14 && ((0x2E80U >> len) & 1U) != 0 &&
                (first == 'o' || first == 'f' || first == 't' || first == 'p' || first == 's' ||
                 first == 'd')) {
                int m = provenance_member_of(std::string_view(
                    reinterpret_cast<const char*>(strings + at + sizeof len), len));
                handle_names += m == static_cast<int>(ProvenanceMember::debug_handle) ? 1 : 0;
                other_names +=
                    m >= 0 && m != static_cast<int>(ProvenanceMember::debug_handle) ? 1 : 0;
            }
            at += sizeof len + len + 1;
        }
    }

    // The structural pass: the provenance members populated at any depth, as bits, and in
    // `handle_keys` how many keys are named debug_handle_.
    std::uint8_t members_populated(std::size_t end, std::size_t& handle_keys) const {
        // Per open container: is it an object, and is the next string in it a key?
        std::vector<std::pair<bool, bool>> open;
        open.reserve(32);
        std::uint8_t bits = 0;
        for (std::size_t i = 1; i < end;) {
            char type = type_of(i);
            if (type == '}' || type == ']') {
                open.pop_back();
                if (!open.empty() && open.back().first) {
                    open.back().second = true;
                }
                ++i;
                continue;
            }
            if (!open.empty() && open.back().first && open.back().second) {
                int m = provenance_member_of(string_at(i)); // a key: always a string
                handle_keys += m == static_cast<int>(ProvenanceMember::debug_handle) ? 1 : 0;
                if (m >= 0 && populated(i + 1)) {
                    bits = static_cast<std::uint8_t>(bits | (1U << m));
                }
                open.back().second = false;
                ++i;
                continue;
            }
            if (type == '{' || type == '[') {
                open.emplace_back(type == '{', true);
                ++i;
                continue;
            }
            i += (type == 'l' || type == 'u' || type == 'd') ? 2 : 1;
            if (!open.empty() && open.back().first) {
                open.back().second = true;
            }
        }
        return bits;
    }
};

} // namespace

// Populated: not null, not an empty string, array or object (0 and false count).
bool is_populated(const simdjson::dom::element& e) {
    switch (e.type()) {
    case element_type::NULL_VALUE:
        return false;
    case element_type::STRING:
        return e.get_string_length().value_unsafe() != 0;
    case element_type::ARRAY: {
        simdjson::dom::array a;
        return e.get(a) == simdjson::SUCCESS && a.begin() != a.end();
    }
    case element_type::OBJECT: {
        simdjson::dom::object o;
        return e.get(o) == simdjson::SUCCESS && o.begin() != o.end();
    }
    default:
        return true;
    }
}

// The coverage column asks about every member at any depth. A recursive walk over the DOM would
// cost a good part of the parse itself; a linear pass over simdjson's tape (layout: simdjson's
// docs/tape.md, pinned by the Debian package at 3.0.1) costs a few instructions per value. Its
// results are checked against a DOM walk in tests/unit/sdsc/test_scan.cpp, so a change of the
// tape layout fails the tests, not the reports.
//
// `op_handles` is how many debug_handle_ members the op object itself has, `op_handle_populated`
// whether its value is populated: late-2026 files all carry that one member, and when it is the
// only name in the file the answer is known without the structural pass. `handle_keys` is set to
// how many members named debug_handle_ the document has at any depth: more than `op_handles`
// means some are nested below the op's members.
std::uint8_t provenance_of_tape(const simdjson::dom::document& doc, std::size_t op_handles,
                                bool op_handle_populated, std::size_t& handle_keys) {
    handle_keys = 0;
    const Tape tape{doc.tape.get(), doc.string_buf.get()};
    const std::size_t end = static_cast<std::size_t>(tape.payload(0)); // the closing root word
    // Most SDSC files hold none of the names at all. simdjson appends every string, keys and
    // values, to string_buf in document order as [u32 length][bytes][NUL]; one pass over that
    // buffer rules the names out without following the structure.
    const std::size_t strings_end = tape.strings_end(end);
    if (strings_end == 0) {
        return 0; // no string at all
    }
    std::size_t handle_names = 0;
    std::size_t other_names = 0;
    tape.count_names(strings_end, handle_names, other_names);
    if (other_names == 0 && handle_names == op_handles && op_handles <= 1) {
        handle_keys = op_handles; // every string of that name is one of the op's keys
        return op_handle_populated ? static_cast<std::uint8_t>(1U << static_cast<unsigned>(
                                                                   ProvenanceMember::debug_handle))
                                   : 0;
    }
    return tape.members_populated(end, handle_keys);
}

} // namespace sdscprov
