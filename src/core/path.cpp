#include "sdscprov/core/path.hpp"

namespace sdscprov {

std::string_view base_name(std::string_view path) {
    while (path.size() > 1 && path.back() == '/') {
        path.remove_suffix(1);
    }
    return file_name_of(path);
}

std::string_view file_name_of(std::string_view path) {
    auto slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string parent_dir(std::string_view path) {
    auto slash = path.rfind('/');
    if (slash == std::string_view::npos) {
        return ".";
    }
    return slash == 0 ? std::string("/") : std::string(path.substr(0, slash));
}

} // namespace sdscprov
