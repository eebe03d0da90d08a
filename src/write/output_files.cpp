#include "sdscprov/write/output_files.hpp"

#include "sdscprov/write/fd_output.hpp"
#include "sdscprov/write/replace.hpp"

#include <cerrno>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

namespace sdscprov {

namespace {

// Writes all of `bytes` to `fd`, then fsyncs it; errno's text when it fails.
std::string write_synced(int fd, const std::string& bytes) {
    if (const int failed = write_all(fd, bytes); failed != 0) {
        return write_error_text(failed);
    }
    if (::fsync(fd) != 0) {
        return write_error_text(errno);
    }
    return {};
}

// The directory, made when absent; a problem when it is not one.
std::optional<Problem> directory_of(const std::string& dir) {
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0) {
        if (errno != ENOENT || ::mkdir(dir.c_str(), 0777) != 0) {
            return make_problem(dir, {}, ProblemCode::write_failed,
                                "cannot make the directory: " + write_error_text(errno));
        }
        return std::nullopt;
    }
    if (!S_ISDIR(st.st_mode)) {
        return make_problem(dir, {}, ProblemCode::bad_argument, "exists and is not a directory");
    }
    return std::nullopt;
}

// Whether the file `st` describes is one of `inputs`.
bool is_input(const struct stat& st, const std::vector<std::string>& inputs) {
    for (const auto& input : inputs) {
        struct stat in {};
        if (::stat(input.c_str(), &in) == 0 && in.st_dev == st.st_dev && in.st_ino == st.st_ino) {
            return true;
        }
    }
    return false;
}

// A temporary holding `bytes` beside `path`, or the problem that stopped it.
std::optional<PendingReplace> written_temp(const std::string& path, const std::string& bytes,
                                           const std::vector<std::string>& inputs,
                                           std::vector<Problem>& problems) {
    struct stat st {};
    const bool exists = ::lstat(path.c_str(), &st) == 0;
    if (exists && S_ISLNK(st.st_mode)) {
        problems.push_back(make_problem(path, {}, ProblemCode::bad_argument,
                                        "is a symbolic link, never replaced"));
        return std::nullopt;
    }
    if (exists && !S_ISREG(st.st_mode)) {
        problems.push_back(
            make_problem(path, {}, ProblemCode::bad_argument, "exists and is not a regular file"));
        return std::nullopt;
    }
    if (exists && is_input(st, inputs)) {
        problems.push_back(make_problem(path, {}, ProblemCode::bad_argument,
                                        "is an input of this run, never replaced"));
        return std::nullopt;
    }
    Problem problem;
    auto temp = create_temp_beside(path, problem, 0666);
    if (!temp) {
        problems.push_back(std::move(problem));
        return std::nullopt;
    }
    std::string error = write_synced(temp->fd(), bytes);
    if (error.empty() && exists) {
        error = give_metadata_of(temp->fd(), path, st);
    }
    if (!error.empty()) {
        problems.push_back(
            make_problem(path, {}, ProblemCode::write_failed, error + ": not written"));
        return std::nullopt; // the temporary goes with it
    }
    return temp;
}

} // namespace

std::vector<Problem> write_output_files(const std::string& dir,
                                        const std::vector<OutputFile>& files,
                                        const std::vector<std::string>& inputs) {
    std::vector<Problem> problems;
    if (auto refused = directory_of(dir)) {
        problems.push_back(std::move(*refused));
        return problems;
    }
    std::vector<PendingReplace> temps;
    for (const auto& f : files) {
        const std::string path = dir + (dir.ends_with('/') ? "" : "/") + f.name;
        if (auto temp = written_temp(path, f.bytes, inputs, problems)) {
            temps.push_back(std::move(*temp));
        }
    }
    if (!problems.empty()) {
        return problems; // the temporaries are removed as they go
    }
    for (auto& t : temps) {
        if (::rename(t.temp.c_str(), t.path.c_str()) != 0) {
            problems.push_back(
                make_problem(t.path, {}, ProblemCode::write_failed,
                             "cannot rename the new file into place: " + write_error_text(errno)));
        } else {
            t.done = true;
        }
        t.release();
    }
    return problems;
}

} // namespace sdscprov
