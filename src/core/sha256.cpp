#include "core/sha256.hpp"

#include <openssl/evp.h>
#include <stdexcept>

namespace sdscprov {

namespace {

// One digest context per thread, and SHA-256 fetched once: EVP_Digest allocates a context and looks
// the algorithm up again on every call, which costs more than hashing a handle's text.
struct Sha256 {
    EVP_MD* md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    Sha256() = default;
    Sha256(const Sha256&) = delete;
    Sha256& operator=(const Sha256&) = delete;
    ~Sha256() {
        EVP_MD_CTX_free(ctx);
        EVP_MD_free(md);
    }
};

} // namespace

Sha256Digest sha256(std::string_view text) {
    thread_local Sha256 sha;
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int size = 0;
    if (sha.md == nullptr || sha.ctx == nullptr ||
        EVP_DigestInit_ex2(sha.ctx, sha.md, nullptr) != 1 ||
        EVP_DigestUpdate(sha.ctx, text.data(), text.size()) != 1 ||
        EVP_DigestFinal_ex(sha.ctx, digest.data(), &size) != 1 || size != 32) {
        throw std::runtime_error("SHA-256 via OpenSSL EVP failed");
    }
    Sha256Digest out{};
    for (std::size_t i = 0; i < out.size(); ++i) {
        out[i] = digest[i];
    }
    return out;
}

std::string sha256_hex(std::string_view text) {
    static constexpr char hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(64);
    for (unsigned char byte : sha256(text)) {
        out += hex[byte >> 4];
        out += hex[byte & 15];
    }
    return out;
}

} // namespace sdscprov
