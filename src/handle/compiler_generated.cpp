#include "sdscprov/handle/compiler_generated.hpp"

#include <algorithm>
#include <cctype>

namespace sdscprov {

namespace {

bool contains_ignoring_case(std::string_view text, std::string_view part) {
    auto lower = [](char c) {
        return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    };
    auto it = std::search(text.begin(), text.end(), part.begin(), part.end(),
                          [&](char a, char b) { return lower(a) == lower(b); });
    return it != text.end();
}

} // namespace

bool is_sourceless_creation_pass(std::string_view pass_name) {
    return std::any_of(sourceless_creation_passes.begin(), sourceless_creation_passes.end(),
                       [&](const SourcelessPass& p) { return p.pass_name == pass_name; });
}

bool is_sourceless_opfunc(std::string_view opfunc) {
    return std::any_of(sourceless_opfunc_families.begin(), sourceless_opfunc_families.end(),
                       [&](std::string_view family) {
                           return contains_ignoring_case(opfunc, family);
                       });
}

bool is_sourceless_handle(const DebugHandle& handle) {
    if (handle.source) {
        return false;
    }
    return std::any_of(handle.transform_history.begin(), handle.transform_history.end(),
                       [](const TransformStep& s) { return is_sourceless_creation_pass(s.pass_name); });
}

GeneratedForm compiler_generated(std::string_view opfunc, const DebugHandle* handle) {
    if (handle != nullptr) {
        return is_sourceless_handle(*handle) ? GeneratedForm::sourceless_handle
                                             : GeneratedForm::none;
    }
    return is_sourceless_opfunc(opfunc) ? GeneratedForm::layout_opfunc : GeneratedForm::none;
}

} // namespace sdscprov
