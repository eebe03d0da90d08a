#include "json_split.hpp"

#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace sdscprov::json_split {

namespace {

struct BlockMasks {
    std::uint64_t quote = 0;
    std::uint64_t backslash = 0;
    std::uint64_t open = 0;  // '{' or '['
    std::uint64_t close = 0; // '}' or ']'
};

// '{' (0x7B) and '[' (0x5B) differ only in bit 0x20, as do '}' (0x7D) and ']' (0x5D): c | 0x20
// tells each pair with one comparison.
BlockMasks classify(const char* p) {
    BlockMasks m;
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i open = _mm_set1_epi8(0x7B);
    const __m128i close = _mm_set1_epi8(0x7D);
    const __m128i case_bit = _mm_set1_epi8(0x20);
    for (int i = 0; i < 4; ++i) {
        __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i));
        __m128i folded = _mm_or_si128(v, case_bit);
        auto bits = [](__m128i eq) {
            return static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm_movemask_epi8(eq)));
        };
        unsigned shift = 16U * static_cast<unsigned>(i);
        m.quote |= bits(_mm_cmpeq_epi8(v, quote)) << shift;
        m.backslash |= bits(_mm_cmpeq_epi8(v, backslash)) << shift;
        m.open |= bits(_mm_cmpeq_epi8(folded, open)) << shift;
        m.close |= bits(_mm_cmpeq_epi8(folded, close)) << shift;
    }
#else
    for (unsigned i = 0; i < block; ++i) {
        auto c = static_cast<unsigned char>(p[i]);
        std::uint64_t bit = std::uint64_t{1} << i;
        m.quote |= c == '"' ? bit : 0;
        m.backslash |= c == '\\' ? bit : 0;
        m.open |= (c | 0x20U) == 0x7BU ? bit : 0;
        m.close |= (c | 0x20U) == 0x7DU ? bit : 0;
    }
#endif
    return m;
}

// The characters a backslash escapes; `carry` is 1 when the previous block ended with an
// unescaped backslash and says the same of this block on return. Backslashes are rare in traces:
// each is looked at on its own.
std::uint64_t escaped_by(std::uint64_t backslash, std::uint64_t& carry) {
    if (backslash == 0 && carry == 0) {
        return 0;
    }
    std::uint64_t escaped = 0;
    if (carry != 0) {
        escaped = 1;
        backslash &= ~std::uint64_t{1}; // an escaped backslash escapes nothing
    }
    carry = 0;
    while (backslash != 0) {
        int i = __builtin_ctzll(backslash);
        if (i == 63) {
            carry = 1;
            break;
        }
        std::uint64_t next = std::uint64_t{1} << (i + 1);
        escaped |= next;
        backslash &= ~next;
        backslash &= backslash - 1;
    }
    return escaped;
}

// Bit i: the parity of the set bits at 0..i.
std::uint64_t prefix_xor(std::uint64_t x) {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

} // namespace

std::optional<std::uint64_t> Splitter::scan(const char* p, std::size_t blocks, std::uint64_t base,
                                            std::vector<std::uint64_t>& ends) {
    for (std::size_t b = 0; b < blocks; ++b, p += block, base += block) {
        BlockMasks m = classify(p);
        std::uint64_t quotes = m.quote & ~escaped_by(m.backslash, escaped);
        std::uint64_t strings = prefix_xor(quotes) ^ in_string;
        in_string = static_cast<std::uint64_t>(static_cast<std::int64_t>(strings) >> 63);
        std::uint64_t structural = (m.open | m.close) & ~strings;
        while (structural != 0) {
            int i = __builtin_ctzll(structural);
            structural &= structural - 1;
            if ((m.open >> i) & 1U) {
                ++depth;
            } else if (--depth == 0) {
                ends.push_back(base + static_cast<std::uint64_t>(i));
            } else if (depth < 0) {
                return base + static_cast<std::uint64_t>(i);
            }
        }
    }
    return std::nullopt;
}

std::optional<std::uint64_t> Splitter::scan_bytes(const char* p, std::size_t n, std::uint64_t base,
                                                  std::vector<std::uint64_t>& ends) {
    for (std::size_t i = 0; i < n; ++i) {
        auto c = static_cast<unsigned char>(p[i]);
        if (escaped != 0) {
            escaped = 0;
            if (c == '"' || c == '\\') {
                continue;
            }
        } else if (c == '\\') {
            escaped = 1;
            continue;
        }
        if (c == '"') {
            in_string = ~in_string;
            continue;
        }
        if (in_string != 0) {
            continue;
        }
        if ((c | 0x20U) == 0x7BU) {
            ++depth;
        } else if ((c | 0x20U) == 0x7DU) {
            if (--depth == 0) {
                ends.push_back(base + i);
            } else if (depth < 0) {
                return base + i;
            }
        }
    }
    return std::nullopt;
}

} // namespace sdscprov::json_split
