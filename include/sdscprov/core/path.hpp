// Path text, split without touching the file system: the name and the parent of a path as the
// walk and the writers spell it (with '/', never normalised).
#pragma once

#include <string>
#include <string_view>

namespace sdscprov {

// The last component, trailing slashes ignored ("a/b/" is "b", "/" gives ""): the name of a
// directory as a user may type it.
std::string_view base_name(std::string_view path);

// What follows the last slash, as is ("a/b/" gives ""): the name of a file whose path the walk
// built. A view into `path`, so the name of a NUL-terminated path is NUL-terminated too.
std::string_view file_name_of(std::string_view path);

// Everything before the last slash: "." when there is none, "/" for a name at the root.
std::string parent_dir(std::string_view path);

} // namespace sdscprov
