// SHA-256 through OpenSSL's EVP interface, for the handle ids and the pairing digest.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace sdscprov {

using Sha256Digest = std::array<unsigned char, 32>;

// Throws std::runtime_error when OpenSSL fails: that happens only on allocation failure or a
// broken installation, never because of the text.
Sha256Digest sha256(std::string_view text);

// The digest as 64 lowercase hex digits.
std::string sha256_hex(std::string_view text);

} // namespace sdscprov
