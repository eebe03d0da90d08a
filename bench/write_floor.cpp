// The annotate benchmark's floor: for each listed file, read it, insert a fixed member after its
// first '{', write the result to a temporary file beside it and rename that over it (what any
// safe in-place rewrite costs, with no parse, check or join). No sync. Compared with annotate
// and the Python baseline, it shows how much of their time the file system itself takes.
// Usage: sdscprov-bench-write-floor -j N [--replace HOW] FILE_LIST   (one path per line)
// HOW is how the temporary takes the file's place (each keeps every file old or new, except
// `none`): rename (the default, as annotate), exchange (renameat2 RENAME_EXCHANGE, then the
// temporary, now holding the old bytes, unlinked), synced (a thread's temporaries of 64 files
// written, one syncfs, then their renames: annotate's batch durability), none (the temporary is
// left as a new file beside the original and removed later, untimed: what creating a file costs,
// as cp -r does).
#include <atomic>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <iostream>
#include <stdio.h>
#include <string>
#include <thread>
#include <unistd.h>
#include <utility>
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

enum class Replace { rename, exchange, synced, none };

bool write_temp(const std::string& temp, const std::string& bytes) {
    int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        return false;
    }
    bool ok = ::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
    return ::close(fd) == 0 && ok;
}

bool replace(const std::string& temp, const std::string& path, Replace how) {
    switch (how) {
    case Replace::exchange:
        return ::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE) == 0 &&
               ::unlink(temp.c_str()) == 0;
    case Replace::none:
        return true;
    case Replace::rename:
    case Replace::synced:
        break;
    }
    return ::rename(temp.c_str(), path.c_str()) == 0;
}

} // namespace

int main(int argc, char** argv) {
    unsigned jobs = 1;
    const char* list = nullptr;
    Replace how = Replace::rename;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "-j") == 0 && i + 1 < argc) {
            jobs = static_cast<unsigned>(std::stoul(argv[++i]));
        } else if (std::strcmp(argv[i], "--replace") == 0 && i + 1 < argc) {
            std::string h = argv[++i];
            how = h == "exchange" ? Replace::exchange
                  : h == "synced" ? Replace::synced
                  : h == "none"   ? Replace::none
                                  : Replace::rename;
        } else {
            list = argv[i];
        }
    }
    if (list == nullptr || jobs == 0) {
        std::cerr
            << "usage: sdscprov-bench-write-floor -j N [--replace rename|exchange|synced|none] "
               "FILE_LIST\n";
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
            std::vector<std::pair<std::string, std::string>> batch; // temporary, file
            auto flush = [&] {
                if (how == Replace::synced && !batch.empty()) {
                    int fd = ::open(batch.front().first.c_str(), O_RDONLY | O_CLOEXEC);
                    if (fd < 0 || ::syncfs(fd) != 0) {
                        failures.fetch_add(batch.size());
                    }
                    if (fd >= 0) {
                        ::close(fd);
                    }
                }
                for (const auto& [temp, path] : batch) {
                    if (!replace(temp, path, how)) {
                        failures.fetch_add(1);
                    }
                }
                batch.clear();
            };
            for (std::size_t i; (i = next.fetch_add(1)) < paths.size();) {
                if (!read_all(paths[i], bytes)) {
                    failures.fetch_add(1);
                    continue;
                }
                auto open = bytes.find('{', bytes.find('{') + 1); // the op object's
                if (open != std::string::npos) {
                    bytes.insert(open + 1, member);
                }
                std::string temp = paths[i] + ".floor-" + std::to_string(i) + ".tmp";
                if (!write_temp(temp, bytes)) {
                    failures.fetch_add(1);
                    continue;
                }
                batch.emplace_back(std::move(temp), paths[i]);
                if (how != Replace::synced || batch.size() == 64) {
                    flush();
                }
            }
            flush();
        });
    }
    for (auto& t : threads) {
        t.join();
    }
    std::printf("%zu files, %zu failures\n", paths.size(), failures.load());
    return failures.load() == 0 ? 0 : 1;
}
