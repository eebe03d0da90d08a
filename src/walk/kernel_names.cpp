#include "walk/kernel_names.hpp"

#include <algorithm>
#include <cstdint>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace sdscprov {

namespace {

bool is_ident(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_lower_hex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

} // namespace

std::optional<std::string> kernel_name_from_dir(std::string_view name) {
    constexpr std::size_t random_len = 8;
    if (name.size() > 9 && std::all_of(name.begin(), name.begin() + 8, is_lower_hex) &&
        name[8] == '_' && name.substr(9).starts_with("sdsc_")) {
        name.remove_prefix(9);
    }
    if (!name.starts_with("sdsc_") || name.size() < 5 + 1 + 1 + random_len) {
        return std::nullopt;
    }
    std::string_view random = name.substr(name.size() - random_len);
    std::string_view kernel = name.substr(0, name.size() - random_len - 1);
    if (name[name.size() - random_len - 1] != '_' ||
        !std::all_of(random.begin(), random.end(), is_ident) ||
        !std::all_of(kernel.begin(), kernel.end(), is_ident) || kernel.size() <= 5) {
        return std::nullopt;
    }
    return std::string(kernel);
}

std::optional<std::string_view> dir_prefix_of(std::string_view name) {
    if (name.size() > 9 && std::all_of(name.begin(), name.begin() + 8, is_lower_hex) &&
        name[8] == '_' && kernel_name_from_dir(name)) {
        return name.substr(0, 8);
    }
    return std::nullopt;
}

std::vector<std::string> kernel_names_of_list(std::string_view bytes) {
    std::vector<std::string> names;
    while (!bytes.empty()) {
        auto end = bytes.find('\n');
        std::string_view line = bytes.substr(0, end);
        bytes.remove_prefix(end == std::string_view::npos ? bytes.size() : end + 1);
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) {
            line.remove_suffix(1);
        }
        while (!line.empty() && line.front() == ' ') {
            line.remove_prefix(1);
        }
        if (line.empty() || !std::all_of(line.begin(), line.end(), is_ident) ||
            std::find(names.begin(), names.end(), line) != names.end()) {
            continue;
        }
        names.emplace_back(line);
    }
    return names;
}

void read_kernel_name_list(int dfd, KernelDir& kd) {
    constexpr std::uint64_t max_bytes = std::uint64_t{1} << 20;
    int raw = ::openat(dfd, std::string(kernel_name_list).c_str(),
                       O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (raw < 0) {
        return;
    }
    DirectoryFd file(raw); // closes it
    struct stat st {};
    if (::fstat(raw, &st) != 0 || !S_ISREG(st.st_mode) ||
        static_cast<std::uint64_t>(st.st_size) > max_bytes) {
        return;
    }
    std::string bytes(static_cast<std::size_t>(st.st_size), '\0');
    std::size_t got = 0;
    while (got < bytes.size()) {
        ssize_t n = ::read(raw, bytes.data() + got, bytes.size() - got);
        if (n <= 0) {
            break;
        }
        got += static_cast<std::size_t>(n);
    }
    bytes.resize(got);
    auto names = kernel_names_of_list(bytes);
    if (!names.empty()) {
        kd.kernel = names.front();
        kd.other_kernels.assign(names.begin() + 1, names.end());
    }
}

} // namespace sdscprov
