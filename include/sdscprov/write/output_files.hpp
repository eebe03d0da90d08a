// New files a command writes into a directory of the user's (profile --out-dir: one CSV file per
// ranking), written the way every output of the tool is: each through a temporary beside it
// (replace.hpp: ours by its name, locked, removed on a signal), renamed into place only once every
// one of them is written, so that a failure leaves no file half-written and none replaced.
#pragma once

#include "sdscprov/core/problem.hpp"

#include <string>
#include <utility>
#include <vector>

namespace sdscprov {

struct OutputFile {
    std::string name;  // a plain file name inside the directory
    std::string bytes; // its whole content
};

// Writes `files` into `dir` (made when it does not exist; its parent must). A name that is a
// symbolic link, not a regular file, or one of the files `inputs` names (the run's inputs: a
// trace named like an output is never replaced) is refused; an existing file keeps its mode,
// owner and attributes (give_metadata_of). Empty on success, else the problems (write-failed or
// bad-argument, at the path concerned), and then no file was renamed into place unless the
// failure was in a rename itself.
std::vector<Problem> write_output_files(const std::string& dir, const std::vector<OutputFile>& files,
                                        const std::vector<std::string>& inputs = {});

} // namespace sdscprov
