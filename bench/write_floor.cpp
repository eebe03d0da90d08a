// The annotate benchmark's floor: for each listed file, read it, insert a fixed member after its
// first '{', write the result to a temporary file beside it and rename that over it (what any
// safe in-place rewrite costs, with no parse, check or join). No sync. Compared with annotate
// and the Python baseline, it shows how much of their time the file system itself takes.
// Usage: sdscprov-bench-write-floor -j N FILE_LIST   (FILE_LIST: one path per line)
#include <atomic>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

bool read_all(const std::string& path, std::string& out) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return false;
    }
    out.clear();
    char chunk[65536];
    for (;;) {
        ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n <= 0) {
            ::close(fd);
            return n == 0;
        }
        out.append(chunk, static_cast<std::size_t>(n));
    }
}

bool rewrite(const std::string& path, const std::string& bytes, unsigned long n) {
    std::string temp = path + ".floor-" + std::to_string(n) + ".tmp";
    int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        return false;
    }
    bool ok = ::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
    ok = ::close(fd) == 0 && ok;
    return ok && ::rename(temp.c_str(), path.c_str()) == 0;
}

} // namespace

int main(int argc, char** argv) {
    unsigned jobs = 1;
    const char* list = nullptr;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "-j") == 0 && i + 1 < argc) {
            jobs = static_cast<unsigned>(std::stoul(argv[++i]));
        } else {
            list = argv[i];
        }
    }
    if (list == nullptr || jobs == 0) {
        std::cerr << "usage: sdscprov-bench-write-floor -j N FILE_LIST\n";
        return 2;
    }
    std::vector<std::string> paths;
    std::ifstream in(list);
    for (std::string line; std::getline(in, line);) {
        if (!line.empty()) {
            paths.push_back(line);
        }
    }
    // About the size of a derived handle as annotate writes it.
    const std::string member = "\n    \"debug_handle_\": {" + std::string(900, ' ') + "},";
    std::atomic<std::size_t> next{0};
    std::atomic<std::size_t> failures{0};
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < jobs; ++t) {
        threads.emplace_back([&] {
            std::string bytes;
            for (std::size_t i; (i = next.fetch_add(1)) < paths.size();) {
                if (!read_all(paths[i], bytes)) {
                    failures.fetch_add(1);
                    continue;
                }
                auto open = bytes.find('{', bytes.find('{') + 1); // the op object's
                if (open != std::string::npos) {
                    bytes.insert(open + 1, member);
                }
                if (!rewrite(paths[i], bytes, i)) {
                    failures.fetch_add(1);
                }
            }
        });
    }
    for (auto& t : threads) {
        t.join();
    }
    std::printf("%zu files, %zu failures\n", paths.size(), failures.load());
    return failures.load() == 0 ? 0 : 1;
}
